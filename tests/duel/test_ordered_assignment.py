"""The sparse assignment numbered by rating (docs/adr/0070) is still optimal."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from matcher.duel.relaxed import sparse_assignment


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**31), st.floats(0.2, 1.0))
def test_a_renumbered_assignment_is_a_permutation_of_the_same_optimal_value(
    n: int, seed: int, density: float
) -> None:
    rng = np.random.default_rng(seed)
    present = rng.random((n, n)) < density
    np.fill_diagonal(present, True)  # a full permutation always exists
    rows, cols = np.nonzero(present)
    values = rng.integers(-50, 50, len(rows))
    order = rng.permutation(n)
    found = sparse_assignment(n, rows.astype(np.int64), cols.astype(np.int64), values, order)
    assert sorted(found.tolist()) == list(range(n))
    table = np.full((n, n), 10**6)
    table[rows, cols] = values
    assert present[np.arange(n), found].all()
    best_rows, best_cols = linear_sum_assignment(table)
    assert table[np.arange(n), found].sum() == table[best_rows, best_cols].sum()
