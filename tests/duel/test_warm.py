"""The warm-started blossom (matcher.duel.blossom) and the mid-size path of ``optimal``."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matcher.duel.optimal as optimal_module
from matcher.duel.blossom import WarmStart, max_weight_matching, warm_max_weight_matching
from matcher.duel.checks import duel_result_problems
from matcher.duel.graph import DuelArrays
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPair, DuelPlayer
from matcher.duel.optimal import optimal_pairs
from matcher.duel.prepair import Prepaired, equal_rating_pairs
from matcher.duel.warm import warm_pairs
from matcher.strategies import get_strategy
from tests.duel.reference import reference_optimum, score_of
from tests.duel.test_properties import duel_players
from tests.duel.waves import MAPS, arrays_of, profile_of, snapshot_of, synthetic_players

RULES = ("lead", "longer", "shorter")


def random_graph(rng: random.Random, n: int) -> list[tuple[int, int, int]]:
    edges: dict[tuple[int, int], int] = {}
    for _ in range(rng.randint(1, 3 * n)):
        i, j = rng.sample(range(n), 2)
        edges[(min(i, j), max(i, j))] = rng.choice([rng.randint(1, 9), rng.randint(1, 10**6)])
    return [(i, j, w) for (i, j), w in edges.items()]


def total(edges: list[tuple[int, int, int]], mate: tuple[int, ...]) -> int:
    return sum(w for i, j, w in edges if mate[i] == j)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**9), st.integers(2, 30))
def test_a_warm_start_from_any_feasible_duals_reaches_the_optimum(seed: int, n: int) -> None:
    """Unequal duals on single vertices, odd and even ones: the general primal-dual method
    (roots made even, zero-dual vertices left single) still ends at the optimum's weight."""
    rng = random.Random(seed)
    edges = random_graph(rng, n)
    top = max(w for _, _, w in edges)
    dual = [rng.choice([0, rng.randint(0, 2 * top + 1)]) for _ in range(n)]
    for i, j, w in edges:  # raise just enough to cover every edge: some duals stay 0
        dual[j] = max(dual[j], 2 * w - dual[i])
    start = WarmStart([-1] * n, dual)
    warm = warm_max_weight_matching(n, edges, start, 10 * n + 10)
    assert warm is not None
    cold = max_weight_matching(n, edges)
    assert total(edges, warm.mate) == total(edges, cold.mate)
    assert all(warm.mate[warm.mate[v]] == v for v in range(n) if warm.mate[v] >= 0)


def test_a_matched_vertex_whose_dual_reaches_zero_is_released() -> None:
    """Edge 1-2 is matched and tight with dual 0 on vertex 2; the root 0 needs vertex 1:
    the path 0-1 flips (0-1 matched) and 2 stays single with dual 0."""
    edges = [(0, 1, 10), (1, 2, 4)]
    start = WarmStart([-1, 2, 1], [12, 8, 0])
    solution = warm_max_weight_matching(3, edges, start, 10)
    assert solution is not None
    assert solution.mate == (1, 0, -1)


@settings(max_examples=80, deadline=None)
@given(duel_players(max_size=40), st.sampled_from(RULES), st.integers(1, 6))
def test_warm_pairs_equal_the_exact_optimum(players: list[DuelPlayer], rule: str, k: int) -> None:
    """Proved rounds: the same number of pairs and the same summed score as networkx."""
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    population = 4 * len(players)
    arrays = arrays_of(players, population, config)
    outcome = warm_pairs(arrays, k, max_rounds=50)
    assert outcome is not None and outcome.proven
    best, best_score = reference_optimum(players, population, MAPS, config)
    pairs = [DuelPair(players[a], players[b]) for a, b in outcome.pairs]
    assert (len(pairs), score_of(pairs, config)) == (best, best_score)


@pytest.mark.parametrize("seed", [3, 4])
def test_mid_size_waves_take_the_warm_path_and_pass_the_checker(seed: int) -> None:
    players = synthetic_players(450, seed=seed)
    snapshot = snapshot_of(players, seed=seed, active_population=1800)
    profile = profile_of("optimal", window_rule="longer")
    result = get_strategy("optimal")(snapshot, profile)
    assert duel_result_problems(snapshot, profile, result) == []
    warm = optimal_pairs(players, 1800, MAPS, OPTIMAL_DEFAULTS)
    banded = optimal_pairs(
        players, 1800, MAPS, dataclasses.replace(OPTIMAL_DEFAULTS, optimal_warm_limit=0)
    )
    assert warm.band_steps == 1  # one candidate graph solved, no bands
    assert len(warm.pairs) >= len(banded.pairs)
    if len(warm.pairs) == len(banded.pairs):
        assert score_of(warm.pairs, OPTIMAL_DEFAULTS) <= score_of(banded.pairs, OPTIMAL_DEFAULTS)
    assert len(result.matches) == len(warm.pairs)
    assert np.all(np.diff([p.bw.bw_mmr for p in warm.pairs]) >= 0)


def test_a_wave_within_the_warm_limit_skips_the_pre_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """The thorough settings (ADR 0068): a wave above ``optimal_prepair_limit`` but within a
    raised ``optimal_warm_limit`` is solved whole by the warm blossom, never pre-paired,
    and lands within the issue's targets of the proved optimum; within a raised
    ``optimal_proof_limit`` it is that optimum, proved."""
    players = synthetic_players(700, seed=11)
    pre_passes: list[int] = []

    def counting_pre_pass(arrays: DuelArrays, density: int) -> Prepaired:
        pre_passes.append(arrays.size)
        # The real one: only the name inside matcher.duel.optimal is patched.
        return equal_rating_pairs(arrays, density)

    monkeypatch.setattr(optimal_module, "equal_rating_pairs", counting_pre_pass)
    quick = dataclasses.replace(OPTIMAL_DEFAULTS, optimal_prepair_limit=500, optimal_warm_limit=0)
    thorough = dataclasses.replace(quick, optimal_warm_limit=700)
    pre_paired = optimal_pairs(players, 2800, MAPS, quick)
    assert pre_passes == [700]
    whole = optimal_pairs(players, 2800, MAPS, thorough)
    assert pre_passes == [700]  # no second pre-pass
    arrays = arrays_of(players, 2800, OPTIMAL_DEFAULTS)
    proved = warm_pairs(arrays, k=6, max_rounds=8, prove=True)
    assert proved is not None and proved.proven
    best = [DuelPair(players[a], players[b]) for a, b in proved.pairs]
    squared = sum(p.diff**2 for p in whole.pairs)
    assert len(whole.pairs) >= 0.995 * len(best)
    assert squared <= 1.02 * sum(p.diff**2 for p in best)
    assert (len(whole.pairs), -score_of(whole.pairs, OPTIMAL_DEFAULTS)) >= (
        len(pre_paired.pairs),
        -score_of(pre_paired.pairs, OPTIMAL_DEFAULTS),
    )
    proving = dataclasses.replace(quick, optimal_proof_limit=700)
    proven = optimal_pairs(players, 2800, MAPS, proving)
    assert pre_passes == [700]
    assert proven.exact
    assert (len(proven.pairs), score_of(proven.pairs, OPTIMAL_DEFAULTS)) == (
        len(best),
        score_of(best, OPTIMAL_DEFAULTS),
    )
