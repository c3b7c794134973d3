"""Hypothesis strategies for the values of output records' fields, as the writers tested
in test_records must encode them: short and long texts, optional texts, timestamps
inside the schemas' range, non-negative int counts."""

from __future__ import annotations

from hypothesis import strategies as st

texts = st.text(min_size=1, max_size=12) | st.text(min_size=60, max_size=200)
maybe = st.none() | texts
timestamps = st.integers(946_684_800_000, 7_258_118_400_000 - 1)
counts = st.integers(0, 2**31 - 1)
