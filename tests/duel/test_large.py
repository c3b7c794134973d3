"""The large tier: one relaxation of the whole wave, odd cycles rounded (matcher.duel.large)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.checks import duel_result_problems
from matcher.duel.graph import DuelArrays, legal
from matcher.duel.large import relaxed_pairs
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPair, DuelPlayer
from matcher.duel.optimal import optimal_pairs
from matcher.strategies import get_strategy
from tests.duel.reference import count_and_cost, reference_optimum, score_of
from tests.duel.test_properties import duel_players
from tests.duel.waves import MAPS, arrays_of, profile_of, snapshot_of, synthetic_players

RULES = ("lead", "longer", "shorter")


@settings(max_examples=150, deadline=None)
@given(duel_players(max_size=40), st.sampled_from(RULES), st.integers(1, 6), st.integers(0, 20))
def test_relaxed_pairs_are_legal_and_lose_at_most_one_pair_per_odd_cycle(
    players: list[DuelPlayer], rule: str, k: int, cap: int
) -> None:
    """Any candidate graph, any cap: a valid matching of legal pairs. On every legal pair
    (k >= n) with the full weight, the relaxation's value bounds the optimum, so each odd
    cycle rounded costs at most one pair, and an integral relaxation is an optimum."""
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    population = 4 * len(players)
    arrays = arrays_of(players, population, config)
    outcome = relaxed_pairs(arrays, k, cap)
    bw = np.array([a for a, _ in outcome.pairs], dtype=np.int64)
    sc2 = np.array([b for _, b in outcome.pairs], dtype=np.int64)
    assert legal(arrays, bw, sc2).all()
    assert len(set(bw.tolist()) | set(sc2.tolist())) == 2 * len(outcome.pairs)
    assert outcome.pairs == relaxed_pairs(arrays, k, cap).pairs  # deterministic

    whole = relaxed_pairs(arrays, len(players) + 1, len(players))
    best, best_score = reference_optimum(players, population, MAPS, config)
    assert len(whole.pairs) >= best - whole.odd_cycles
    if whole.odd_cycles == 0:
        pairs = [DuelPair(players[a], players[b]) for a, b in whole.pairs]
        assert (len(pairs), score_of(pairs, config, arrays)) == (best, best_score)


def value(arrays: DuelArrays, pairs: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """The objective as one comparable key, more pairs, then less summed cost (asserting
    the pairs legal and nobody twice)."""
    count, summed = count_and_cost(arrays, pairs)
    return count, -summed


@settings(max_examples=150, deadline=None)
@given(duel_players(max_size=40), st.sampled_from(RULES), st.integers(1, 6))
def test_the_parity_step_is_legal_and_never_worse(
    players: list[DuelPlayer], rule: str, k: int
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = arrays_of(players, 4 * len(players), config)
    plain = relaxed_pairs(arrays, k, 2)
    outcome = relaxed_pairs(arrays, k, 2, parity=True)
    assert outcome == relaxed_pairs(arrays, k, 2, parity=True)  # deterministic
    assert value(arrays, outcome.pairs) >= value(arrays, plain.pairs)
    if plain.odd_cycles % 2 == 0:
        assert outcome == plain  # an even number of odd cycles: no second relaxation
    if outcome.sit_outs:
        assert value(arrays, outcome.pairs) > value(arrays, plain.pairs)


def test_the_parity_step_moves_the_sit_out_and_reaches_the_optimum() -> None:
    """A 40-player wave whose relaxation has an odd number of odd cycles: rounding them
    leaves cycle members out and keeps far pairs; with one more free sit-out (8 in all) the
    relaxation leaves out the players the exact optimum leaves out."""
    players = synthetic_players(40, seed=2)
    arrays = arrays_of(players, 160, OPTIMAL_DEFAULTS)
    plain = relaxed_pairs(arrays, 6, 2)
    outcome = relaxed_pairs(arrays, 6, 2, parity=True)
    optimum = reference_optimum(players, 160, MAPS, OPTIMAL_DEFAULTS)
    assert plain.odd_cycles % 2 == 1 and outcome.sit_outs == 8
    assert value(arrays, plain.pairs) == (16, -36673)
    assert value(arrays, outcome.pairs) == (optimum[0], -optimum[1]) == (16, -26472)


def test_large_waves_take_one_relaxation_and_pass_the_checker() -> None:
    players = synthetic_players(1200, seed=7)
    snapshot = snapshot_of(players, seed=7, active_population=4800)
    profile = profile_of("optimal", window_rule="longer")
    result = get_strategy("optimal")(snapshot, profile)
    assert duel_result_problems(snapshot, profile, result) == []
    outcome = optimal_pairs(players, 4800, MAPS, OPTIMAL_DEFAULTS)
    assert not outcome.exact and dict(result.stats)["proven_optimal"] == 0.0
    assert len(result.matches) == len(outcome.pairs)


@pytest.mark.parametrize("fresh", (60, 600, 1200))
def test_a_fresh_player_sits_out_not_an_overdue_far_rated_one(fresh: int) -> None:
    """An even number of fresh players close in rating and one far-rated player whose
    window, widened by its wait, reaches them: someone must sit out, and every tier (small,
    large, large with the pre-pass) leaves out a fresh one, not the one waiting past
    ``optimal_sit_out_after`` (docs/adr/0191); the count stays the maximum. Without the
    sit-out priority the tail is the one left out."""
    rng = np.random.default_rng(fresh)
    players = [
        DuelPlayer(f"f{i}", int(r), int(r), 0, ticket_id=f"f{i}")
        for i, r in enumerate(rng.integers(1400, 1601, fresh))
    ]
    players.append(DuelPlayer("tail", 2000, 2000, 30, ticket_id="tail"))
    for config, tail_matched in (
        (OPTIMAL_DEFAULTS, True),
        (dataclasses.replace(OPTIMAL_DEFAULTS, optimal_sit_out_after=None), False),
    ):
        outcome = optimal_pairs(players, 100 * len(players), MAPS, config)
        assert outcome.exact == (len(players) <= config.optimal_exact_limit)
        assert len(outcome.pairs) == fresh // 2
        matched = {p.player_id for pair in outcome.pairs for p in (pair.bw, pair.sc2)}
        assert ("tail" in matched) == tail_matched
