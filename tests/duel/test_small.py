"""The small tier: rustworkx's blossom gives the networkx optimum on mid-size waves too."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from matcher.duel.graph import duel_arrays
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelConfig, DuelPlayer, Window
from matcher.duel.optimal import optimal_pairs
from matcher.duel.small import exact_pairs_on
from tests.duel.reference import reference_optimum, score_of
from tests.duel.waves import MAPS, arrays_of, synthetic_players, worker_benchmark_mix


@pytest.mark.parametrize(("n", "seed"), [(150, 1), (300, 2)])
def test_mid_size_waves_take_the_networkx_optimum(n: int, seed: int) -> None:
    for players in (synthetic_players(n, seed), worker_benchmark_mix(n, seed)):
        outcome = optimal_pairs(players, 4 * n, MAPS, OPTIMAL_DEFAULTS)
        best = reference_optimum(players, 4 * n, MAPS, OPTIMAL_DEFAULTS)
        assert outcome.exact
        arrays = arrays_of(players, 4 * n, OPTIMAL_DEFAULTS, MAPS)
        assert (len(outcome.pairs), score_of(outcome.pairs, OPTIMAL_DEFAULTS, arrays)) == best


@pytest.mark.parametrize("seed", range(6))
def test_long_waits_take_the_networkx_optimum_of_the_sit_out_score(seed: int) -> None:
    """Waves where many players wait past ``optimal_sit_out_after``: the blossom's result is
    the exact optimum of the score with the sit-out priority (docs/adr/0191)."""
    players = [
        dataclasses.replace(p, wait_cycles=p.wait_cycles + (i * 7 + seed) % 13)
        for i, p in enumerate(synthetic_players(60, seed))
    ]
    outcome = optimal_pairs(players, 240, MAPS, OPTIMAL_DEFAULTS)
    arrays = arrays_of(players, 240, OPTIMAL_DEFAULTS, MAPS)
    assert arrays.priority > 0
    best = reference_optimum(players, 240, MAPS, OPTIMAL_DEFAULTS)
    assert (len(outcome.pairs), score_of(outcome.pairs, OPTIMAL_DEFAULTS, arrays)) == best


def test_the_blossom_on_given_pairs_keeps_the_kept_players_paired() -> None:
    """``exact_pairs_on``'s ``kept``: a re-chosen block keeps its guests (partners from
    outside it) paired before it weighs the score, as their other partners lie outside."""
    players = [DuelPlayer(name, r, r) for name, r in (("a", 1500), ("b", 1510), ("c", 1511))]
    arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    u, v = np.array([0, 1]), np.array([1, 2])  # a - b (diff 10) and b - c (diff 1)
    assert exact_pairs_on(arrays, u, v) == [(1, 2)]
    kept = np.array([True, False, False])
    assert exact_pairs_on(arrays, u, v, kept) == [(0, 1)]
