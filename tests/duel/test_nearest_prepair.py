"""Mid-size (k-nearest branch and bound) and very large (equal-rating pre-pass) waves."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.bands import permutation_cycles, split_cycles
from matcher.duel.checks import duel_result_problems
from matcher.duel.graph import cost, duel_arrays, legal, subset
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPair, DuelPlayer, Window
from matcher.duel.nearest import nearest_pairs
from matcher.duel.prepair import equal_rating_pairs
from matcher.strategies import get_strategy
from tests.duel.reference import reference_optimum, score_of
from tests.duel.test_properties import duel_players, waves
from tests.duel.waves import MAPS, arrays_of, profile_of, snapshot_of, synthetic_players

RULES = ("lead", "longer", "shorter")


@settings(max_examples=60, deadline=None)
@given(waves)
def test_nearest_on_the_complete_graph_is_the_optimum(
    wave: tuple[list[DuelPlayer], int, int, str],
) -> None:
    """With k >= n the k-nearest graph holds every legal pair, so a finished branch and
    bound must equal networkx on the full graph (count and summed score)."""
    players, _, population, rule = wave
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = arrays_of(players, population, config)
    outcome = nearest_pairs(arrays, k=max(len(players), 1), max_solves=200)
    assert outcome.pairs is not None
    pairs = [DuelPair(players[a], players[b]) for a, b in outcome.pairs]
    assert (len(pairs), score_of(pairs, config)) == reference_optimum(
        players, population, MAPS, config
    )


@settings(max_examples=60, deadline=None)
@given(waves, st.integers(0, 8), st.sampled_from((0, 2, 8)))
def test_mid_size_and_prepair_paths_pass_the_checker(
    wave: tuple[list[DuelPlayer], int, int, str], density: int, solves: int
) -> None:
    """Forced onto the new paths (tiny limits), every result is a legal set of matches and
    never has more pairs than the optimum."""
    players, seed, population, rule = wave
    snapshot = snapshot_of(players, seed=seed, active_population=population)
    options = {
        "window_rule": rule,
        "optimal_exact_limit": 1,
        "optimal_proof_limit": 0,
        "optimal_branch_solves": solves,
        "optimal_prepair_limit": 0,
        "optimal_prepair_density": density,
    }
    profile = profile_of("optimal", **options)
    result = get_strategy("optimal")(snapshot, profile)
    assert duel_result_problems(snapshot, profile, result) == []
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    best, _ = reference_optimum(players, population, MAPS, config)
    assert len(result.matches) <= best


@settings(max_examples=60, deadline=None)
@given(duel_players(), st.sampled_from(RULES), st.integers(0, 6))
def test_equal_rating_pairs_are_equal_legal_dense_and_disjoint(
    players: list[DuelPlayer], rule: str, density: int
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = duel_arrays(players, MAPS, Window(75, 25), config)
    out = equal_rating_pairs(arrays, density)
    assert (arrays.bw[out.bw] == arrays.sc2[out.sc2]).all()
    assert legal(arrays, out.bw, out.sc2).all()
    everyone = np.concatenate([out.bw, out.sc2, out.rest])
    assert sorted(everyone.tolist()) == list(range(len(players)))
    points = np.concatenate([arrays.bw_sorted, arrays.sc2_sorted])
    for rating in arrays.bw[out.bw].tolist():
        assert int((np.abs(points - rating) <= 10).sum()) >= density


def test_equal_rating_pairs_leave_sparse_ratings_alone() -> None:
    players = [DuelPlayer("a", 1500, None), DuelPlayer("b", None, 1500)]
    arrays = duel_arrays(players, MAPS, Window(75, 25), OPTIMAL_DEFAULTS)
    assert equal_rating_pairs(arrays, 3).rest.tolist() == [0, 1]
    assert equal_rating_pairs(arrays, 2).rest.tolist() == []


@settings(max_examples=60, deadline=None)
@given(duel_players(), st.sampled_from(RULES), st.randoms(use_true_random=False))
def test_subset_keeps_legality_and_cost(
    players: list[DuelPlayer], rule: str, rng: random.Random
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = duel_arrays(players, MAPS, Window(60, 20), config)
    chosen = np.array(rng.sample(range(len(players)), len(players) // 2), dtype=np.int64)
    sub = subset(arrays, chosen)
    p = len(chosen)
    u, v = np.repeat(np.arange(p), p), np.tile(np.arange(p), p)
    assert legal(sub, u, v).tolist() == legal(arrays, chosen[u], chosen[v]).tolist()
    assert cost(sub, u, v).tolist() == cost(arrays, chosen[u], chosen[v]).tolist()


@settings(max_examples=100, deadline=None)
@given(st.permutations(list(range(12))))
def test_split_cycles_agrees_with_permutation_cycles(successor: list[int]) -> None:
    firsts, longer = split_cycles(np.array(successor, dtype=np.int64))
    cycles = [c for c in permutation_cycles(successor) if len(c) > 1]
    assert [[f, successor[f]] for f in firsts.tolist()] + longer == sorted(
        [c for c in cycles if len(c) == 2], key=lambda c: c[0]
    ) + [c for c in cycles if len(c) > 2]


def test_a_very_large_wave_passes_the_checker_and_is_deterministic() -> None:
    """6,000 players (> optimal_prepair_limit): the pre-pass runs under each window rule;
    every pair is legal by the checker's own rules and a second run is identical."""
    players = synthetic_players(6000, 11)
    snapshot = snapshot_of(players, seed=3, active_population=24_000)
    for rule in RULES:
        profile = profile_of("optimal", window_rule=rule)
        result = get_strategy("optimal")(snapshot, profile)
        assert duel_result_problems(snapshot, profile, result) == []
        assert len(result.matches) >= 2900
        assert dict(result.stats)["band_steps"] < 100  # ~176 bands without the pre-pass
        assert get_strategy("optimal")(snapshot, profile) == result
