"""The blossom step of small waves (matcher.duel.relaxation_blossom): an optimum, always.

When branch and bound does not close the relaxation's gap within a few assignments, the
blossom finishes the first assignment on every legal pair (docs/adr/0065). Its pairs
must be an optimum (same count and score as networkx), legal, and the same on every call.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer
from matcher.duel.optimal import _solve_rest
from matcher.duel.relaxation_blossom import blossom_from_relaxation
from matcher.duel.symmetric import components, symmetric_pairs
from tests.duel.reference import count_and_cost, reference_optimum
from tests.duel.test_properties import duel_players
from tests.duel.waves import MAPS, arrays_of, synthetic_players

RULES = ("lead", "longer", "shorter")


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
def test_small_waves_are_optimal_legal_and_repeatable(
    players: list[DuelPlayer], population: int, rule: str
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = arrays_of(players, population, config)
    pairs, exact, _, _ = _solve_rest(arrays, config)
    assert exact
    best = reference_optimum(players, population, MAPS, config)
    assert count_and_cost(arrays, tuple(pairs)) == best  # legal, nobody twice, optimal
    outcome = symmetric_pairs(arrays)
    if outcome.blossom:
        assert outcome.pairs is not None and list(outcome.pairs) == pairs
    assert symmetric_pairs(arrays_of(players, population, config)) == outcome


def test_benchmark_waves_take_the_blossom_step_and_stay_optimal() -> None:
    """At 30-40 players about half of the waves whose relaxation is fractional end in
    the step (the rest finish by branch and bound); every result equals networkx's."""
    blossom = fractional = 0
    for seed in range(40):
        players = synthetic_players(30 + seed % 11, seed)
        population = 4 * len(players)
        arrays = arrays_of(players, population, OPTIMAL_DEFAULTS)
        outcome = symmetric_pairs(arrays)
        fractional += outcome.odd_cycles > 0
        blossom += outcome.blossom
        assert outcome.pairs is not None
        best = reference_optimum(players, population, MAPS, OPTIMAL_DEFAULTS)
        assert count_and_cost(arrays, outcome.pairs) == best
    assert fractional >= 15 and blossom >= 5


def test_a_tie_gets_one_optimum_and_the_same_one_every_time() -> None:
    """Three players who may all play each other at the same cost: three optima."""
    inf = np.inf
    table = np.array([[inf, 5.0, 5.0], [5.0, inf, 5.0], [5.0, 5.0, inf]])
    matrix = table.copy()
    np.fill_diagonal(matrix, 100.0)
    found = blossom_from_relaxation(table, matrix, np.array([1, 2, 0]), 100)
    assert found is not None and len(found) == 1
    assert found == blossom_from_relaxation(table, matrix, np.array([1, 2, 0]), 100)
    table[1, 2] = table[2, 1] = matrix[1, 2] = matrix[2, 1] = 4.0
    assert blossom_from_relaxation(table, matrix, np.array([1, 2, 0]), 100) == [(1, 2)]


def test_a_start_that_is_not_an_optimal_assignment_is_refused() -> None:
    """Pairing 0-1 (cost 9) and leaving 2, 3 out is no optimal assignment when 0-2 and
    1-3 cost 1: its duals do not exist, and the step says so instead of guessing."""
    inf = np.inf
    table = np.full((4, 4), inf)
    for a, b, c in ((0, 1, 9.0), (0, 2, 1.0), (1, 3, 1.0)):
        table[a, b] = table[b, a] = c
    matrix = table.copy()
    np.fill_diagonal(matrix, 100.0)
    assert blossom_from_relaxation(table, matrix, np.array([1, 0, 2, 3]), 100) is None
    assert blossom_from_relaxation(table, matrix, np.array([2, 3, 0, 1]), 100) == [
        (0, 2),
        (1, 3),
    ]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.lists(st.booleans(), min_size=n * n, max_size=n**2)))
def test_components_are_labelled_as_scipy_labels_them(cells: list[bool]) -> None:
    """The dummies' order follows the components' order, so it must stay scipy's."""
    n = round(len(cells) ** 0.5)
    legal_cells = np.array(cells, dtype=bool).reshape(n, n)
    legal_cells |= legal_cells.T
    np.fill_diagonal(legal_cells, False)
    _, label = connected_components(csr_matrix(legal_cells), directed=False)
    expected = [np.flatnonzero(label == c).tolist() for c in range(label.max() + 1)]
    assert components(legal_cells) == expected
