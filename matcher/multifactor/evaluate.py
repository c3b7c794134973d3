"""Vectorised scoring of many candidate matches, each over every split into two teams.

A candidate is a row of 2n seats (pool player indices) whose tickets occupy
contiguous slots; its structure (slot sizes, see :class:`Structures`) says which splits keep every
party on one side and what the premade factor of each split is. The arithmetic
mirrors :mod:`matcher.multifactor.factors` operation for operation: integer-valued
sums (exact in any order), then the same elementwise float operations, so both give
bit-identical scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from matcher.multifactor.config import UNIT, MultifactorConfig
from matcher.multifactor.factors import premade_score
from matcher.multifactor.pool import CROSS_EXTRA, PING, RATING_GAP, SAME_TEAM, Pool

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class Layout:
    """Every split of 2n seats into two teams of n, team 1 always holding seat 0.

    ``pairs`` are the seat pairs (i < j); ``team1[s]`` the seats of team 1 in split s;
    ``cross[s]`` the indices into ``pairs`` of the pairs split s puts on opposite teams.
    """

    team_size: int
    masks: BoolArray
    pairs: IntArray
    team1: IntArray
    cross: IntArray


@cache
def layout_for(team_size: int) -> Layout:
    """The split layout of a match of two teams of ``team_size``.

    >>> layout = layout_for(3)
    >>> layout.masks.shape, layout.pairs.shape, layout.cross.shape
    ((10, 6), (15, 2), (10, 9))

    Notes: C(2n - 1, n - 1) splits.
    """
    seats = 2 * team_size
    rows = [(0, *rest) for rest in combinations(range(1, seats), team_size - 1)]
    masks = np.zeros((len(rows), seats), dtype=np.bool_)
    for s, members in enumerate(rows):
        masks[s, list(members)] = True
    pairs = list(combinations(range(seats), 2))
    cross = [[p for p, (i, j) in enumerate(pairs) if mask[i] != mask[j]] for mask in masks]
    return Layout(
        team_size=team_size,
        masks=masks,
        pairs=np.array(pairs, dtype=np.int64).reshape(-1, 2),
        team1=np.array(rows, dtype=np.int64),
        cross=np.array(cross, dtype=np.int64).reshape(len(rows), team_size * team_size),
    )


class Structures:
    """Registry of party structures (slot sizes) seen in a search, with per-split tables.

    A candidate's structure says which splits keep every party on one side (``valid``)
    and what the premade factor of each split is (``premade``); rows are structure ids.
    """

    def __init__(self, layout: Layout, config: MultifactorConfig) -> None:
        self.layout = layout
        self.config = config
        self.slots: list[tuple[tuple[int, int], ...]] = []
        self._ids: dict[tuple[int, ...], int] = {}
        self.valid = np.zeros((0, len(layout.masks)), dtype=np.bool_)
        self.premade = np.zeros((0, len(layout.masks)), dtype=np.float64)

    def id_of(self, sizes: tuple[int, ...]) -> int:
        """Id of the structure with these slot sizes (slots laid out in this order).

        >>> table = Structures(layout_for(3), MultifactorConfig())
        >>> sid = table.id_of((3, 1, 1, 1))
        >>> int(table.valid[sid].sum()), float(table.premade[sid][table.valid[sid]][0])
        (1, 0.0)
        """
        if sizes not in self._ids:
            valid, premade = self._tables(sizes)
            self._ids[sizes] = len(self.slots)
            starts = np.cumsum((0, *sizes[:-1]))
            self.slots.append(tuple((int(a), b) for a, b in zip(starts, sizes, strict=True)))
            self.valid = np.vstack((self.valid, valid))
            self.premade = np.vstack((self.premade, premade))
        return self._ids[sizes]

    def _tables(self, sizes: tuple[int, ...]) -> tuple[BoolArray, FloatArray]:
        starts = np.cumsum((0, *sizes[:-1]))
        valid = np.zeros(len(self.layout.masks), dtype=np.bool_)
        premade = np.zeros(len(self.layout.masks), dtype=np.float64)
        for s, mask in enumerate(self.layout.masks):
            sides = [mask[start : start + size] for start, size in zip(starts, sizes, strict=True)]
            if all(side.all() or not side.any() for side in sides):
                valid[s] = True
                team1 = [size for size, side in zip(sizes, sides, strict=True) if side[0]]
                team2 = [size for size, side in zip(sizes, sides, strict=True) if not side[0]]
                premade[s] = premade_score(team1, team2, self.config)
        return valid, premade


def evaluate(
    pool: Pool,
    layout: Layout,
    structures: Structures,
    config: MultifactorConfig,
    seats: IntArray,
    sids: IntArray,
) -> tuple[FloatArray, IntArray]:
    """Best split of each candidate row of ``seats`` (structure ``sids``): (score, split).

    Ties go to the lowest split index. Notes: O(candidates x n^2 x splits) numpy work,
    memory O(candidates x (n^2 + splits)).
    """
    scores = split_scores(pool, layout, structures, config, seats, sids)
    best = np.argmax(scores, axis=0)
    return scores[best, np.arange(len(seats))], best.astype(np.int64)


def split_scores(
    pool: Pool,
    layout: Layout,
    structures: Structures,
    config: MultifactorConfig,
    seats: IntArray,
    sids: IntArray,
) -> FloatArray:
    """Match score of every (candidate, split); -inf where a split breaks a party.

    Works on transposed arrays (one row per seat or seat pair, one column per
    candidate): row sums are then plain vector additions, with no BLAS call whose
    threads would fight over shared cores.
    """
    n = layout.team_size
    columns = np.ascontiguousarray(seats.T)
    capped = pool.capped[columns]
    team1_sum = capped[layout.team1].sum(axis=1)
    gap = np.abs(2.0 * team1_sum - capped.sum(axis=0))
    team_skill = np.maximum(0.0, 1.0 - gap / (n * config.team_skill_scale))
    flat = columns[layout.pairs[:, 0]] * len(pool.players) + columns[layout.pairs[:, 1]]
    match_pairs = len(layout.pairs)
    gaps = np.take(pool.pairs[RATING_GAP], flat).sum(axis=0)
    player_skill = np.maximum(0.0, 1.0 - gaps / match_pairs / config.player_skill_scale)
    ping_units = np.take(pool.pairs[PING], flat)
    ping = _cross_sums(ping_units, layout) / (n * n * UNIT)
    extra = _cross_sums(np.take(pool.pairs[CROSS_EXTRA], flat), layout)
    penalty = np.take(pool.pairs[SAME_TEAM], flat).sum(axis=0) + extra
    variation = 1.0 - penalty / (match_pairs * UNIT)
    premade = structures.premade[sids].T
    factors = [team_skill, player_skill, premade, ping, variation]
    if config.weight_hosts:
        hosts = pool.hosts[columns].sum(axis=0)
        factors.append(np.where(hosts >= 2, 1.0, np.where(hosts == 1, config.hosts_one_score, 0.0)))
    total = _weighted_sum(factors, config)
    result: FloatArray = np.where(structures.valid[sids].T, total, -np.inf)
    return result


def _weighted_sum(factors: list[FloatArray], config: MultifactorConfig) -> FloatArray:
    """:func:`combine`, bit for bit, with less work on arrays of (splits, candidates).

    A per-candidate factor is weighted before it is broadcast over the splits, and a
    factor of weight 0 (beyond the first) is skipped: adding ``f * 0.0 = 0.0`` to a
    finite total leaves it unchanged, so ``combine`` gets the same bits.
    """
    weights = config.weights()
    total: FloatArray = factors[0] * weights[0]
    for factor, weight in zip(factors[1:], weights[1:], strict=False):
        if weight:
            total = total + factor * weight
    shaped: FloatArray = np.broadcast_to(total, (len(factors[0]), total.shape[-1]))
    return shaped / config.total_weight()


def _cross_sums(values: FloatArray, layout: Layout) -> FloatArray:
    """Per split, the sum of ``values`` rows over the pairs it puts on opposite teams."""
    sums: FloatArray = values[layout.cross].sum(axis=1)
    return sums
