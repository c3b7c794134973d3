"""Backfill in the region's fold (docs/adr/0113): open slots of running sessions filled
at a tick from the oldest queued parties, whole, before the wave's own matches."""

from __future__ import annotations

from dataclasses import replace

import pytest

from matcher.core import QueueProfile
from matcher.queue import DequeueReason, QueueRules, TicketJoined, WaveTick, backfill
from matcher.queue.book import QueueBook
from matcher.queue.lifecycle import (
    BackfillCancelled,
    BackfillRequested,
    BackfillResult,
    BackfillTeam,
    LifecycleRejected,
)
from matcher.queue.records import queue_from_record, queue_to_record
from tests.queue.conftest import PAIRS, make_ticket

RULES = QueueRules(ticket_ttl_ms=600_000, finished_retention_ms=600_000)
RED = BackfillTeam("red", tuple((f"r{i}", 1500) for i in range(5)), 0)
BLUE = BackfillTeam("blue", (("b1", 1490), ("b2", 1510), ("b3", 1500)), 2)


def book() -> QueueBook:
    profile = QueueProfile(queue="5v5", strategy=PAIRS, maps=("alpha",), team_size=5)
    return QueueBook({"5v5": profile}, {"5v5": ("eu",)}, RULES)


def join(b: QueueBook, ticket_id: str, *players: str, at_ms: int = 1_000) -> None:
    b.apply(TicketJoined(make_ticket(ticket_id, *players, queue="5v5", joined_at_ms=at_ms)))


def tick(n: int) -> WaveTick:
    return WaveTick("5v5", "eu", f"w{n}", n, 10_000 * n, "cfg", 10_000)


def requested(*teams: BackfillTeam, deadline: int | None = None) -> BackfillRequested:
    return BackfillRequested("s-1", "5v5", "eu", teams or (RED, BLUE), 2_000, deadline)


def results(step) -> list[BackfillResult]:
    return [o for o in step.outputs if isinstance(o, BackfillResult)]


def test_two_open_slots_take_a_party_of_two_whole():
    b = book()
    join(b, "t-party", "ann", "ben")
    join(b, "t-solo", "cat")
    assert b.apply(requested()).note == "backfill_requested"
    step = b.apply(tick(1))
    (result,) = results(step)
    assert result.outcome == "FILLED"
    assert [(t.name, [s.player_id for s in t.seats]) for t in result.teams] == [
        ("blue", ["ann", "ben"])
    ]
    filled = [d for d in step.dequeued if d.match_id == "s-1"]
    assert [(d.ticket_id, d.reason) for d in filled] == [("t-party", DequeueReason.MATCHED)]
    assert "t-solo" in b.regions["5v5", "eu"].tickets  # the wave had nobody to pair it with
    assert not b.regions["5v5", "eu"].life.backfills  # one fill ends the request


def test_a_party_is_never_split_and_the_request_waits():
    b = book()
    join(b, "t-three", "ann", "ben", "cat")
    b.apply(requested())
    assert results(b.apply(tick(1))) == []
    assert "t-three" in b.regions["5v5", "eu"].tickets
    join(b, "t-duo", "dan", "eve", at_ms=15_000)
    (result,) = results(b.apply(tick(2)))
    assert [s.ticket_id for t in result.teams for s in t.seats] == ["t-duo", "t-duo"]


def test_a_request_expires_at_the_first_tick_after_its_deadline():
    b = book()
    b.apply(requested(deadline=15_000))
    assert results(b.apply(tick(1))) == []
    (expired,) = results(b.apply(tick(2)))
    assert (expired.outcome, expired.teams) == ("EXPIRED", ())


def test_a_request_without_a_deadline_expires_a_ticket_ttl_after_it_was_made():
    b = book()
    b.apply(requested())  # requested at 2,000; the TTL is 600,000
    assert b.regions["5v5", "eu"].life.backfills
    assert results(b.apply(tick(60))) == []  # 600,000: not yet
    (expired,) = results(b.apply(tick(61)))
    assert expired.outcome == "EXPIRED"
    assert not b.regions["5v5", "eu"].life.backfills
    b.apply(requested(deadline=10_000_000))  # a later deadline does not lengthen it
    (expired,) = results(b.apply(tick(62)))
    assert expired.outcome == "EXPIRED"


def test_an_update_replaces_the_request_and_a_cancel_ends_it():
    b = book()
    b.apply(requested())
    b.apply(requested(RED, BackfillTeam("blue", BLUE.players[:2], 3)))
    (active,) = b.regions["5v5", "eu"].life.backfills.values()
    assert active.teams[1].open_slots == 3
    assert b.apply(BackfillCancelled("s-1", "5v5", "eu", 3_000)).note == "backfill_cancelled"
    with pytest.raises(LifecycleRejected) as error:
        b.apply(BackfillCancelled("s-1", "5v5", "eu", 3_000))
    assert error.value.code == "unknown_session"


