"""Ticket priority (issue 35): ``TicketJoined.priority`` on the wire and in snapshots, the
``priority`` rule validated at start (refused in one line where not honoured), and its
live check naming the ticket left out."""

from __future__ import annotations

import json

import pytest

from matcher.core import (
    Match,
    Player,
    QueueProfile,
    Seat,
    Team,
    Ticket,
    WaitingTicket,
    WaveResult,
    WaveSnapshot,
)
from matcher.queue.records import ticket_from_record, ticket_to_record
from matcher.rules.check import wave_rule_problems
from matcher.ruleset import parse_rules
from matcher.strategies import check_rules
from schemas import models as m
from schemas.codec import encode
from schemas.errors import InvalidEvent
from streams.wire import inbound

JOIN = {
    "type": "TicketJoined",
    "ticket_id": "t-1",
    "queue": "1v1",
    "region": "eu",
    "joined_at_ms": 1_767_225_600_000,
    "players": [{"player_id": "p-1", "ratings": {"mmr": 1500}}],
}


def test_every_decoder_reads_the_priority_and_an_old_join_has_none() -> None:
    text = json.dumps({**JOIN, "priority": 7}).encode()
    event = inbound.decode(text)
    assert event.ticket.priority == 7
    body = {k: v for k, v in JOIN.items() if k != "type"}
    avro = inbound.fast_queue_event(encode(m.TicketJoined.model_validate({**body, "priority": 7})))
    assert avro == event
    old = inbound.fast_queue_event(json.dumps(JOIN).encode())
    assert old is not None and old.ticket.priority == 0


@pytest.mark.parametrize("value", (1_000_001, "high", 1.5))
def test_a_bad_priority_is_refused_naming_the_field(value: object) -> None:
    text = json.dumps({**JOIN, "priority": value}).encode()
    assert inbound.fast_queue_event(text) is None
    with pytest.raises(InvalidEvent) as refused:
        inbound.decode(text)
    assert "priority" in (refused.value.field or str(refused.value))


def test_a_snapshot_keeps_the_priority_and_old_records_read_as_none() -> None:
    ticket = Ticket("t", "q", "eu", (Player("p", (("mmr", 1),)),), 0, priority=-3)
    assert ticket_from_record(ticket_to_record(ticket)) == ticket
    plain = Ticket("t", "q", "eu", (Player("p", (("mmr", 1),)),), 0)
    assert len(ticket_to_record(plain)) == 6  # old snapshots' shape, unchanged
    assert ticket_from_record(ticket_to_record(plain)) == plain


def test_the_rule_is_validated() -> None:
    assert parse_rules({"priority": True}).priority
    assert not parse_rules({}).priority
    with pytest.raises(ValueError, match=r"^rules\.priority: must be true or false"):
        parse_rules({"priority": 1})


@pytest.mark.parametrize("strategy", ("optimal", "ladder-v2.1"))
def test_strategies_without_it_refuse_it_in_one_line(strategy: str) -> None:
    profile = QueueProfile("q", strategy, ("m",), rules={"priority": True})
    with pytest.raises(
        ValueError, match=rf"^rules\.priority: not honoured by strategy '{strategy}'"
    ):
        check_rules(profile)


def test_game_queue_refuses_it_with_a_max_imbalance() -> None:
    profile = QueueProfile(
        "q", "game-queue", ("m",), options={"max_imbalance": 5.0}, rules={"priority": True}
    )
    with pytest.raises(ValueError, match=r"^rules\.priority: .*options\.max_imbalance"):
        check_rules(profile)
    for strategy in ("rebalance", "game-queue", "multifactor"):
        check_rules(QueueProfile("q", strategy, ("m",), rules={"priority": True}))


def _wave(*tickets: tuple[str, int, int]) -> WaveSnapshot:
    waiting = tuple(
        WaitingTicket(
            Ticket(
                tid, "q", "eu", (Player(f"p-{tid}", (("mmr", rating),)),), 0, None, priority=prio
            ),
            0,
        )
        for tid, rating, prio in tickets
    )
    return WaveSnapshot("q", "eu", "w", 1, 7, 10_000, waiting)


def _duel(a: tuple[str, int], b: tuple[str, int]) -> Match:
    teams = tuple(
        Team(f"t{i}", (Seat(tid, f"p-{tid}", "", r),)) for i, (tid, r) in enumerate((a, b))
    )
    return Match("m1", teams, "m", "s", "c")


def test_the_live_check_names_the_ticket_left_out_and_allows_what_the_rules_forbid() -> None:
    rules = {"rating": "mmr", "max_spread": 100, "priority": True}
    profile = QueueProfile("q", "rebalance", ("m",), rules=rules)
    snapshot = _wave(("a", 1500, 0), ("b", 1550, 0), ("c", 1520, 5), ("d", 2000, 9))
    result = WaveResult("rebalance", (_duel(("a", 1500), ("b", 1550)),), ("c", "d"))
    problems = wave_rule_problems(snapshot, profile, result)
    # c fits a's or b's seat; d (higher still) is too far from either to fit.
    assert problems == [
        "match m1: ticket c (priority 5) left out though it could take the seats of a "
        "(priority 0) (priority)",
        "match m1: ticket c (priority 5) left out though it could take the seats of b "
        "(priority 0) (priority)",
    ]
    fair = WaveResult("rebalance", (_duel(("c", 1520), ("b", 1550)),), ("a", "d"))
    assert wave_rule_problems(snapshot, profile, fair) == []
    without = QueueProfile("q", "rebalance", ("m",), rules={"rating": "mmr", "max_spread": 100})
    assert wave_rule_problems(snapshot, without, result) == []


