"""The small tier: rustworkx's blossom gives the networkx optimum on mid-size waves too."""

from __future__ import annotations

import pytest

from matcher.duel.model import OPTIMAL_DEFAULTS
from matcher.duel.optimal import optimal_pairs
from tests.duel.reference import reference_optimum, score_of
from tests.duel.waves import MAPS, synthetic_players, worker_benchmark_mix


@pytest.mark.parametrize(("n", "seed"), [(150, 1), (300, 2)])
def test_mid_size_waves_take_the_networkx_optimum(n: int, seed: int) -> None:
    for players in (synthetic_players(n, seed), worker_benchmark_mix(n, seed)):
        outcome = optimal_pairs(players, 4 * n, MAPS, OPTIMAL_DEFAULTS)
        best = reference_optimum(players, 4 * n, MAPS, OPTIMAL_DEFAULTS)
        assert outcome.exact
        assert (len(outcome.pairs), score_of(outcome.pairs, OPTIMAL_DEFAULTS)) == best
