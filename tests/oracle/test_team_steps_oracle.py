"""Team steps (smaller shapes after a wait, issue 35) against brute force on small waves:
every match has the queue's shape or the shape of a step its least waited ticket has
reached, no match of the queue's shape is left among the unmatched tickets, and none of a
step's shape among the unmatched tickets that have waited that step's ``after_s`` (under
the queue's rules each time); the live checker agrees with the oracle."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations, product

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import lineup_problem, rated_snapshot, waited_s
from matcher.ruleset import QueueRuleSet
from matcher.strategies import check_profile, result_problems, run_wave
from matcher.teams.step_config import parse_team_steps

CLOSED_AT_MS = 600_000
WAVES = 30
#: (strategy, team_count, team_size, steps): a count relaxed for rebalance, a size for both.
QUEUES = (
    ("rebalance", 3, 2, [{"after_s": 20, "team_count": 2}]),
    ("rebalance", 2, 3, [{"after_s": 15, "team_size": 2}, {"after_s": 40, "team_size": 1}]),
    ("game-queue", 2, 3, [{"after_s": 20, "team_size": 2}]),
)
RULES: tuple[dict[str, object], ...] = (
    {},
    {"max_spread": {"base": 300, "growth_per_s": 0, "cap": 300}},
)
Shape = tuple[int, int, float]  # team count, team size, seconds waited from which it applies


def wave(seed: int) -> WaveSnapshot:
    rng = random.Random(seed)
    tickets = []
    for i in range(rng.randint(2, 9)):
        size = rng.choice((1, 1, 1, 2, 3))
        players = tuple(
            Player(f"p{i}.{j}", (("mmr", round(rng.gauss(1500, 250))),)) for j in range(size)
        )
        joined = CLOSED_AT_MS - rng.randint(0, 60) * 1000
        tickets.append(
            WaitingTicket(Ticket(f"t{i}", "q", "eu", players, joined), rng.randint(0, 9))
        )
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tuple(tickets))


def legal(tickets: Sequence[Ticket], count: int, size: int, rules: QueueRuleSet) -> bool:
    """Whether ``tickets`` (parties intact) make ``count`` teams of ``size`` the rules allow."""
    ratings = [[p.rating("mmr") or 0 for p in t.players] for t in tickets]
    if sum(map(len, ratings)) != count * size:
        return False
    waited = waited_s(CLOSED_AT_MS, [t.joined_at_ms for t in tickets])
    seated = [p for t in tickets for p in t.players]
    for sides in product(range(count), repeat=len(tickets)):
        teams = [
            [r for side, rs in zip(sides, ratings, strict=True) if side == s for r in rs]
            for s in range(count)
        ]
        sized = all(len(team) == size for team in teams)
        if sized and lineup_problem(rules, teams, waited, (), seated) is None:
            return True
    return False


def possible(tickets: Sequence[Ticket], count: int, size: int, rules: QueueRuleSet) -> bool:
    return any(
        legal(chosen, count, size, rules)
        for number in range(1, count * size + 1)
        for chosen in combinations(tickets, number)
    )


def shapes(count: int, size: int, steps: list[dict[str, object]]) -> list[Shape]:
    found: list[Shape] = [(count, size, 0.0)]
    for step in parse_team_steps(steps, count, size):
        found.append((step.team_count, step.team_size, step.after_s))
    return found


@pytest.mark.parametrize("rules", RULES, ids=lambda r: "-".join(r) or "none")
@pytest.mark.parametrize("queue", QUEUES, ids=lambda q: f"{q[0]}-{q[1]}x{q[2]}")
def test_team_steps_against_brute_force(
    queue: tuple[str, int, int, list[dict[str, object]]], rules: dict[str, object]
) -> None:
    strategy, count, size, steps = queue
    profile = QueueProfile(
        "q",
        strategy,
        ("m",),
        team_count=count,
        team_size=size,
        rules=rules,
        team_steps=parse_team_steps(steps, count, size),
    )
    check_profile(profile)
    ruleset, allowed = profile.ruleset, shapes(count, size, steps)
    relaxed = 0
    for seed in range(WAVES):
        snapshot = wave(seed)
        rated = rated_snapshot(snapshot, ruleset)
        result = run_wave(snapshot, profile)
        assert result_problems(snapshot, profile, result) == [], seed
        by_id = {w.ticket.ticket_id: w.ticket for w in rated.tickets}
        for match in result.matches:
            tickets = [by_id[t] for t in dict.fromkeys(match.ticket_ids())]
            waited = waited_s(CLOSED_AT_MS, [t.joined_at_ms for t in tickets])
            sizes = {len(team.seats) for team in match.teams}
            fitting = [
                (c, s, after)
                for c, s, after in allowed
                if after <= waited and len(match.teams) == c and sizes == {s}
            ]
            assert fitting, f"seed {seed}: {len(match.teams)} teams of {sizes} after {waited} s"
            relaxed += fitting[0][2] > 0
        left = [by_id[t] for t in result.unmatched]
        for c, s, after in allowed:
            waited_left = [t for t in left if waited_s(CLOSED_AT_MS, [t.joined_at_ms]) >= after]
            assert not possible(waited_left, c, s, ruleset), f"seed {seed}: a {c}x{s} match left"
    assert relaxed > 0  # the waves do exercise the steps


def test_a_smaller_match_of_tickets_that_have_not_waited_is_refused() -> None:
    steps = parse_team_steps([{"after_s": 30, "team_count": 2}], 3, 1)
    profile = QueueProfile("q", "rebalance", ("m",), team_count=3, team_size=1, team_steps=steps)
    players = [Player(f"p{i}", (("mmr", 1500),)) for i in range(2)]
    tickets = tuple(
        WaitingTicket(Ticket(f"t{i}", "q", "eu", (p,), CLOSED_AT_MS - wait), 0)
        for i, (p, wait) in enumerate(zip(players, (40_000, 10_000), strict=True))
    )
    snapshot = WaveSnapshot("q", "eu", "w", 1, 3, CLOSED_AT_MS, tickets)
    # The wave leaves both queued: one of them has waited only 10 s.
    result = run_wave(snapshot, profile)
    assert result.matches == () and result_problems(snapshot, profile, result) == []
    # A 1v1 of the two, made under the step without the wait, is refused by the checker.
    early = replace(profile, team_count=2, team_steps=())
    forced = run_wave(snapshot, early)
    assert len(forced.matches) == 1
    problems = result_problems(snapshot, profile, forced)
    assert any("teams are ('team1', 'team2'), expected" in p for p in problems), problems
    # Once both have waited 30 s, the same 1v1 is what the wave makes, and it passes.
    later = replace(snapshot, closed_at_ms=CLOSED_AT_MS + 20_000)
    made = run_wave(later, profile)
    assert [m.match_id for m in made.matches] == [m.match_id for m in forced.matches]
    assert result_problems(later, profile, made) == []


def test_a_left_step_match_fails_the_checker() -> None:
    steps = parse_team_steps([{"after_s": 30, "team_count": 2}], 3, 1)
    profile = QueueProfile("q", "rebalance", ("m",), team_count=3, team_size=1, team_steps=steps)
    tickets = tuple(
        WaitingTicket(
            Ticket(f"t{i}", "q", "eu", (Player(f"p{i}", (("mmr", 1500),)),), CLOSED_AT_MS - 60_000),
            0,
        )
        for i in range(2)
    )
    snapshot = WaveSnapshot("q", "eu", "w", 1, 3, CLOSED_AT_MS, tickets)
    nothing = replace(run_wave(snapshot, profile), matches=(), unmatched=("t0", "t1"))
    problems = result_problems(snapshot, profile, nothing)
    assert problems == [
        "not maximal: tickets t0, t1 left unmatched can still make a match after 30 s (team_steps)"
    ]
