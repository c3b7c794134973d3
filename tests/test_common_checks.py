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
        "server",
        "channel",
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
    ],
)
def test_each_broken_rule_is_named(broken: WaveResult, problem: str) -> None:
    problems = wave_result_problems(SNAPSHOT, PROFILE, broken)
    assert any(problem in p for p in problems), problems