def test_the_live_check_grows_a_limit_by_the_matchs_oldest_wait() -> None:
    """max_spread grows with the oldest ticket's wait by default: c, joined just before
    the close, fits beside a or b, who waited 10 s, and its priority is owed a seat."""
    rules = {
        "rating": "mmr",
        "max_spread": {"base": 100, "growth_per_s": 20, "cap": 800},
        "priority": True,
    }
    profile = QueueProfile("q", "rebalance", ("m",), rules=rules)
    waiting = tuple(
        WaitingTicket(
            Ticket(tid, "q", "eu", (Player(f"p-{tid}", (("mmr", r),)),), joined, priority=prio),
            0,
        )
        for tid, r, joined, prio in (("a", 1500, 0, 0), ("b", 1550, 0, 0), ("c", 1750, 9_900, 5))
    )
    snapshot = WaveSnapshot("q", "eu", "w", 1, 7, 10_000, waiting)
    result = WaveResult("rebalance", (_duel(("a", 1500), ("b", 1550)),), ("c",))
    # Beside a or b, who waited 10 s: within 100 + 20 x 10; by c's own 0.1 s, 102.
    assert wave_rule_problems(snapshot, profile, result) == [
        f"match m1: ticket c (priority 5) left out though it could take the seats of {seat} "
        "(priority 0) (priority)"
        for seat in ("a", "b")
    ]


def test_the_rule_is_in_the_fingerprint_and_a_bad_one_stops_the_settings() -> None:
    from streams.settings import QueueSettings, Settings

    def queue(**rules: object) -> QueueSettings:
        return QueueSettings(name="3v3", strategy="rebalance", team_size=3, rules=rules)

    plain = Settings(queues=(queue(max_spread=300),)).config_fingerprint()
    ruled = Settings(queues=(queue(max_spread=300, priority=True),)).config_fingerprint()
    assert plain != ruled
    with pytest.raises(ValueError, match=r"rules\.priority: not honoured by strategy 'optimal'"):
        Settings(queues=(QueueSettings(name="1v1", strategy="optimal", rules={"priority": True}),))


def test_a_copy_for_another_place_keeps_the_priority() -> None:
    from matcher.queue.events import TicketJoined
    from matcher.queue.searches import Search
    from streams.wire.outbound import _search_copy

    ticket = Ticket(
        "t-1", "1v1", "na", (Player("p-1", (("mmr", 1500),)),), JOIN["joined_at_ms"], priority=4
    )  # type: ignore[arg-type]
    places = (Search("1v1", "eu", 0), Search("1v1", "na", 30_000))
    _, _, value = _search_copy(TicketJoined(ticket, places))
    assert inbound.decode(value).ticket.priority == 4


def test_explain_names_the_priority_that_kept_a_ticket_out() -> None:
    from matcher.explain_rules import kept_out_facts

    profile = QueueProfile("q", "rebalance", ("m",), rules={"rating": "mmr", "priority": True})
    snapshot = _wave(("a", 1500, 5), ("b", 1550, 5), ("c", 1520, 0))
    match = _duel(("a", 1500), ("b", 1550))
    facts = kept_out_facts(snapshot, profile, WaveResult("rebalance", (match,), ("c",)), match, 3)
    assert facts == [
        (
            "kept out c",
            "rule 'priority': the seat of p-a went to a ticket of priority 5, not below its 0",
        )
    ]


def test_a_step_match_is_not_held_to_a_ticket_that_has_not_waited_for_the_step() -> None:
    from matcher.rules.check import rated_snapshot
    from matcher.strategies import run_wave
    from matcher.teams.step_config import parse_team_steps

    profile = QueueProfile(
        "ffa",
        "rebalance",
        ("m",),
        team_count=4,
        team_size=1,
        rules={"rating": "mmr", "max_spread": 100, "priority": True},
        team_steps=parse_team_steps([{"after_s": 30, "team_count": 2}], 4, 1),
    )
    closed = 100_000

    def solo(name: str, waited_s: int, priority: int) -> WaitingTicket:
        player = Player(f"p-{name}", (("mmr", 1500),))
        ticket = Ticket(
            name, "ffa", "eu", (player,), closed - waited_s * 1000, None, priority=priority
        )
        return WaitingTicket(ticket, 0)

    # Two who waited 40 s make a step match of two; the priority ticket joined 1 s ago.
    tickets = (solo("a", 40, 0), solo("b", 40, 0), solo("c", 1, 9))
    snapshot = rated_snapshot(
        WaveSnapshot("ffa", "eu", "w", 1, 3, closed, tickets), profile.ruleset
    )
    result = run_wave(snapshot, profile)
    assert [m.ticket_ids() for m in result.matches] == [("a", "b")]
    assert result.unmatched == ("c",)
    assert wave_rule_problems(snapshot, profile, result) == []
