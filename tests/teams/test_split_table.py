"""The combination method's table of splits (matcher/teams/split.py ``split_table``) is
``team_splits`` in the same order for every shape it is kept for, so reading it again
cannot change which split the rebalance criterion picks first on ties."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matcher.teams.split import least_first, split_table, team_splits


@pytest.mark.parametrize(
    ("sizes", "team_count", "size_min", "size_max", "existing"),
    [
        ((1,) * 10, 2, 5, 5, ()),
        ((2, 1, 1, 3, 1, 2), 2, 5, 5, ()),
        ((1, 1, 1, 1), 2, 2, 3, (1, 0)),
        ((1, 2, 1, 1, 1), 3, 1, 2, ()),
        ((3, 3, 3), 2, 5, 5, ()),
    ],
)
def test_the_table_is_every_split_in_the_search_order(
    sizes: tuple[int, ...],
    team_count: int,
    size_min: int,
    size_max: int,
    existing: tuple[int, ...],
) -> None:
    expected = tuple(team_splits(sizes, team_count, size_min, size_max, existing))
    assert split_table(sizes, team_count, size_min, size_max, existing) == expected
    # Read again (from the cache): the same splits, not a spent iterator.
    assert split_table(sizes, team_count, size_min, size_max, existing) == expected


def test_tables_of_different_backfills_are_kept_apart() -> None:
    tables = {
        existing: split_table((1, 1, 1), 2, 2, 2, existing)
        for existing in itertools.product((0, 1), repeat=2)
    }
    assert tables[(1, 0)] != tables[(0, 1)]
    assert tables[(0, 0)] == ()  # three players cannot fill two teams of two


@given(
    st.lists(
        st.one_of(
            st.integers(-3, 3),
            st.tuples(st.integers(0, 2), st.floats(0, 2, allow_nan=False)),
        ),
        max_size=30,
    ).filter(lambda keys: len({type(key) for key in keys}) <= 1)
)
def test_least_first_is_the_stable_sort_of_the_positions(keys: list[object]) -> None:
    """The splitters ask splits in ``least_first`` order: it must be the stable sort's,
    ties (many in integer gaps and equal ratings) to the first position."""
    assert list(least_first(keys)) == sorted(range(len(keys)), key=keys.__getitem__)