@pytest.mark.parametrize(
    ("event", "code"),
    [
        (requested(RED, BackfillTeam("blue", BLUE.players, 3)), "backfill_too_large"),
        (requested(RED, BLUE, BLUE), "backfill_too_large"),
        (requested(RED), "invalid_field"),
        (BackfillRequested("s", "9v9", "eu", (BLUE,), 1_000), "unknown_queue"),
    ],
)
def test_requests_the_queue_can_never_fill_are_rejected(event, code):
    with pytest.raises(LifecycleRejected) as error:
        book().apply(event)
    assert error.value.code == code


def test_an_active_request_survives_a_snapshot():
    b = book()
    b.apply(requested())
    restored = book()
    restored.regions["5v5", "eu"] = queue_from_record(queue_to_record(b.regions["5v5", "eu"]))
    for each in (b, restored):
        join(each, "t-party", "ann", "ben")
    assert b.apply(tick(1)) == restored.apply(tick(1))


def test_the_fill_balances_the_session_and_says_why():
    b = book()
    join(b, "t-low", "lou", at_ms=1_000)  # oldest, but every fill with it leaves a gap >= 18
    b.apply(TicketJoined(make_ticket("t-a", "ann", queue="5v5", joined_at_ms=2_000, rating=1600)))
    b.apply(TicketJoined(make_ticket("t-b", "bob", queue="5v5", joined_at_ms=3_000, rating=1410)))
    b.apply(requested())
    step = b.apply(tick(1))
    (result,) = results(step)
    assert [s.ticket_id for t in result.teams for s in t.seats] == ["t-a", "t-b"]
    (choice,) = step.backfills
    assert (choice.session_id, choice.gap_before, choice.gap_after) == ("s-1", 0.0, 2.0)
    assert [p.ticket_id for p in choice.passed_over] == ["t-low"]
    assert "t-low" in b.regions["5v5", "eu"].tickets


def test_a_fill_its_checker_rejects_fails_the_wave_and_takes_nothing(monkeypatch):
    b = book()
    join(b, "t-party", "ann", "ben")
    b.apply(requested())
    real = backfill.choose_fill

    def split_the_party(*args, **kwargs):
        choice = real(*args, **kwargs)
        return replace(choice, teams=(("red", ()), ("blue", ("t-party", "t-party"))))

    monkeypatch.setattr(backfill, "choose_fill", split_the_party)
    step = b.apply(tick(1))
    assert step.note == "wave_failed"
    assert step.failure.reason.startswith("backfill of session s-1: team blue: 4 new seats")
    assert "t-party" in b.regions["5v5", "eu"].tickets
    assert "s-1" in b.regions["5v5", "eu"].life.backfills


def test_an_asymmetric_queue_holds_each_requested_team_to_its_own_size():
    profile = QueueProfile("1v4", PAIRS, ("alpha",), team_size=4, team_sizes=(1, 4))
    b = QueueBook({"1v4": profile}, {"1v4": ("eu",)}, RULES)
    hunter = BackfillTeam("team1", (), 2)  # the hunter's team holds one player
    survivors = BackfillTeam("team2", (("s1", 1500),), 3)
    with pytest.raises(LifecycleRejected) as error:
        b.apply(BackfillRequested("s-1", "1v4", "eu", (hunter, survivors), 2_000))
    assert error.value.code == "backfill_too_large"
    assert "exceed the queue's team size 1" in str(error.value)
    hunter = BackfillTeam("team1", (), 1)
    assert b.apply(BackfillRequested("s-1", "1v4", "eu", (hunter, survivors), 2_000)).note == (
        "backfill_requested"
    )


def test_under_a_deviation_rule_a_fill_seats_the_confidence_bound_the_match_would():
    """A queue whose rules rate players at ``rating - W x deviation``: the fill's seats
    carry that bound, as the wave's own matches do, and its checker accepts them."""
    profile = QueueProfile(
        queue="5v5",
        strategy=PAIRS,
        maps=("alpha",),
        team_size=5,
        rules={"rating": "any", "deviation": {"weight": 2, "missing": 350}},
    )
    b = QueueBook({"5v5": profile}, {"5v5": ("eu",)}, RULES)
    ticket = make_ticket("t-sure", "ann", "ben", queue="5v5")
    sure = tuple(replace(p, deviation=100) for p in ticket.players)
    b.apply(TicketJoined(replace(ticket, players=sure)))
    b.apply(requested())
    (result,) = results(b.apply(tick(1)))
    assert result.outcome == "FILLED"
    assert [(s.player_id, s.rating) for t in result.teams for s in t.seats] == [
        ("ann", 1300),
        ("ben", 1300),
    ]


def test_a_fill_carries_each_players_data_for_the_game_server():
    """ADR 0173: the ticket's data merged with the player's (the player's entry wins) reach
    the seats of a fill as they reach a match's."""
    b = book()
    ticket = make_ticket("t-data", "ann", "ben", queue="5v5")
    ann, ben = ticket.players
    players = (replace(ann, data=(("skin", "crimson"),)), ben)
    data = (("build", "1.4.2"), ("skin", "plain"))
    b.apply(TicketJoined(replace(ticket, players=players, data=data)))
    b.apply(requested())
    (result,) = results(b.apply(tick(1)))
    assert {s.player_id: dict(s.data) for t in result.teams for s in t.seats} == {
        "ann": {"build": "1.4.2", "skin": "crimson"},
        "ben": {"build": "1.4.2", "skin": "plain"},
    }
