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
from matcher.multifactor.pool import Pool

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class Layout:
    """Every split of 2n seats into two teams of n, team 1 always holding seat 0.

    ``pairs`` are the seat pairs (i < j); ``team1[s]`` the seats of team 1 in split s;
    ``cross[s]`` the indices into ``pairs`` of the pairs split s puts on opposite teams.
    ``sides_matrix`` (split x seat: +1 team 1, -1 team 2) and ``cross_matrix`` (split
    x pair: 1 on opposite teams) say the same as matrices: the evaluator sums through
    them with an integer ``einsum``, which adds whole rows of candidates (cheaper than a
    fancy index followed by a sum over a middle axis). Every value summed is an
    integer, so sums are exact in any order.
    """

    team_size: int
    masks: BoolArray
    pairs: IntArray
    team1: IntArray
    cross: IntArray
    sides_matrix: npt.NDArray[np.int32]
    cross_matrix: npt.NDArray[np.int32]
    pair_first: IntArray
    pair_second: IntArray


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
    cross_matrix = np.zeros((len(rows), len(pairs)), dtype=np.int32)
    for split, opposite in enumerate(cross):
        cross_matrix[split, opposite] = 1
    return Layout(
        team_size=team_size,
        masks=masks,
        pairs=np.array(pairs, dtype=np.int64).reshape(-1, 2),
        team1=np.array(rows, dtype=np.int64),
        cross=np.array(cross, dtype=np.int64).reshape(len(rows), team_size * team_size),
        sides_matrix=np.where(masks, 1, -1).astype(np.int32),
        cross_matrix=cross_matrix,
        pair_first=np.array([i for i, _ in pairs], dtype=np.int64),
        pair_second=np.array([j for _, j in pairs], dtype=np.int64),
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
        # Read on every batch the evaluator scores: computed once here.
        self.weights = config.weights()
        self.total_weight = config.total_weight()
        # Per split (row) and structure (column): premade x its weight, -inf if invalid.
        self.premade_or_veto = np.zeros((len(layout.masks), 0), dtype=np.float64)

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
            # premade * weight, as combine computes it; a zero weight adds 0.0 (no bit).
            column = np.where(valid, premade * self.weights[2], -np.inf)
            self.premade_or_veto = np.column_stack((self.premade_or_veto, column))
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

    Works on transposed arrays (one row per split, seat or seat pair, one column per
    candidate): sums over seats and pairs add whole rows, with no BLAS call whose
    threads would fight over shared cores. Every (split, candidate) array is updated
    in place: allocating a fresh one per operation cost more than the arithmetic.
    """
    n = layout.team_size
    columns = np.ascontiguousarray(seats.T)
    # |team 1 - team 2| in integers: exactly team_skill_score's |2 x team 1 - both|.
    sides = np.einsum("sk,kc->sc", layout.sides_matrix, pool.capped_int[columns])
    np.abs(sides, out=sides)
    total = sides.astype(np.float64)
    total /= n * config.team_skill_scale
    total += 1.0
    np.divide(1.0, total, out=total)  # team skill, as team_skill_score
    weights = structures.weights
    total *= weights[0]
    flat = columns[layout.pair_first]
    flat *= len(pool.players)
    flat += columns[layout.pair_second]
    match_pairs = len(layout.pairs)
    terms = pool.whole_terms
    whole = np.take(terms, flat, axis=0).sum(axis=0, dtype=terms.dtype)
    cross = np.einsum("sp,pcx->xsc", layout.cross_matrix, np.take(pool.cross_terms, flat, axis=0))
    # Factors are added in FACTORS order (combine's order); a zero weight adds 0.0
    # to a finite total, which changes no bit, so it is skipped.
    if weights[1]:
        gaps = whole[:, 0].astype(np.float64)
        total += 1.0 / (1.0 + gaps / match_pairs / config.player_skill_scale) * weights[1]
    # Weighted premade factor, -inf where a split breaks a party (stays -inf to the end).
    total += structures.premade_or_veto[:, sids]
    if weights[3]:
        ping = cross[0].astype(np.float64)
        ping /= n * n * UNIT
        ping *= weights[3]
        total += ping
    if weights[4]:
        cross[1] += whole[:, 1]
        variation = cross[1].astype(np.float64)
        variation /= match_pairs * UNIT
        np.subtract(1.0, variation, out=variation)
        variation *= weights[4]
        total += variation
    if weights[5]:
        if pool.reach is None:
            hosts = pool.hosts[columns].sum(axis=0)
        else:  # seats whose reach row covers every seat of the candidate (peers.py)
            reach = pool.reach[columns[:, None, :], columns[None, :, :]]
            hosts = reach.all(axis=1).sum(axis=0)
        score = np.where(hosts >= 2, 1.0, np.where(hosts == 1, config.hosts_one_score, 0.0))
        total += score * weights[5]
    total /= structures.total_weight
    result: FloatArray = total
    return result
