"""Exhaustive team splits: the brute-force reference every team heuristic is measured by.

Parties are given by size only; a split is one tuple of party indices per team. Teams
that start empty are interchangeable, so each unordered split is produced once (a
party may open an empty team only if every lower-numbered empty team is already
open); teams that already hold members (backfill) are told apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any, Protocol, TypeVar

Split = tuple[tuple[int, ...], ...]


class _Ordered(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=_Ordered)


def team_splits(
    sizes: Sequence[int],
    team_count: int,
    size_min: int,
    size_max: int,
    existing: Sequence[int] = (),
) -> Iterator[Split]:
    """Every split of all parties into ``team_count`` teams of ``size_min..size_max`` players.

    ``existing[t]`` players already sit in team ``t`` (backfill); they count towards
    its size. Splits come in a fixed order: party 0 first tries team 1, and so on.

    >>> list(team_splits([1, 1, 2], 2, 2, 2))
    [((0, 1), (2,))]
    >>> len(list(team_splits([1, 1, 1, 1], 2, 2, 2)))
    3

    Notes: O(team_count^n) splits in the worst case for n parties; meant for matches,
    not waves (a 5v5 of solos has 126 splits).
    """
    fill = [existing[t] if t < len(existing) else 0 for t in range(team_count)]
    fresh = [fill[t] == 0 for t in range(team_count)]
    teams: list[list[int]] = [[] for _ in range(team_count)]
    remaining = [0] * (len(sizes) + 1)
    for index in range(len(sizes) - 1, -1, -1):
        remaining[index] = remaining[index + 1] + sizes[index]
    if remaining[0] + sum(fill) > team_count * size_max:
        return

    def place(index: int) -> Iterator[Split]:
        deficit = 0
        for f in fill:  # a loop, not a generator: this runs at every node of the search
            if f < size_min:
                deficit += size_min - f
        if deficit > remaining[index]:
            return
        if index == len(sizes):
            yield tuple(tuple(team) for team in teams)
            return
        size = sizes[index]
        opened_empty = False
        for t in range(team_count):
            if fill[t] + size > size_max:
                continue
            if fresh[t] and not teams[t]:
                if opened_empty:
                    continue  # another empty fresh team is the same split, renamed
                opened_empty = True
            teams[t].append(index)
            fill[t] += size
            yield from place(index + 1)
            fill[t] -= size
            teams[t].pop()

    yield from place(0)


@lru_cache(maxsize=256)
def split_table(
    sizes: tuple[int, ...], team_count: int, size_min: int, size_max: int, existing: tuple[int, ...]
) -> tuple[Split, ...]:
    """:func:`team_splits` as a tuple, in the same order, kept per shape of the parties:
    a wave splits group after group of the same sizes (ten solos), and the search costs
    far more than reading its result again.

    >>> split_table((1, 1, 2), 2, 2, 2, ())
    (((0, 1), (2,)),)
    """
    return tuple(team_splits(sizes, team_count, size_min, size_max, existing))


def best_split(
    sizes: Sequence[int],
    team_count: int,
    size_min: int,
    size_max: int,
    cost: Callable[[Split], K | None],
    existing: Sequence[int] = (),
) -> tuple[Split, K] | None:
    """The split of least ``cost`` (first one on ties); ``cost`` returns None to reject one.

    >>> ratings = [10, 20, 30, 40]
    >>> def gap(split):
    ...     a, b = (sum(ratings[i] for i in team) for team in split)
    ...     return abs(a - b)
    >>> best_split([1, 1, 1, 1], 2, 2, 2, gap)
    (((0, 3), (1, 2)), 0)

    Notes: as :func:`team_splits`, times the cost of ``cost``.
    """
    best: tuple[Split, K] | None = None
    for split in team_splits(sizes, team_count, size_min, size_max, existing):
        value = cost(split)
        if value is not None and (best is None or value < best[1]):
            best = (split, value)
    return best


def least_first(keys: Sequence[K]) -> Iterator[int]:
    """The positions of ``keys`` in order of (key, position), as
    ``sorted(range(len(keys)), key=keys.__getitem__)``: the least is found first, and
    the rest are sorted only when a caller asks past it (most splitters keep their
    least split).

    >>> list(least_first([3, 1, 2, 1]))
    [1, 3, 2, 0]

    Notes: O(n) for the first position, O(n log n) for the rest.
    """
    positions = range(len(keys))
    least = min(positions, key=keys.__getitem__, default=None)
    if least is None:
        return
    yield least
    yield from (p for p in sorted(positions, key=keys.__getitem__) if p != least)
