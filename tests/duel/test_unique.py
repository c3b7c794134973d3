"""The blossom step of small waves (matcher.duel.unique): same pairs as before it existed.

``optimal`` on a small wave used to be: branch and bound (``symmetric_pairs`` without the
blossom step), else the certified blossom of ``exact_matching``. The step may only
answer when the optimum is unique, so the pairs must equal those of that path on every
wave, ties included, and be optimal (networkx).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from matcher.duel.exact import exact_matching
from matcher.duel.graph import DuelArrays
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer
from matcher.duel.optimal import _solve_rest
from matcher.duel.symmetric import components, symmetric_pairs
from matcher.duel.unique import unique_optimum
from tests.duel.reference import reference_optimum
from tests.duel.test_properties import duel_players
from tests.duel.waves import MAPS, arrays_of, synthetic_players

RULES = ("lead", "longer", "shorter")


def _before(arrays: DuelArrays) -> tuple[tuple[int, int], ...]:
    """The small-wave path without the blossom step."""
    searched = symmetric_pairs(arrays, certify=False)
    return searched.pairs if searched.pairs is not None else exact_matching(arrays).pairs


def _count_and_cost(arrays: DuelArrays, pairs: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    diff = [int(arrays.bw[a] - arrays.sc2[b]) for a, b in pairs]
    waits = [int(arrays.wait[a] + arrays.wait[b]) for a, b in pairs]
    return len(pairs), sum(d * d for d in diff) - arrays.bonus * sum(waits)


@st.composite
def tied_players(draw: st.DrawFn) -> list[DuelPlayer]:
    """Ratings on a coarse grid and few waits: many waves with several optima."""
    n = draw(st.integers(3, 24))
    players = []
    for i in range(n):
        kind = draw(st.sampled_from(("bw", "sc2", "both")))
        bw = 1000 + 40 * draw(st.integers(0, 12)) if kind != "sc2" else None
        sc2 = 1000 + 40 * draw(st.integers(0, 12)) if kind != "bw" else None
        wait = draw(st.integers(0, 2))
        players.append(DuelPlayer(f"p{i}", bw, sc2, wait, "eu", (), f"t{i}"))
    return players


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(duel_players(max_size=26), tied_players()),
    st.integers(0, 200),
    st.sampled_from(RULES),
)
def test_small_waves_pair_exactly_as_without_the_blossom_step(
    players: list[DuelPlayer], population: int, rule: str
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = arrays_of(players, population, config)
    pairs, exact, _, _ = _solve_rest(arrays, config)
    assert exact
    assert tuple(sorted(pairs)) == tuple(sorted(_before(arrays)))
    outcome = symmetric_pairs(arrays)
    if outcome.unique:
        assert outcome.pairs is not None
        assert _count_and_cost(arrays, outcome.pairs) == reference_optimum(
            players, population, MAPS, config
        )


def test_benchmark_waves_take_the_blossom_step_and_keep_their_pairs() -> None:
    """At 30-40 players a third of the waves whose relaxation is fractional end in the
    step (most of the rest finish by branch and bound); the pairs never change."""
    unique = fractional = 0
    for seed in range(40):
        players = synthetic_players(30 + seed % 11, seed)
        arrays = arrays_of(players, 4 * len(players), OPTIMAL_DEFAULTS)
        outcome = symmetric_pairs(arrays)
        fractional += outcome.odd_cycles > 0
        unique += outcome.unique
        assert _solve_rest(arrays, OPTIMAL_DEFAULTS)[0] == list(_before(arrays))
    assert fractional >= 15 and unique >= 5


def test_a_tie_is_left_to_the_caller() -> None:
    """Three players who may all play each other at the same cost: three optima."""
    inf = np.inf
    table = np.array([[inf, 5.0, 5.0], [5.0, inf, 5.0], [5.0, 5.0, inf]])
    matrix = table.copy()
    np.fill_diagonal(matrix, 100.0)
    assert unique_optimum(table, matrix, np.array([1, 2, 0]), 100) is None
    table[0, 1] = table[1, 0] = 4.0
    matrix[0, 1] = matrix[1, 0] = 4.0
    assert unique_optimum(table, matrix, np.array([1, 2, 0]), 100) == [(0, 1)]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.lists(st.booleans(), min_size=n * n, max_size=n**2)))
def test_components_are_labelled_as_scipy_labels_them(cells: list[bool]) -> None:
    """The dummies' order follows the components' order, so it must stay scipy's."""
    n = round(len(cells) ** 0.5)
    legal = np.array(cells, dtype=bool).reshape(n, n)
    legal |= legal.T
    np.fill_diagonal(legal, False)
    _, label = connected_components(csr_matrix(legal), directed=False)
    expected = [np.flatnonzero(label == c).tolist() for c in range(label.max() + 1)]
    assert components(legal) == expected
