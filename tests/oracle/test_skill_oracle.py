"""game-queue's ``skill_dimensions`` against brute force on small waves (issue 37): every
match's split has the least vector imbalance F among the splits of its parties that the
rules allow, no legal match is left among the unmatched tickets, and the live checker
agrees. F is recomputed here from the players' raw ratings (alpha = 1, p = 1, q = 2).
Distributions: independent dimensions, dimensions in opposition, ties, a dimension
missing for some players; parties of one to three."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from itertools import combinations, product

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import lineup_problem
from matcher.ruleset import QueueRuleSet, Waits
from matcher.strategies import result_problems, run_wave

CLOSED_AT_MS = 600_000
TEAM = 3
WAVES = 25
WEIGHTS = {"aim": 1.0, "tactics": 0.5}
RULES: tuple[dict[str, object], ...] = ({}, {"max_team_gap": 60, "max_spread": 700})

Ratings = Callable[[random.Random], tuple[tuple[str, int], ...]]


def _independent(rng: random.Random) -> tuple[tuple[str, int], ...]:
    return (("aim", round(rng.gauss(1500, 300))), ("tactics", round(rng.gauss(1500, 300))))


def _opposed(rng: random.Random) -> tuple[tuple[str, int], ...]:
    aim = round(rng.gauss(1500, 300))
    return (("aim", aim), ("tactics", 3000 - aim + rng.randint(-50, 50)))


def _tied(rng: random.Random) -> tuple[tuple[str, int], ...]:
    return (("aim", rng.choice((1400, 1500))), ("tactics", rng.choice((1400, 1600))))


def _gaps(rng: random.Random) -> tuple[tuple[str, int], ...]:
    rated = _independent(rng)
    return rated if rng.random() < 0.85 else rated[:1]  # no tactics: cannot play


DISTRIBUTIONS: dict[str, Ratings] = {
    "independent": _independent,
    "opposed": _opposed,
    "tied": _tied,
    "gaps": _gaps,
}


def wave(name: str, seed: int) -> WaveSnapshot:
    rng = random.Random(seed)
    tickets = []
    for i in range(rng.randint(4, 10)):
        size = rng.choice((1, 1, 1, 2, 3))
        players = tuple(
            Player(f"p{i}.{j}", tuple(sorted(DISTRIBUTIONS[name](rng)))) for j in range(size)
        )
        joined = CLOSED_AT_MS - rng.randint(0, 60) * 1000
        tickets.append(WaitingTicket(Ticket(f"t{i}", "q", "eu", players, joined), 0))
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tuple(tickets))


def vector_f(teams: Sequence[Sequence[Player]]) -> float:
    total = 0.0
    for name, weight in WEIGHTS.items():
        rated = [[p.rating(name) or 0 for p in team] for team in teams]
        everyone = [r for team in rated for r in team]
        mean = sum(everyone) / len(everyone)
        deviation = math.sqrt(sum((r - mean) ** 2 for r in everyone) / len(everyone))
        total += weight * (abs(sum(rated[0]) - sum(rated[1])) + deviation)
    return total


def composite(player: Player) -> int:
    values = [(player.rating(name) or 0) * w for name, w in WEIGHTS.items()]
    return round(sum(values) / sum(WEIGHTS.values()))


def playable(ticket: Ticket) -> bool:
    return all(p.rating(name) is not None for p in ticket.players for name in WEIGHTS)


def legal_values(tickets: Sequence[Ticket], rules: QueueRuleSet) -> list[float]:
    """F of every split of ``tickets`` (parties whole) into two teams of TEAM the rules allow."""
    if sum(t.size for t in tickets) != 2 * TEAM:
        return []
    joined = [t.joined_at_ms for t in tickets]
    waited = Waits((CLOSED_AT_MS - max(joined)) / 1000, (CLOSED_AT_MS - min(joined)) / 1000)
    found = []
    for sides in product((0, 1), repeat=len(tickets)):
        teams = [
            [p for side, t in zip(sides, tickets, strict=True) if side == s for p in t.players]
            for s in (0, 1)
        ]
        if any(len(team) != TEAM for team in teams):
            continue
        seats = [[composite(p) for p in team] for team in teams]
        everyone = [p for team in teams for p in team]
        if lineup_problem(rules, seats, waited, (), everyone) is None:
            found.append(vector_f(teams))
    return found


@pytest.mark.parametrize("rules", RULES, ids=lambda r: "-".join(r) or "none")
@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_least_vector_imbalance_and_maximal_against_brute_force(
    name: str, rules: dict[str, object]
) -> None:
    options = {"skill_dimensions": WEIGHTS}
    profile = QueueProfile("q", "game-queue", ("m",), team_size=TEAM, options=options, rules=rules)
    ruleset = profile.ruleset
    for seed in range(WAVES):
        snapshot = wave(name, seed)
        result = run_wave(snapshot, profile)
        assert result_problems(snapshot, profile, result) == [], (name, seed)
        by_id = {w.ticket.ticket_id: w.ticket for w in snapshot.tickets}
        for match in result.matches:
            tickets = [by_id[t] for t in sorted(set(match.ticket_ids()))]
            assert all(playable(t) for t in tickets)
            players = {(t.ticket_id, p.player_id): p for t in tickets for p in t.players}
            teams = [
                [players[(s.ticket_id, s.player_id)] for s in team.seats] for team in match.teams
            ]
            made = vector_f(teams)
            assert made == pytest.approx(match.quality_of("skill_imbalance"))
            best = min(legal_values(tickets, ruleset))
            assert made <= best + 1e-6, (name, seed, made, best)
        left = [by_id[t] for t in result.unmatched if playable(by_id[t])]
        possible = any(
            legal_values(chosen, ruleset)
            for count in range(2, 2 * TEAM + 1)
            for chosen in combinations(left, count)
        )
        assert not possible, f"{name} seed {seed}: a legal match left unmade"
