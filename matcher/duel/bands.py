"""Large waves of ``optimal``: exact relaxations on overlapping rating bands, stitched.

Costs are 1-D (a rating difference squared), so an optimal pair joins players close
in rating and pairs of far-apart bands do not interact. :func:`band_pairs` walks the
players' rating points (a "both" player has two) in order, ``band`` points at a time
(docs/adr/0015). Each step solves, with a dense assignment (C, ``scipy``), the LP
relaxation of the max-cardinality min-cost matching of

- the *pool*: unsettled players with a point in this band or carried from before,
- the *look-ahead*: players whose lowest point is in the next band,

on *every* legal pair among them (no candidate pruning). Pairs inside the pool are
settled; a pool player paired into the look-ahead, left out, or in an odd (fractional)
cycle is carried to the next step while some unseen player may still be in its window.
The look-ahead lets a pool player wait for a better partner just above the band;
carrying lets an odd cycle become integral once new players arrive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from matcher.duel.graph import DuelArrays, Ints, cost, legal

Floats = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class BandOutcome:
    """Pairs ``(bw_player, sc2_player)`` and how many steps / odd cycles were rounded."""

    pairs: tuple[tuple[int, int], ...]
    steps: int
    rounded_odd_cycles: int


def band_pairs(arrays: DuelArrays, band: int, ahead_points: int) -> BandOutcome:
    """Pair the players of a wave band by band (near-optimal, see module notes).

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390), DuelPlayer("d", None, 1452)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> band_pairs(arrays, 2, 2).pairs
    ((0, 3), (1, 2))

    Notes: O(n / band) dense assignments of O(band) players each, so about
    O(n * band^2) in practice (the assignment is cubic in the worst case).
    """
    order_players, chunk_lo = _points(arrays, band)
    if not len(order_players):
        return BandOutcome((), 0, 0)
    n = arrays.size
    top = np.maximum(arrays.bw, arrays.sc2)
    reach = arrays.max_radius()
    spread = reach**2 + 2 * arrays.bonus * int(arrays.wait.max(initial=0)) + 1
    settled = np.zeros(n, dtype=bool)
    seen = np.zeros(n, dtype=bool)
    carry = np.zeros(0, dtype=np.int64)
    pairs: list[tuple[int, int]] = []
    rounded = 0
    chunks = len(chunk_lo)
    for k in range(chunks):
        pool = np.unique(np.concatenate([carry, order_players[k * band : (k + 1) * band]]))
        pool = pool[~settled[pool]]
        ahead = np.unique(order_players[(k + 1) * band : (k + 1) * band + ahead_points])
        seen[pool] = True
        ahead = ahead[~settled[ahead] & ~seen[ahead]]
        seen[pool] = False
        next_lo = int(chunk_lo[k + 1]) if k + 1 < chunks else None
        dead = np.ones(len(pool), dtype=bool) if next_lo is None else top[pool] + reach < next_lo
        step = _Step(arrays, pool, ahead, dead, spread)
        rounded += step.settle(pairs, settled)
        carry = pool[~settled[pool] & (~dead | step.held)]
    pairs.sort()
    return BandOutcome(tuple(pairs), chunks, rounded)


def _points(arrays: DuelArrays, band: int) -> tuple[Ints, Ints]:
    """Players of all rating points in (rating, player) order; each band's lowest rating."""
    players = np.concatenate([arrays.bw_order, arrays.sc2_order])
    ratings = np.concatenate([arrays.bw_sorted, arrays.sc2_sorted])
    order = np.lexsort((players, ratings))
    sorted_players: Ints = players[order]
    lows: Ints = ratings[order][::band]
    return sorted_players, lows


class _Step:
    """One band: the relaxation of pool + look-ahead and what it lets us settle."""

    def __init__(
        self, arrays: DuelArrays, pool: Ints, ahead: Ints, dead: NDArray[np.bool_], spread: int
    ) -> None:
        self.members = np.concatenate([pool, ahead])
        self.pool_size = len(pool)
        self.dead = dead
        self.held = np.zeros(len(pool), dtype=bool)
        self.table, self.bw_first = dense_costs(arrays, self.members)
        np.fill_diagonal(self.table, _sit_out(self.table))
        _, successor = linear_sum_assignment(self.table)
        self.successor: list[int] = successor.tolist()

    def settle(self, pairs: list[tuple[int, int]], settled: NDArray[np.bool_]) -> int:
        """Append the settled pairs (global ids, BW first); return odd cycles rounded."""
        rounded = 0
        members = self.members.tolist()
        for cycle in _cycles(self.successor):
            if len(cycle) < 2 or max(cycle) >= self.pool_size:
                continue
            odd = len(cycle) % 2 == 1
            if odd and not all(self.dead[i] for i in cycle):
                # Carried whole: a newcomer may pair with a live member, the rest pair up.
                self.held[cycle] = True
                continue
            rounded += odd
            for a, b in self._round(cycle):
                x, y = (a, b) if self.bw_first[a, b] else (b, a)
                pairs.append((members[x], members[y]))
                settled[members[x]] = settled[members[y]] = True
        return rounded

    def _round(self, cycle: list[int]) -> list[tuple[int, int]]:
        """The cheaper set of alternate edges (an odd cycle leaves one player out)."""
        k = len(cycle)
        if k == 2:
            return [(cycle[0], cycle[1])]
        costs = [float(self.table[cycle[i], cycle[(i + 1) % k]]) for i in range(k)]
        starts = range(k) if k % 2 else range(2)
        best = min(starts, key=lambda s: (sum(costs[(s + 2 * i) % k] for i in range(k // 2)), s))
        return [(cycle[(best + 2 * i) % k], cycle[(best + 2 * i + 1) % k]) for i in range(k // 2)]


def _sit_out(table: Floats) -> float:
    """A sit-out cost so high that one more pair beats any change in the rest.

    Swapping a matching of k pairs for one of k + 1 changes the summed cost by at most
    ``(k + 1) * (high - low) + |low|``; sitting out two players costs twice this.
    """
    finite = table[np.isfinite(table)]
    if not len(finite):
        return 1.0
    low, high = float(finite.min()), float(finite.max())
    return (len(table) // 2 + 1) * (high - low) + abs(low) + abs(high) + 1.0


def dense_costs(arrays: DuelArrays, members: Ints) -> tuple[Floats, NDArray[np.bool_]]:
    """Symmetric pair-cost table of ``members`` (inf: no legal pair) and who plays BW.

    ``bw_first[a, b]`` is True when ``members[a]`` takes BW in the cheaper orientation;
    on a cost tie the lower player index plays BW, as in :func:`~matcher.duel.graph.undirected`.

    Notes: O(p^2 * map words) for p members.
    """
    p = len(members)
    u, v = np.repeat(members, p), np.tile(members, p)
    directed = np.where(legal(arrays, u, v), cost(arrays, u, v), np.inf).reshape(p, p)
    flipped = directed.T
    lower = members[:, None] < members[None, :]
    bw_first = (directed < flipped) | ((directed == flipped) & lower)
    table: Floats = np.minimum(directed, flipped).astype(np.float64)
    return table, bw_first


def _cycles(successor: list[int]) -> list[list[int]]:
    """The cycles of a permutation, each from its smallest member (deterministic)."""
    seen = [False] * len(successor)
    cycles: list[list[int]] = []
    for start in range(len(successor)):
        if seen[start]:
            continue
        cycle = [start]
        seen[start] = True
        at = successor[start]
        while at != start:
            cycle.append(at)
            seen[at] = True
            at = successor[at]
        cycles.append(cycle)
    return cycles
