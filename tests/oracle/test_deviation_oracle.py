"""The deviation rule (issue 35, docs/rules.md) against brute force on small waves: every
strategy that honours it seats each player on their confidence bound (rating minus
weight x deviation), the live checker agrees, and a match is made whenever one is
possible on those bounds (``optimal``: the most pairs; team strategies: none left)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from matcher.core import Player, QueueProfile, WaveSnapshot
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import run_wave
from tests.oracle.test_block_oracle import WAVES, duel_wave, most_pairs, possible, team_wave
from tests.oracle.test_team_oracle import STRATEGIES, TEAM

WEIGHT, MISSING = 2, 150


def uncertain(snapshot: WaveSnapshot, seed: int) -> WaveSnapshot:
    """``snapshot`` with no block lists and a deviation for most players (none for some)."""
    rng = random.Random(seed)
    tickets = tuple(
        replace(
            w,
            ticket=replace(
                w.ticket,
                players=tuple(
                    replace(p, blocked=(), deviation=rng.choice((None, 0, 30, 60, 120)))
                    for p in w.ticket.players
                ),
            ),
        )
        for w in snapshot.tickets
    )
    return replace(snapshot, tickets=tickets)


def bound(player: Player) -> int:
    spread = MISSING if player.deviation is None else player.deviation
    return max(0, (player.rating("mmr") or 0) - WEIGHT * spread)


RULES = {"rating": "mmr", "deviation": {"weight": WEIGHT, "missing": MISSING}}


def seated_on_bounds(snapshot: WaveSnapshot, result, profile: QueueProfile) -> None:  # type: ignore[no-untyped-def]
    players = {p.player_id: p for w in snapshot.tickets for p in w.ticket.players}
    for match in result.matches:
        for team in match.teams:
            for seat in team.seats:
                assert seat.rating == bound(players[seat.player_id]), seat
    assert wave_rule_problems(snapshot, profile, result) == []


@pytest.mark.parametrize("limit", (100, 400))
def test_optimal_pairs_on_the_bounds_the_most_pairs(limit: int) -> None:
    profile = QueueProfile("q", "optimal", ("m",), rules={**RULES, "max_distance": limit})
    for seed in range(WAVES):
        snapshot = uncertain(duel_wave(seed), seed)
        result = run_wave(rated_snapshot(snapshot, profile.ruleset), profile)
        seated_on_bounds(snapshot, result, profile)
        bounded = [
            Player(p.player_id, (("mmr", bound(p)),))
            for w in snapshot.tickets
            for p in w.ticket.players
        ]
        assert len(result.matches) == most_pairs(bounded, limit), seed


@pytest.mark.parametrize("variant", STRATEGIES, ids=lambda v: v[0])
def test_team_strategies_seat_the_bounds_and_leave_no_match_possible(
    variant: tuple[str, dict[str, object]],
) -> None:
    strategy, options = variant
    rules = {**RULES, "max_spread": 500}
    profile = QueueProfile("q", strategy, ("m",), team_size=TEAM, options=options, rules=rules)
    for seed in range(WAVES):
        snapshot = uncertain(team_wave(seed), seed)
        rated = rated_snapshot(snapshot, profile.ruleset)
        result = run_wave(rated, profile)
        seated_on_bounds(snapshot, result, profile)
        index = {w.ticket.ticket_id: i for i, w in enumerate(rated.tickets)}
        left = [index[t] for t in result.unmatched if t in index]
        assert not possible(rated, left, profile), f"{strategy} seed {seed}: a match left"
