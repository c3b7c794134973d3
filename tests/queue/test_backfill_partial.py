"""Partial backfill fills (a queue's ``partial_backfill``, docs/adr/0192): in the fold, a
request no whole fill meets takes the legal fill of the most open slots, stays open for
the rest under the same session id, is filled further at later ticks, and survives a
snapshot; without the option nothing changes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Player, QueueProfile, Seat, Team, Ticket
from matcher.queue import DequeueReason, QueueRules, TicketJoined, WaveTick
from matcher.queue.backfill_checks import backfill_problems
from matcher.queue.book import QueueBook
from matcher.queue.lifecycle import (
    BackfillCancelled,
    BackfillRequested,
    BackfillResult,
    BackfillTeam,
    LifecycleRejected,
)
from matcher.queue.records import queue_from_record, queue_to_record
from matcher.ruleset import NO_RULES, parse_rules
from matcher.teams.step_config import parse_team_steps
from streams.settings import SettingsError, load_settings
from streams.worker.config_record import config_published, settings_of
from tests.queue.conftest import PAIRS

RULES = QueueRules(ticket_ttl_ms=600_000, finished_retention_ms=600_000)
RED = BackfillTeam("red", (("r1", 1500), ("r2", 1500)), 1)
BLUE = BackfillTeam("blue", (("b1", 1500),), 2)


def book(partial: bool = True, rules: dict[str, object] | None = None) -> QueueBook:
    profile = QueueProfile(
        "3v3", PAIRS, ("alpha",), team_size=3, rules=rules or {}, partial_backfill=partial
    )
    return QueueBook({"3v3": profile}, {"3v3": ("eu",)}, RULES)


def ticket(ticket_id: str, size: int = 1, at_ms: int = 1_000, **attrs: str) -> Ticket:
    players = tuple(
        Player(f"{ticket_id}.{i}", (("mmr", 1500),), attributes=tuple(attrs.items()))
        for i in range(size)
    )
    return Ticket(ticket_id, "3v3", "eu", players, at_ms)


def tick(n: int) -> WaveTick:
    return WaveTick("3v3", "eu", f"w{n}", n, 10_000 * n, "cfg", 10_000)


def request(*teams: BackfillTeam) -> BackfillRequested:
    return BackfillRequested("s-1", "3v3", "eu", teams or (RED, BLUE), 2_000)


def results(step: object) -> list[BackfillResult]:
    return [o for o in step.outputs if isinstance(o, BackfillResult)]  # type: ignore[attr-defined]


def seated(result: BackfillResult) -> dict[str, list[str]]:
    return {team.name: [s.ticket_id for s in team.seats] for team in result.teams}


def test_a_partial_fill_seats_what_it_can_and_the_request_stays_open_for_the_rest() -> None:
    b = book()
    b.apply(request())
    b.apply(TicketJoined(ticket("a")))
    step = b.apply(tick(1))
    (result,) = results(step)
    # The shorter team first: equal team sizes are the first part of the balance key.
    assert (result.session_id, result.outcome, seated(result)) == ("s-1", "FILLED", {"blue": ["a"]})
    assert [(d.ticket_id, d.reason, d.match_id) for d in step.dequeued] == [
        ("a", DequeueReason.MATCHED, "s-1")
    ]
    region = b.regions["3v3", "eu"]
    (left,) = region.life.backfills.values()
    assert (left.session_id, left.at_ms) == ("s-1", 2_000)
    assert [(t.name, [p for p, _ in t.players], t.open_slots) for t in left.teams] == [
        ("red", ["r1", "r2"], 1),
        ("blue", ["b1", "a.0"], 1),
    ]
    b.apply(TicketJoined(ticket("duo", 2, at_ms=15_000)))
    assert not results(b.apply(tick(2)))  # one slot per team: the duo stays whole, queued
    b.apply(TicketJoined(ticket("b", at_ms=25_000)))
    b.apply(TicketJoined(ticket("c", at_ms=25_000)))
    (result,) = results(b.apply(tick(3)))
    assert seated(result) == {"red": ["b"], "blue": ["c"]}
    assert not region.life.backfills and not region.life.backfill_seated
    assert "duo" in region.tickets


def test_without_the_option_the_request_waits_for_a_whole_fill() -> None:
    b = book(partial=False)
    b.apply(request())
    b.apply(TicketJoined(ticket("a")))
    assert not results(b.apply(tick(1)))
    assert "a" in b.regions["3v3", "eu"].tickets
    (left,) = b.regions["3v3", "eu"].life.backfills.values()
    assert left == request()


def test_a_party_is_never_split_over_the_open_slots() -> None:
    b = book()
    red = BackfillTeam("red", (("r1", 1500), ("r2", 1500)), 1)
    b.apply(request(red, BackfillTeam("blue", (("b1", 1500), ("b2", 1500)), 1)))
    b.apply(TicketJoined(ticket("duo", 2)))
    assert not results(b.apply(tick(1)))  # two single slots, one party of two: nothing
    b.apply(TicketJoined(ticket("solo", at_ms=12_000)))
    (result,) = results(b.apply(tick(2)))
    assert seated(result) == {"red": ["solo"]}
    assert "duo" in b.regions["3v3", "eu"].tickets


def test_a_later_fill_keeps_the_rules_with_the_players_seated_earlier() -> None:
    # The request carries no attributes of the session's players, but the fold knows
    # those of the players it seated itself: a later fill must agree with them.
    b = book(rules={"attributes": [{"name": "language", "match": "equal"}]})
    b.apply(request())
    b.apply(TicketJoined(ticket("de", language="de")))
    (result,) = results(b.apply(tick(1)))
    assert seated(result) == {"blue": ["de"]}
    b.apply(TicketJoined(ticket("fr", at_ms=11_000, language="fr")))
    assert not results(b.apply(tick(2)))
    b.apply(TicketJoined(ticket("de2", at_ms=21_000, language="de")))
    (result,) = results(b.apply(tick(3)))
    assert seated(result) == {"red": ["de2"]}


def test_a_snapshot_between_partial_fills_changes_nothing() -> None:
    events = [
        request(),
        TicketJoined(ticket("de", language="de")),
        tick(1),
        TicketJoined(ticket("fr", at_ms=11_000, language="fr")),
        TicketJoined(ticket("de2", at_ms=11_000, language="de")),
        tick(2),
    ]
    rules = {"attributes": [{"name": "language", "match": "equal"}]}
    straight = book(rules=rules)
    expected = [straight.apply(e) for e in events]
    first = book(rules=rules)
    for event in events[:3]:
        first.apply(event)
    region = first.regions["3v3", "eu"]
    record = json.loads(json.dumps(queue_to_record(region)))
    (backfill,) = record["life"]["backfills"]
    assert len(backfill) == 7  # the seated tickets, trailing
    first.regions["3v3", "eu"] = queue_from_record(record)
    assert first.regions["3v3", "eu"].life.backfill_seated == region.life.backfill_seated
    assert [first.apply(e) for e in events[3:]] == expected[3:]
    (result,) = results(expected[-1])
    assert seated(result) == {"red": ["de2"]}


def test_a_request_never_partly_filled_keeps_its_record() -> None:
    b = book()
    b.apply(request())
    (backfill,) = queue_to_record(b.regions["3v3", "eu"])["life"]["backfills"]
    assert backfill == [
        "s-1",
        "3v3",
        "eu",
        [["red", [["r1", 1500], ["r2", 1500]], 1], ["blue", [["b1", 1500]], 2]],
        2_000,
        None,
    ]


def test_an_expiring_partly_filled_request_says_expired_and_leaves_nothing() -> None:
    b = book()
    b.apply(BackfillRequested("s-1", "3v3", "eu", (RED, BLUE), 2_000, 15_000))
    b.apply(TicketJoined(ticket("a")))
    b.apply(tick(1))
    (result,) = results(b.apply(tick(2)))
    assert (result.outcome, result.teams) == ("EXPIRED", ())
    region = b.regions["3v3", "eu"]
    assert not region.life.backfills and not region.life.backfill_seated


# -- the checker ----------------------------------------------------------------------


def seats_of(team: str, *tickets: Ticket) -> Team:
    return Team(
        team, tuple(Seat(t.ticket_id, p.player_id, "", 1500) for t in tickets for p in t.players)
    )


def test_the_checker_fails_a_partial_fill_that_leaves_a_legal_candidate_out() -> None:
    a, c = ticket("a"), ticket("c", at_ms=2_000)
    filled = (seats_of("red", a),)
    queued = {"a": a}
    problems = backfill_problems(request(), filled, queued, 10_000, 0, NO_RULES, waiting=[a, c])
    assert problems == ["ticket c fits team blue's 2 open slots legally but was left out"]
    # Once blue's slots cannot take it legally, the same fill keeps the promise.
    spread = parse_rules({"max_spread": 100})
    far = Ticket("c", "3v3", "eu", (Player("c.0", (("mmr", 2500),)),), 2_000)
    assert not backfill_problems(request(), filled, queued, 10_000, 0, spread, waiting=[a, far])


def test_the_checker_fails_an_illegal_seat_an_empty_fill_and_a_partial_fill_when_off() -> None:
    a = ticket("a")
    spread = parse_rules({"max_spread": 100})
    far = Ticket("a", "3v3", "eu", (Player("a.0", (("mmr", 2500),)),), 1_000)
    bad = (Team("red", (Seat("a", "a.0", "", 2500),)),)
    assert backfill_problems(request(), bad, {"a": far}, 10_000, 0, spread, waiting=[far])
    assert backfill_problems(request(), (), {}, 10_000, 0, NO_RULES, waiting=[a]) == [
        "3 open slots left unfilled"
    ]
    filled = (seats_of("red", a),)
    assert backfill_problems(request(), filled, {"a": a}, 10_000, 0, NO_RULES) == [
        "2 open slots left unfilled"
    ]


def test_candidates_beyond_the_search_pool_still_take_the_slots_they_fit() -> None:
    # The eight oldest parties each speak another language (any two of them break the
    # rule): the pool yields one; two younger ones without a language fit beside it.
    b = book(rules={"attributes": [{"name": "language", "match": "equal"}]})
    b.apply(request(BackfillTeam("red", (), 3)))
    for i in range(8):
        b.apply(TicketJoined(ticket(f"old{i}", at_ms=1_000 + i, language=f"l{i}")))
    b.apply(TicketJoined(ticket("young1", at_ms=5_000)))
    b.apply(TicketJoined(ticket("young2", at_ms=5_000)))
    (result,) = results(b.apply(tick(1)))
    assert seated(result) == {"red": ["old0", "young1", "young2"]}
    assert not b.regions["3v3", "eu"].life.backfills


def test_the_setting_is_validated_published_and_fingerprinted_only_when_on() -> None:
    queue = {"name": "q", "strategy": "rebalance", "team_size": 3}
    with pytest.raises(
        SettingsError, match=r"^queues\.0: queue 'q': partial_backfill: Input should be"
    ):
        load_settings(queues=[{**queue, "partial_backfill": "maybe"}])
    off, on = (load_settings(queues=[{**queue, "partial_backfill": v}]) for v in (False, True))
    assert on.profiles()["q"].partial_backfill and not off.profiles()["q"].partial_backfill
    assert off.config_fingerprint() == load_settings(queues=[queue]).config_fingerprint()
    assert on.config_fingerprint() != off.config_fingerprint()
    record = config_published(on, 1_767_225_610_000)
    assert '"partial_backfill":true' in record.settings_json
    assert "partial_backfill" not in config_published(off, 1_767_225_610_000).settings_json
    rebuilt = settings_of(record, load_settings(queues=[queue]))
    assert rebuilt is not None and rebuilt.queues[0].partial_backfill


@st.composite
def logs(draw: st.DrawFn) -> list[object]:
    """Joins (solos and duos, two languages), requests of two sessions, cancels, ticks."""
    events: list[object] = []
    clock, sequence = 1_000, 0
    for n in range(draw(st.integers(4, 30))):
        clock += draw(st.integers(0, 4_000))
        kind = draw(st.sampled_from(("join", "join", "join", "request", "cancel", "tick")))
        if kind == "join":
            language = draw(st.sampled_from(("de", "fr")))
            size = draw(st.sampled_from((1, 1, 2)))
            events.append(TicketJoined(ticket(f"t{n}", size, at_ms=clock, language=language)))
        elif kind == "request":
            session = draw(st.sampled_from(("s-1", "s-2")))
            slots = (draw(st.integers(0, 2)), draw(st.integers(1, 3)))
            teams = (
                BackfillTeam("red", ((f"{session}r", 1500),), slots[0]),
                BackfillTeam("blue", (), slots[1]),
            )
            events.append(BackfillRequested(session, "3v3", "eu", teams, clock))
        elif kind == "cancel":
            session = draw(st.sampled_from(("s-1", "s-2")))
            events.append(BackfillCancelled(session, "3v3", "eu", clock))
        else:
            sequence += 1
            events.append(WaveTick("3v3", "eu", f"w{sequence}", sequence, clock, "cfg", 10_000))
    return events


def applied(b: QueueBook, event: object) -> object:
    try:
        return b.apply(event)  # type: ignore[arg-type]
    except LifecycleRejected as error:  # a cancel of no request: dead-lettered, no change
        return error.code


@settings(max_examples=60, deadline=None)
@given(events=logs(), data=st.data())
def test_restoring_a_snapshot_anywhere_between_partial_fills_changes_nothing(events, data):
    rules = {"attributes": [{"name": "language", "match": "equal"}]}
    cut = data.draw(st.integers(0, len(events)))
    straight = book(rules=rules)
    expected = [applied(straight, e) for e in events]
    first = book(rules=rules)
    for event in events[:cut]:
        applied(first, event)
    if ("3v3", "eu") in first.regions:  # a region exists from its first event on
        record = json.loads(json.dumps(queue_to_record(first.regions["3v3", "eu"])))
        first.regions["3v3", "eu"] = queue_from_record(record)
    assert [applied(first, e) for e in events[cut:]] == expected[cut:]
    assert queue_to_record(first.regions["3v3", "eu"]) == queue_to_record(
        straight.regions["3v3", "eu"]
    )


def test_an_automatic_backfill_of_a_missing_team_fills_partly() -> None:
    profile = QueueProfile(
        "3v3",
        "rebalance",
        ("alpha",),
        team_count=3,
        team_size=3,
        team_steps=parse_team_steps([{"after_s": 30, "team_count": 2}], 3, 3),
        auto_backfill=True,
        partial_backfill=True,
    )
    b = QueueBook({"3v3": profile}, {"3v3": ("eu",)}, RULES)
    for i in range(6):
        b.apply(TicketJoined(ticket(f"t{i}")))
    (match,) = b.apply(tick(4)).matches
    b.apply(TicketJoined(ticket("late", at_ms=41_000)))
    (result,) = results(b.apply(tick(5)))
    assert (result.session_id, seated(result)) == (match.match_id, {"team3": ["late"]})
    (left,) = b.regions["3v3", "eu"].life.backfills.values()
    assert [(t.name, t.open_slots) for t in left.teams] == [
        ("team1", 0),
        ("team2", 0),
        ("team3", 2),
    ]
