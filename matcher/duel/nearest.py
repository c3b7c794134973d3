"""Mid-size waves of ``optimal``: branch and bound on the k-nearest graph (sparse).

The symmetric assignment of :mod:`matcher.duel.symmetric` (its proofs apply unchanged)
on the ``k``-nearest legal pairs only (:func:`matcher.duel.graph.nearest_edges`),
solved by the sparse C assignment ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``:
~10 ms at n = 1,000 where the dense one takes ~100 ms. The relaxation of these waves is
nearly tight (the exact optimum is within a few score points of its bound) but its odd
cycles are long, and rounding them loses 10-80% of the summed squared diff; branching
on them (best first) reaches the optimum of the k-nearest graph in a few solves
(docs/adr/0016). Not proven on every legal pair: the caller reports it as not exact.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, min_weight_full_bipartite_matching

from matcher.duel.bands import split_cycles
from matcher.duel.exact import big_weight
from matcher.duel.graph import DuelArrays, Ints, nearest_edges, undirected

Bools = NDArray[np.bool_]
Floats = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class NearestOutcome:
    """Pairs ``(bw_player, sc2_player)`` sorted, or ``None`` when the budget ran out;
    the odd cycles of the first assignment and the assignments solved."""

    pairs: tuple[tuple[int, int], ...] | None
    odd_cycles: int
    solves: int


def nearest_pairs(arrays: DuelArrays, k: int = 6, max_solves: int = 32) -> NearestOutcome:
    """The optimum of the wave on its ``k``-nearest graph, by sparse branch and bound.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390)]
    >>> nearest_pairs(duel_arrays(players, ("m",), Window(75, 25), DuelConfig()))
    NearestOutcome(pairs=((1, 0),), odd_cycles=0, solves=1)

    Notes: O(n k log(n k)) for the graph, then at most ``max_solves`` sparse
    assignments (near O(n k) each on these graphs, cubic worst case).
    """
    n = arrays.size
    u, v = nearest_edges(arrays, k)
    bw, sc2, cost = undirected(arrays, u, v)
    if n < 2 or not len(bw):
        return NearestOutcome((), 0, 0)
    problem = _Problem.build(n, bw, sc2, cost, big_weight(arrays))
    root = problem.solve(np.ones(len(problem.rows), dtype=bool), 0)
    heap = [root]
    solves, first_odd = 1, len(root.odd)
    while heap:
        node = heapq.heappop(heap)
        if not node.odd:
            return NearestOutcome(problem.pairs(node), first_odd, solves)
        # Best first (deeper first among equal bounds: ties are common with integer
        # ratings); the popped bound is <= every open one, so an integral node is optimal.
        cycle = min(node.odd, key=len)
        if solves + len(cycle) > max_solves:
            break
        for drop in cycle:
            branch = problem.forbid(node.allowed, cycle, drop)
            heapq.heappush(heap, problem.solve(branch, solves, node.depth - 1))
            solves += 1
    return NearestOutcome(None, first_odd, solves)


@dataclass(order=True)
class _Node:
    """One branch: its assignment's value (a lower bound), then creation order (ties)."""

    value: float
    depth: int  # minus the depth, so that deeper nodes come first on equal values
    order: int
    allowed: Bools = field(compare=False)
    successor: Ints = field(compare=False)
    odd: list[list[int]] = field(compare=False)


@dataclass(frozen=True)
class _Problem:
    """The symmetric assignment as sparse entries: both directions of every pair, the
    sit-out diagonal and one dummy per odd component (legal with its members at 0)."""

    size: int
    players: int
    rows: Ints
    cols: Ints
    values: Floats
    pair_of: Ints  # entry -> pair index (-1: diagonal or dummy)
    bw: Ints
    sc2: Ints

    @staticmethod
    def build(n: int, bw: Ints, sc2: Ints, cost: Ints, weight: int) -> _Problem:
        graph = csr_matrix((np.ones(len(bw)), (bw, sc2)), shape=(n, n))
        count, label = connected_components(graph, directed=False)
        sizes = np.bincount(label, minlength=count)
        odd = np.flatnonzero((sizes % 2 == 1) & (sizes > 1))
        dummy_of = np.full(count, -1, dtype=np.int64)
        dummy_of[odd] = n + np.arange(len(odd))
        members = np.flatnonzero(dummy_of[label] >= 0)
        dummies = dummy_of[label[members]]
        size = n + len(odd)
        pairs = np.arange(len(bw), dtype=np.int64)
        none = np.full(size + 2 * len(members), -1, dtype=np.int64)
        # A symmetric pair costs 2 * cost in all (one entry per direction), as in symmetric.py;
        # every entry is shifted to >= 1 (an assignment always takes `size` entries, so a
        # shift changes no choice, and the sparse solver reads explicit zeros as absent).
        shift = 1 - min(int(cost.min()), 0)
        return _Problem(
            size=size,
            players=n,
            rows=np.concatenate([bw, sc2, np.arange(size), members, dummies]),
            cols=np.concatenate([sc2, bw, np.arange(size), dummies, members]),
            values=np.concatenate(
                [
                    cost + shift,
                    cost + shift,
                    np.full(size, weight + shift),
                    np.full(2 * len(members), shift),
                ]
            ).astype(np.float64),
            pair_of=np.concatenate([pairs, pairs, none]),
            bw=bw,
            sc2=sc2,
        )

    def solve(self, allowed: Bools, order: int, depth: int = 0) -> _Node:
        """Solve the assignment on the ``allowed`` entries (``depth``: minus the depth)."""
        rows, cols = self.rows[allowed], self.cols[allowed]
        matrix = csr_matrix((self.values[allowed], (rows, cols)), shape=(self.size, self.size))
        _, successor = min_weight_full_bipartite_matching(matrix)
        value = float(matrix[np.arange(self.size), successor].sum())
        _, longer = split_cycles(successor)
        odd = [cycle for cycle in longer if len(cycle) % 2]
        return _Node(value, depth, order, allowed, successor, odd)

    def forbid(self, allowed: Bools, cycle: list[int], drop: int) -> Bools:
        """The branch where ``drop`` is not paired inside ``cycle`` (symmetric.py's proof)."""
        others = np.zeros(self.size, dtype=bool)
        others[[v for v in cycle if v != drop]] = True
        touching = ((self.rows == drop) & others[self.cols]) | (
            (self.cols == drop) & others[self.rows]
        )
        branch: Bools = allowed & ~touching
        return branch

    def pairs(self, node: _Node) -> tuple[tuple[int, int], ...]:
        """The 2-cycles and one half of each even cycle (both halves cost the same in an
        optimal assignment, symmetric.py), as (BW, SC2) pairs of players."""
        firsts, longer = split_cycles(node.successor)
        ends = [
            (a, b) for a, b in zip(firsts.tolist(), node.successor[firsts].tolist(), strict=True)
        ]
        ends += [(cycle[i], cycle[i + 1]) for cycle in longer for i in range(0, len(cycle), 2)]
        edge = {}
        for e, (x, y) in enumerate(zip(self.bw.tolist(), self.sc2.tolist(), strict=True)):
            edge[(x, y)] = edge[(y, x)] = e
        chosen = [
            (int(self.bw[edge[end]]), int(self.sc2[edge[end]]))
            for end in ends
            if end[0] < self.players and end[1] < self.players
        ]
        return tuple(sorted(chosen))
