"""The rules every strategy's result must pass: each way of breaking one is caught."""

from __future__ import annotations

from dataclasses import replace

import pytest

from matcher.checks import wave_result_problems
from matcher.core import (
    Match,
    Player,
    QueueProfile,
    Seat,
    ServerRoute,
    Team,
    Ticket,
    WaitingTicket,
    WaveResult,
    WaveSnapshot,
    derive_match_id,
)

PROFILE = QueueProfile(queue="q", strategy="test", maps=("alpha", "beta"), team_size=2)


def ticket(ticket_id: str, *players: str, veto: tuple[str, ...] = ()) -> Ticket:
    return Ticket(
        ticket_id,
        "q",
        "eu",
        tuple(Player(p, (("any", 1500),), vetoed_maps=veto) for p in players),
        0,
    )


SNAPSHOT = WaveSnapshot(
    "q",
    "eu",
    "7",
    7,
    1,
    0,
    tuple(
        WaitingTicket(t, 0)
        for t in (
            ticket("duo", "a", "b"),
            ticket("c1", "c"),
            ticket("d1", "d", veto=("beta",)),
            ticket("e1", "e"),
        )
    ),
)


def seat(ticket_id: str, player: str) -> Seat:
    return Seat(ticket_id, player, "any", 1500)


def match(*teams: tuple[Seat, ...], map_name: str = "alpha", match_id: str | None = None) -> Match:
    tickets = tuple(dict.fromkeys(s.ticket_id for team in teams for s in team))
    return Match(
        match_id or derive_match_id("q", "eu", "7", tickets),
        tuple(Team(str(n), team) for n, team in enumerate(teams)),
        map_name,
        "default",  # the fallback server of a queue without routes
        "scevo01",
    )


GOOD = match((seat("duo", "a"), seat("duo", "b")), (seat("c1", "c"), seat("d1", "d")))


def result(*matches: Match, unmatched: tuple[str, ...] = ("e1",)) -> WaveResult:
    return WaveResult("test", matches, unmatched)


def test_a_valid_result_has_no_problem() -> None:
    assert wave_result_problems(SNAPSHOT, PROFILE, result(GOOD)) == []


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        (result(GOOD, unmatched=()), "unmatched is not exactly"),
        (result(GOOD, unmatched=("e1", "e1")), "unmatched is not exactly"),
        (result(replace(GOOD, map_name="beta")), "map vetoed by d"),
        (result(replace(GOOD, map_name="gamma")), "map 'gamma' not in the queue"),
        (result(replace(GOOD, match_id="made-up")), "id is not the derived one"),
        (
            result(match((seat("duo", "a"), seat("c1", "c")), (seat("duo", "b"), seat("d1", "d")))),
            "party duo split",
        ),
        (
            result(match((seat("duo", "a"), seat("c1", "c")), (seat("e1", "e"), seat("d1", "d")))),
            "party duo incomplete",
        ),
        (
            result(match((seat("duo", "a"), seat("duo", "a")), (seat("c1", "c"), seat("d1", "d")))),
            "player a seated 2 times",
        ),
        (
            result(match((seat("duo", "a"), seat("duo", "x")), (seat("c1", "c"), seat("d1", "d")))),
            "x not in its ticket",
        ),
        (
            result(match((seat("duo", "a"), seat("duo", "b")), (seat("zz", "z"), seat("d1", "d")))),
            "ticket zz not in the wave",
        ),
        (
            result(GOOD, match((seat("c1", "c"),), (seat("e1", "e"),)), unmatched=()),
            "ticket c1 is in 2 matches",
        ),
        (result(replace(GOOD, channel="scevo02")), "channel 'scevo02', not 'scevo01'"),
        (result(replace(GOOD, server="elsewhere")), "server 'elsewhere' not in the queue"),
    ],
)
def test_each_broken_rule_is_named(broken: WaveResult, problem: str) -> None:
    problems = wave_result_problems(SNAPSHOT, PROFILE, broken)
    assert any(problem in p for p in problems), problems


def test_channels_continue_the_regions_count_of_matches() -> None:
    later = replace(SNAPSHOT, matches_placed=9)
    assert wave_result_problems(later, PROFILE, result(replace(GOOD, channel="scevo10"))) == []
    problems = wave_result_problems(later, PROFILE, result(GOOD))
    assert problems == [f"match {GOOD.match_id}: channel 'scevo01', not 'scevo10'"]


def test_the_server_must_be_the_latency_best_regions_when_every_player_measured_it() -> None:
    routes = (
        ServerRoute("eu", "eu", ("fra",)),
        ServerRoute("na", "na", ("nyc",)),
        ServerRoute("eu", "na", ("lon",)),
    )
    profile = replace(PROFILE, routes=routes)
    near_na = (("eu", 90), ("na", 20))
    tickets = tuple(
        WaitingTicket(
            replace(
                w.ticket, players=tuple(replace(p, latency_ms=near_na) for p in w.ticket.players)
            ),
            0,
        )
        for w in SNAPSHOT.tickets
    )
    measured = replace(SNAPSHOT, tickets=tickets)
    on_nyc = result(replace(GOOD, server="nyc"))
    assert wave_result_problems(measured, profile, on_nyc) == []
    problems = wave_result_problems(measured, profile, result(replace(GOOD, server="fra")))
    assert problems == [
        f"match {GOOD.match_id}: server 'fra' is not one of region 'na', the one minimising "
        "the worst player's latency"
    ]
    # Without latencies any server of the queue passes: the route table chose it.
    assert wave_result_problems(SNAPSHOT, profile, result(replace(GOOD, server="fra"))) == []
