"""Games of two teams of k and their best splits: the unit the game queue works in.

A *unit* is a party as the game queue sees it (sort key, member ratings, join time);
a *game* is two teams of units with each seat's role and the game's imbalance f and
priority g = f + beta * (earliest join, in seconds relative to the wave's close).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from matcher.teams.imbalance import Imbalance, spread, strength
from matcher.teams.model import Lineup
from matcher.teams.split import least_first, team_splits

Pair = tuple[tuple[int, ...], tuple[int, ...]]
#: Whether a split (the two teams as positions into the units) may be chosen.
Allowed = Callable[[tuple[int, ...], tuple[int, ...]], bool]


@dataclass(frozen=True, slots=True)
class Unit:
    """One party in the game queue; ``index`` is its position among the wave's parties."""

    index: int
    ratings: tuple[int, ...]
    joined_s: float

    @property
    def size(self) -> int:
        return len(self.ratings)

    @property
    def key(self) -> tuple[float, float, int]:
        """Sort key: mean rating, then join time, then log order."""
        return (sum(self.ratings) / len(self.ratings), self.joined_s, self.index)


@dataclass(frozen=True, slots=True)
class Game:
    """Two teams of party indices, the seats' roles, f and the priority g."""

    teams: tuple[tuple[int, ...], ...]
    roles: tuple[tuple[str, ...], ...]
    imbalance: float
    priority: float

    def lineup(self) -> Lineup:
        return Lineup(self.teams, self.roles)

    def units(self) -> tuple[int, ...]:
        return tuple(index for team in self.teams for index in team)


def best_split(
    units: Sequence[Unit], k: int, params: Imbalance, allowed: Allowed | None = None
) -> tuple[float, Pair] | None:
    """Least ``alpha * |s_p(X) - s_p(Y)|`` over splits of ``units`` into two teams of k.

    Returns (that gap term, the two teams as positions into ``units``), ties to the
    first split found; None when no split keeps every party whole (or, with
    ``allowed``, none it allows: the queue's rules read per team).

    >>> best_split([Unit(0, (10,), 0), Unit(1, (20,), 0), Unit(2, (30,), 0), Unit(3, (40,), 0)],
    ...            2, Imbalance(alpha=1.0))
    (0.0, ((0, 3), (1, 2)))

    Notes: O(C(2k, k)) splits for solos, fewer with parties.
    """
    if all(unit.size == 1 for unit in units) and params.p == 1:
        return _best_solo_sum_split(units, k, params.alpha, allowed)
    best: tuple[float, Pair] | None = None
    for first, second in team_splits([unit.size for unit in units], 2, k, k):
        gap = abs(
            strength([r for i in first for r in units[i].ratings], params.p)
            - strength([r for i in second for r in units[i].ratings], params.p)
        )
        if best is None or params.alpha * gap < best[0]:
            if allowed is not None and not allowed(first, second):
                continue
            best = (params.alpha * gap, (first, second))
            if gap == 0:
                break
    return best


def _best_solo_sum_split(
    units: Sequence[Unit], k: int, alpha: float, allowed: Allowed | None = None
) -> tuple[float, Pair] | None:
    # The hot path of every mode: solos and team sums. Unit 0 is always in team 1.
    ratings = [unit.ratings[0] for unit in units]
    total = sum(ratings)
    best_gap = math.inf
    best_rest: tuple[int, ...] = ()
    # Each split's sum from the ratings' own combinations, in the same order as the
    # positions' (summed in C, not by a generator per split).
    sums = map(sum, itertools.combinations(ratings[1:], k - 1))
    if allowed is not None:
        return _least_allowed_solo_split(ratings, k, alpha, allowed, total, sums)
    for rest, rest_sum in zip(
        itertools.combinations(range(1, len(units)), k - 1), sums, strict=True
    ):
        gap = abs(total - 2 * (ratings[0] + rest_sum))
        if gap < best_gap:
            best_gap, best_rest = gap, rest
            if gap == 0:
                break
    if best_gap == math.inf:
        return None
    return alpha * best_gap, _teams(len(units), (0, *best_rest))


def _least_allowed_solo_split(
    ratings: Sequence[float],
    k: int,
    alpha: float,
    allowed: Allowed,
    total: float,
    sums: Iterable[float],
) -> tuple[float, Pair] | None:
    # The allowed split of least gap, ties to the first in the combinations' order.
    first = ratings[0]
    gaps = [abs(total - 2 * (first + rest_sum)) for rest_sum in sums]
    splits = _solo_splits(len(ratings), k)
    for position in least_first(gaps):
        if allowed(*splits[position]):
            return alpha * gaps[position], splits[position]
    return None


@lru_cache(maxsize=64)
def _solo_splits(count: int, k: int) -> tuple[Pair, ...]:
    """Every split of ``count`` solos into two teams of ``k`` with position 0 in the first,
    in the order of ``itertools.combinations`` (the order of the splits' sums)."""
    return tuple(
        _teams(count, (0, *rest)) for rest in itertools.combinations(range(1, count), k - 1)
    )


def _teams(count: int, first: tuple[int, ...]) -> Pair:
    return first, tuple(i for i in range(count) if i not in first)


def game_of(
    units: Sequence[Unit], k: int, params: Imbalance, beta: float, allowed: Allowed | None = None
) -> Game | None:
    """The best game made of exactly ``units`` (2k players), roles left empty; with
    ``allowed``, the best of the splits it allows (:func:`best_split`).

    >>> game_of([Unit(0, (10,), 0), Unit(1, (12,), 0)], 1, Imbalance(alpha=1.0, q=2.0), 0.0)
    Game(teams=((0,), (1,)), roles=(('',), ('',)), imbalance=3.0, priority=3.0)
    """
    if sum(unit.size for unit in units) != 2 * k:
        return None
    split = best_split(units, k, params, allowed)
    if split is None:
        return None
    gap_term, (first, second) = split
    everyone = [r for unit in units for r in unit.ratings]
    f = gap_term + spread(everyone, params.q)
    teams = (tuple(units[i].index for i in first), tuple(units[i].index for i in second))
    roles = (("",) * k, ("",) * k)
    return Game(teams, roles, f, f + beta * min(unit.joined_s for unit in units))
