"""Block lists (issue 35, docs/rules.md) against brute force on small waves: in every
strategy that honours them no match holds two players of whom one blocked the other, the
live checker agrees, and a match is made whenever one is possible (``optimal``: as many
pairs as the most the rules allow; the team strategies: no match left possible among the
unmatched tickets)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations, product

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import (
    lineup_problem,
    met_recently,
    rated_snapshot,
    waited_s,
    wave_rule_problems,
)
from matcher.strategies import run_wave
from tests.oracle.test_team_oracle import CLOSED_AT_MS, STRATEGIES, TEAM

WAVES = 30


def blocks(rng: random.Random, ids: Sequence[str], own: str) -> tuple[str, ...]:
    """Often none, else one to three of the wave's other players (or a stranger)."""
    if rng.random() < 0.5:
        return ()
    others = [i for i in ids if i != own] + ["stranger"]
    return tuple(rng.sample(others, min(len(others), rng.randint(1, 3))))


def duel_wave(seed: int) -> WaveSnapshot:
    rng = random.Random(seed)
    ids = [f"p{i}" for i in range(rng.randint(2, 10))]
    tickets = tuple(
        WaitingTicket(
            Ticket(
                f"t-{pid}",
                "q",
                "eu",
                (
                    Player(
                        pid,
                        (("mmr", rng.choice((1400, 1500, 1550, 1700))),),
                        blocked=blocks(rng, ids, pid),
                    ),
                ),
                CLOSED_AT_MS - rng.randint(0, 30) * 1000,
            ),
            0,
        )
        for pid in ids
    )
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tickets)


def blocked(a: Player, b: Player) -> bool:
    return b.player_id in a.blocked or a.player_id in b.blocked


def most_pairs(players: list[Player], limit: float) -> int:
    """The most disjoint pairs within ``limit`` rating of each other and not blocked."""
    if len(players) < 2:
        return 0
    first, rest = players[0], players[1:]
    best = most_pairs(rest, limit)  # the first player sits out
    for i, other in enumerate(rest):
        close = abs((first.rating("mmr") or 0) - (other.rating("mmr") or 0)) <= limit
        if close and not blocked(first, other):
            best = max(best, 1 + most_pairs(rest[:i] + rest[i + 1 :], limit))
    return best


def no_blocked_pair_together(snapshot: WaveSnapshot, result, profile: QueueProfile) -> None:  # type: ignore[no-untyped-def]
    players = {p.player_id: p for w in snapshot.tickets for p in w.ticket.players}
    for match in result.matches:
        seated = [players[s.player_id] for team in match.teams for s in team.seats]
        for a, b in combinations(seated, 2):
            assert not blocked(a, b), f"{a.player_id} and {b.player_id} in {match.match_id}"
    assert wave_rule_problems(snapshot, profile, result) == []


@pytest.mark.parametrize("limit", (100, 1000))
def test_optimal_makes_the_most_pairs_no_blocked_one(limit: int) -> None:
    rules = {"rating": "mmr", "max_distance": limit, "block_lists": True}
    profile = QueueProfile("q", "optimal", ("m",), rules=rules)
    for seed in range(WAVES):
        snapshot = duel_wave(seed)
        result = run_wave(snapshot, profile)
        no_blocked_pair_together(snapshot, result, profile)
        players = [w.ticket.players[0] for w in snapshot.tickets]
        assert len(result.matches) == most_pairs(players, limit), seed


def team_wave(seed: int) -> WaveSnapshot:
    rng = random.Random(seed)
    sizes = [rng.choice((1, 1, 1, 2)) for _ in range(rng.randint(3, 9))]
    ids = [f"p{i}.{j}" for i, size in enumerate(sizes) for j in range(size)]
    tickets = []
    for i, size in enumerate(sizes):
        members = [f"p{i}.{j}" for j in range(size)]
        players = tuple(
            Player(
                pid,
                (("mmr", 100 * round(rng.gauss(1500, 200) / 100)),),
                # A party never blocks its own members: such a join is refused.
                blocked=tuple(b for b in blocks(rng, ids, pid) if b not in members),
            )
            for pid in members
        )
        joined = CLOSED_AT_MS - rng.randint(0, 30) * 1000
        tickets.append(WaitingTicket(Ticket(f"t{i}", "q", "eu", players, joined), 0))
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tuple(tickets))


def possible(wave: WaveSnapshot, among: Sequence[int], profile: QueueProfile) -> bool:
    """Whether some of the tickets ``among`` fill two teams of TEAM under the rules."""
    rules = profile.ruleset
    met = met_recently(wave, rules)
    for count in range(2, 2 * TEAM + 1):
        for chosen in combinations(among, count):
            tickets = [wave.tickets[i].ticket for i in chosen]
            if sum(len(t.players) for t in tickets) != 2 * TEAM:
                continue
            waited = waited_s(CLOSED_AT_MS, [t.joined_at_ms for t in tickets])
            seated = [p for t in tickets for p in t.players]
            for sides in product((0, 1), repeat=len(tickets)):
                teams = [
                    [
                        p.rating("mmr") or 0
                        for side, t in zip(sides, tickets, strict=True)
                        if side == s
                        for p in t.players
                    ]
                    for s in (0, 1)
                ]
                if all(len(team) == TEAM for team in teams) and (
                    lineup_problem(rules, teams, waited, (), seated, met) is None
                ):
                    return True
    return False


@pytest.mark.parametrize("variant", STRATEGIES, ids=lambda v: v[0])
def test_team_strategies_leave_no_match_possible_and_no_blocked_pair_together(
    variant: tuple[str, dict[str, object]],
) -> None:
    strategy, options = variant
    rules = {"rating": "mmr", "max_spread": 600, "block_lists": True}
    profile = QueueProfile("q", strategy, ("m",), team_size=TEAM, options=options, rules=rules)
    for seed in range(WAVES):
        snapshot = rated_snapshot(team_wave(seed), profile.ruleset)
        result = run_wave(snapshot, profile)
        no_blocked_pair_together(snapshot, result, profile)
        index = {w.ticket.ticket_id: i for i, w in enumerate(snapshot.tickets)}
        left = [index[t] for t in result.unmatched if t in index]
        assert not possible(snapshot, left, profile), f"{strategy} seed {seed}: a match left"


def test_the_checker_names_who_blocked_whom() -> None:
    profile = QueueProfile("q", "optimal", ("m",), rules={"rating": "mmr", "block_lists": True})
    snapshot = duel_wave(3)
    players = [w.ticket.players[0] for w in snapshot.tickets]
    a, b = next((a, b) for a, b in combinations(players, 2) if b.player_id in a.blocked)
    problem = lineup_problem(
        profile.ruleset, [[1500], [1500]], 0.0, (), [a, b], met_recently(snapshot, profile.ruleset)
    )
    assert problem == f"player {a.player_id} blocked {b.player_id} (block_lists)"
