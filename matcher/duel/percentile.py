"""The percentile window of ``optimal`` (docs/adr/0177): how many of the wave's ratings may
lie between a pair's two ratings, instead of how many rating points.

The wave's rating pool holds every rating its duel players offer, one per player and race;
a player rated the same for both races (every player of a mirror ladder) counts once. Two
ratings ``x`` and ``y`` are :meth:`RankWindow.between` apart: the pool's ratings strictly
between them. Ties never count, so equal ratings are 0 apart, and the order of the tickets
or of tied players never matters: the count is a function of the ratings' values alone.

A pair may meet when ``between <= reach``, where
``reach = floor(window_percentile / 100 * len(pool) * max_diff(wait) / base)``: the
pressure tier's points window ``base + growth * wait`` widens by ``growth / base`` of its
base per wave waited, and the reach by the same factor. The wait is the pair's by
``window_rule``, as for the points window (each player's reach grows with its wait, so
the pair's reach is the larger, the smaller or the lead player's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from matcher.duel.model import DuelPlayer, Window

Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]

#: Float slack of the reach's floor: ``5 / 100 * 20`` must give 1, not 0.999...
_SLACK = 1e-9


def rating_pool(players: Sequence[DuelPlayer]) -> Ints:
    """The wave's sorted rating pool: each player's BW and SC2 ratings, a rating equal for
    both races once.

    >>> rating_pool([DuelPlayer("a", 1500, 1500), DuelPlayer("b", 1400, None),
    ...              DuelPlayer("c", 1600, 1450)]).tolist()
    [1400, 1450, 1500, 1600]
    """
    values: list[int] = []
    for player in players:
        if player.bw_mmr is not None:
            values.append(player.bw_mmr)
        if player.sc2_mmr is not None and player.sc2_mmr != player.bw_mmr:
            values.append(player.sc2_mmr)
    return np.sort(np.array(values, dtype=np.int64))


def reach(percent: float, pool_size: int, window: Window, waits: Ints) -> Ints:
    """How many pool ratings may lie between a pair's at each wait (``window.base`` > 0).

    >>> reach(5.0, 40, Window(100, 50), np.array([0, 1, 2])).tolist()
    [2, 3, 4]
    >>> reach(5.0, 20, Window(125, 45), np.array([0])).tolist()
    [1]
    """
    widened = (window.base + window.growth * waits) / window.base
    found: Ints = np.floor(percent / 100.0 * pool_size * widened + _SLACK).astype(np.int64)
    return found


@dataclass(frozen=True)
class RankWindow:
    """A wave's percentile window: its sorted rating ``pool`` and each player's ``reach``
    (players in the order of the arrays that hold it)."""

    pool: Ints
    reach: Ints

    def between(self, x: Ints, y: Ints) -> Ints:
        """The pool's ratings strictly between ``x[i]`` and ``y[i]``.

        >>> window = RankWindow(np.array([1, 2, 2, 3, 5]), np.zeros(0, dtype=np.int64))
        >>> window.between(np.array([1, 2, 5, 2]), np.array([3, 2, 1, 5])).tolist()
        [2, 0, 3, 1]
        """
        low, high = np.minimum(x, y), np.maximum(x, y)
        inside = np.searchsorted(self.pool, high, "left") - np.searchsorted(self.pool, low, "right")
        found: Ints = np.maximum(inside, 0)
        return found

    def points(self, bw: Ints, sc2: Ints) -> Ints:
        """Per player, a rating distance no legal pair of it exceeds: the farthest pool
        rating within its reach from either of its ratings (-1: no rating). Pairs'
        reaches combine as their points do (larger, smaller or the lead's), so the
        pressure windows' searches by points stay exact with these as radii.

        >>> window = RankWindow(np.array([10, 20, 20, 40, 80]), np.array([0, 1]))
        >>> window.points(np.array([20, 80]), np.array([-1, 40])).tolist()
        [20, 60]
        """
        radius = np.zeros(len(self.reach), dtype=np.int64)
        if not len(self.pool):
            return radius
        last = len(self.pool) - 1
        for ratings in (bw, sc2):
            rated = ratings >= 0
            above = np.searchsorted(self.pool, ratings, "right") + self.reach
            below = np.searchsorted(self.pool, ratings, "left") - self.reach - 1
            up = self.pool[np.minimum(above, last)] - ratings
            down = ratings - self.pool[np.clip(below, 0, last)]
            radius = np.where(rated, np.maximum(radius, np.maximum(up, down)), radius)
        return radius

    def subset(self, players: Ints) -> RankWindow:
        """The same pool (the whole wave's) and the reaches of ``players`` only."""
        return RankWindow(self.pool, self.reach[players])

    def allowed(self, x: Ints, y: Ints, pair_reach: Ints) -> Bools:
        """Mask of the pairs of ratings ``x[i]``, ``y[i]`` within ``pair_reach[i]``."""
        ok: Bools = self.between(x, y) <= pair_reach
        return ok


def rank_window(
    players: Sequence[DuelPlayer], percent: float, window: Window, pool: Ints | None = None
) -> RankWindow:
    """The percentile window of ``players`` (``pool``: the whole wave's, when ``players``
    are only some of it, as the checker's unmatched players).

    Notes: O(n log n).
    """
    pool = rating_pool(players) if pool is None else pool
    waits = np.array([p.wait_cycles for p in players], dtype=np.int64)
    return RankWindow(pool, reach(percent, len(pool), window, waits))
