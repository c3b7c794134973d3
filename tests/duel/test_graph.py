"""Helpers of the pair graph (:mod:`matcher.duel.graph`)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from matcher.duel.graph import unique_sorted


@given(st.lists(st.integers(-(2**40), 2**40), max_size=200))
def test_unique_sorted_is_numpys_unique(values: list[int]) -> None:
    keys = np.array(values, dtype=np.int64)
    found = unique_sorted(keys)
    assert found.dtype == np.int64
    assert found.tolist() == np.unique(keys).tolist()
