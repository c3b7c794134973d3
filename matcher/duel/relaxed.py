"""Large waves of ``optimal``: one LP relaxation of the whole wave on the k-nearest graph.

The symmetric assignment (:mod:`matcher.duel.symmetric`) is the LP relaxation of the
matching. On 1-D costs it is integral but for a few odd cycles (1-5 at the 1,700 players
a 10,000-player wave leaves after the pre-pass of :mod:`matcher.duel.prepair`), so
rounding those cycles costs at most one pair each and a little cost beside them.

Why one relaxation of the whole remainder rather than rating bands
(:mod:`matcher.duel.bands`, docs/adr/0018): a band sweep settles "both" players' sides
before it has seen the far side of their other rating, and the optimum differs from the
swept matching by alternating components spanning most of the wave (one of 1,831 players
across 393-2,664 MMR at n = 10,000, seed 3). No local repair reaches that; the global
relaxation gets it right by construction.

The weight of a pair: one more pair must outweigh re-pairing up to ``cap`` pairs at the
largest cost spread (``matcher.duel.exact.big_weight``'s bound with ``cap`` instead of
n / 2). The sparse assignment slows down with that weight (2-4x at n / 2 on these
remainders) while the pairs found stayed the same on every measured wave; docs/adr/0018.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

from matcher.duel.bands import split_cycles
from matcher.duel.exact import big_weight
from matcher.duel.graph import DuelArrays, Ints, nearest_edges, undirected


@dataclass(frozen=True, slots=True)
class RelaxedOutcome:
    """Pairs ``(bw_player, sc2_player)`` by BW player; odd cycles of the relaxation rounded."""

    pairs: tuple[tuple[int, int], ...]
    odd_cycles: int


def relaxed_pairs(arrays: DuelArrays, k: int, cap: int) -> RelaxedOutcome:
    """Pair the wave by the relaxation on its ``k``-nearest graph, odd cycles rounded.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390), DuelPlayer("d", None, 1452)]
    >>> relaxed_pairs(duel_arrays(players, ("m",), Window(75, 25), DuelConfig()), 6, 8)
    RelaxedOutcome(pairs=((0, 3), (1, 2)), odd_cycles=0)

    Each cycle of the assignment longer than 2 gives its cheaper set of alternate edges;
    an odd one leaves out the member whose absence costs least (lowest start on a tie).

    Notes: one sparse assignment (LAPJV) on O(n k) edges; about 45 ms for the 1,700-player
    remainder of a 10,000-player wave. Rounding: O(length^2) per odd cycle (a few, short).
    """
    n = arrays.size
    u, v = nearest_edges(arrays, k)
    if not len(u):
        return RelaxedOutcome((), 0)
    bw, sc2, cost = undirected(arrays, u, v)
    weight = big_weight(arrays, min(cap, n // 2))
    successor = sparse_assignment(n, *symmetric_entries(n, bw, sc2, cost, weight))
    edges = _EdgeIndex(n, bw, sc2, cost)
    firsts, longer = split_cycles(successor)
    # One lookup for every edge of every longer cycle (a 10,000-player wave has ~150).
    following = [member for cycle in longer for member in cycle[1:] + cycle[:1]]
    costs = edges.costs([member for cycle in longer for member in cycle], following)
    rounded: list[tuple[int, int]] = []
    at = 0
    for cycle in longer:
        rounded += _round(cycle, costs[at : at + len(cycle)])
        at += len(cycle)
    odd = sum(len(cycle) % 2 for cycle in longer)
    found = edges.find(
        np.concatenate([firsts, np.array([a for a, _ in rounded], dtype=np.int64)]),
        np.concatenate([successor[firsts], np.array([b for _, b in rounded], dtype=np.int64)]),
    )
    order = np.argsort(bw[found], kind="stable")
    pairs = tuple(zip(bw[found][order].tolist(), sc2[found][order].tolist(), strict=True))
    return RelaxedOutcome(pairs, odd)


def symmetric_entries(
    n: int, bw: Ints, sc2: Ints, cost: Ints, weight: int
) -> tuple[Ints, Ints, Ints]:
    """``(rows, cols, values)`` of the symmetric relaxation: every pair both ways at its
    cost, and ``weight`` on the diagonal (a player left single)."""
    rows = np.concatenate([bw, sc2, np.arange(n)])
    cols = np.concatenate([sc2, bw, np.arange(n)])
    values = np.concatenate([cost, cost, np.full(n, weight, dtype=np.int64)])
    return rows, cols, values


def sparse_assignment(n: int, rows: Ints, cols: Ints, values: Ints) -> Ints:
    """The optimal permutation of a sparse ``n x n`` assignment (LAPJV); integer costs."""
    # Every permutation takes n entries, so a common offset keeps the optimum; it makes
    # every entry positive (a stored zero would read as "no edge").
    shifted = (values - values.min() + 1).astype(np.float64)
    matrix = csr_matrix((shifted, (rows, cols)), shape=(n, n))
    _, successor = min_weight_full_bipartite_matching(matrix)
    result: Ints = successor.astype(np.int64)
    return result


class _EdgeIndex:
    """The undirected candidate edges, looked up by their two players."""

    def __init__(self, n: int, bw: Ints, sc2: Ints, cost: Ints) -> None:
        self.n = n
        self.keys = np.minimum(bw, sc2) * n + np.maximum(bw, sc2)  # sorted (``undirected``)
        self.cost = cost

    def find(self, a: Ints, b: Ints) -> Ints:
        at: Ints = np.searchsorted(self.keys, np.minimum(a, b) * self.n + np.maximum(a, b))
        return at

    def costs(self, a: list[int], b: list[int]) -> list[int]:
        at = self.find(np.array(a, dtype=np.int64), np.array(b, dtype=np.int64))
        result: list[int] = self.cost[at].tolist()
        return result


def _round(cycle: list[int], costs: list[int]) -> list[tuple[int, int]]:
    """The cheapest alternate edges of a cycle (``costs[i]``: member i to i + 1); an odd
    cycle leaves one member out."""
    k = len(cycle)
    starts = range(k) if k % 2 else range(2)
    best = min(starts, key=lambda s: (sum(costs[(s + 2 * i) % k] for i in range(k // 2)), s))
    return [(cycle[(best + 2 * i) % k], cycle[(best + 2 * i + 1) % k]) for i in range(k // 2)]
