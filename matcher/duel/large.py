"""Large waves of ``optimal`` (above ``optimal_exact_limit`` players): one LP relaxation of
the whole wave on a sparse candidate graph, its few odd cycles rounded.

The relaxation is the symmetric assignment: every pair both ways at its score, and a
player left single costs ``weight`` (one more pair outweighs re-pairing up to
``optimal_relax_cap`` pairs). An optimal permutation of it made only of 2-cycles and
fixed points is a matching; longer even cycles split into two matchings, the cheaper
kept; an odd cycle leaves one member out. On 1-D costs the relaxation is integral but
for a few short odd cycles, so rounding costs at most one pair each. SciPy's LAPJVsp
solves it on the candidate graph (:func:`matcher.duel.graph.candidate_edges`).

Why one relaxation of the whole wave rather than rating bands: a band sweep settles
"both" players' sides before it has seen the far side of their other rating; the
global relaxation chooses every side at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

from matcher.duel.graph import (
    DuelArrays,
    Ints,
    big_weight,
    candidate_edges,
    undirected,
    unique_sorted,
)
from matcher.duel.near import legal_touching


@dataclass(frozen=True, slots=True)
class RelaxedOutcome:
    """Pairs ``(bw_player, sc2_player)`` by BW player; odd cycles of the relaxation rounded.

    ``sit_outs``: players the relaxation was allowed to leave out for free (0 unless the
    parity step's relaxation was kept, see :func:`relaxed_pairs`).
    """

    pairs: tuple[tuple[int, int], ...]
    odd_cycles: int
    sit_outs: int = 0


def relaxed_pairs(
    arrays: DuelArrays, k: int, cap: int, parity: bool = False, every_pair: bool = False
) -> RelaxedOutcome:
    """Pair the wave by the relaxation on its candidate graph (``k`` nearest ratings each
    side and the quantile edges), odd cycles rounded.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390), DuelPlayer("d", None, 1452)]
    >>> relaxed_pairs(duel_arrays(players, ("m",), Window(75, 25), DuelConfig()), 6, 8)
    RelaxedOutcome(pairs=((0, 3), (1, 2)), odd_cycles=0, sit_outs=0)

    Each cycle of the assignment longer than 2 gives its cheaper set of alternate edges;
    an odd one leaves out the member whose absence costs least (lowest start on a tie).

    ``parity``: when the relaxation has an odd number of odd cycles, every
    matching leaves at least one player more out than the relaxation does, so it is solved
    again with that many free sit-outs (dummy players legal with everyone at cost 0). The
    relaxation then chooses the extra sit-out over the whole wave, typically a player in a
    sparse tail with only far partners, instead of a member of an odd cycle in the dense
    middle. The rounded result with more pairs, then less cost, is kept.

    The assignment's rows and columns are numbered by rating: neighbours in the matrix
    are neighbours in rating, which the solver finds faster. Among several optima of the
    relaxation (the same value, other pairs) the numbering decides which one is found.

    Notes: one sparse assignment (LAPJV) on O(n k) edges, two with ``parity`` when the
    odd cycles are odd in number. Rounding: O(length^2) per odd cycle (a few, short).
    """
    n = arrays.size
    u, v = every_legal_pair(arrays) if every_pair else candidate_edges(arrays, k)
    if not len(u):
        return RelaxedOutcome((), 0)
    bw, sc2, cost = undirected(arrays, u, v)
    weight = big_weight(arrays, min(cap, n // 2))
    entries = symmetric_entries(n, bw, sc2, cost, weight)
    edges = _EdgeIndex(n, bw, sc2, cost)
    # Row and column potentials of the overdue waits take the sit-out priority off the
    # edges: the same optimum (every permutation meets each row and column once), and edge
    # costs in the design's range, which LAPJV solves faster.
    overdue = arrays.overdue
    potential = None if overdue is None else arrays.priority * overdue
    successor = sparse_assignment(n, *entries, order=rating_order(arrays, n), potential=potential)
    best = _Rounded(edges, successor, n, weight)
    sit_outs = 0
    if parity and best.odd_cycles % 2:
        free = int((successor == np.arange(n)).sum()) + 1
        with_free = _with_sit_outs(n, entries, free, weight)
        padded = None
        if potential is not None:
            padded = np.concatenate([potential, np.zeros(free, dtype=np.int64)])
        order = rating_order(arrays, n + free)
        again = sparse_assignment(n + free, *with_free, order=order, potential=padded)
        other = _Rounded(edges, again, n, weight)
        if other.value > best.value:
            best, sit_outs = other, free
    order = np.argsort(bw[best.found], kind="stable")
    found = best.found[order]
    pairs = tuple(zip(bw[found].tolist(), sc2[found].tolist(), strict=True))
    return RelaxedOutcome(pairs, best.odd_cycles, sit_outs)


def every_legal_pair(arrays: DuelArrays) -> tuple[Ints, Ints]:
    """Every legal directed pair ``(u, v)`` of the wave (u plays BW), sorted by (u, v)."""
    n = arrays.size
    u, v = legal_touching(arrays, np.arange(n, dtype=np.int64))
    keys = unique_sorted(u * n + v)
    return keys // n, keys % n


class _Rounded:
    """An assignment rounded to pairs of the ``n`` players (later indices are free
    sit-outs): ``found`` indexes the candidate edges, ``value`` is (pairs, -cost)."""

    def __init__(self, edges: _EdgeIndex, successor: Ints, n: int, weight: int) -> None:
        firsts, longer = split_cycles(successor)
        firsts = firsts[successor[firsts] < n]
        rounded: list[tuple[int, int]] = []
        # One lookup for every edge of every longer cycle, not one per cycle.
        members = [member for cycle in longer for member in cycle]
        following = [member for cycle in longer for member in cycle[1:] + cycle[:1]]
        costs = edges.costs(members, following, weight)
        at = 0
        for cycle in longer:
            rounded += _round(cycle, costs[at : at + len(cycle)])
            at += len(cycle)
        rounded = [(a, b) for a, b in rounded if a < n and b < n]
        self.odd_cycles = sum(len(cycle) % 2 for cycle in longer)
        self.found = edges.find(
            np.concatenate([firsts, np.array([a for a, _ in rounded], dtype=np.int64)]),
            np.concatenate([successor[firsts], np.array([b for _, b in rounded], dtype=np.int64)]),
        )
        self.value = (len(self.found), -int(edges.cost[self.found].sum()))


def _with_sit_outs(
    n: int, entries: tuple[Ints, Ints, Ints], free: int, weight: int
) -> tuple[Ints, Ints, Ints]:
    """The relaxation's entries plus ``free`` dummy players: legal with every player at
    cost 0 (that player sits out for free), ``weight`` on their own diagonal."""
    rows, cols, values = entries
    dummies = np.arange(n, n + free, dtype=np.int64)
    players = np.arange(n, dtype=np.int64)
    dummy_side, player_side = np.repeat(dummies, n), np.tile(players, free)
    return (
        np.concatenate([rows, dummy_side, player_side, dummies]),
        np.concatenate([cols, player_side, dummy_side, dummies]),
        np.concatenate(
            [values, np.zeros(2 * n * free, dtype=np.int64), np.full(free, weight, dtype=np.int64)]
        ),
    )


def symmetric_entries(
    n: int, bw: Ints, sc2: Ints, cost: Ints, weight: int
) -> tuple[Ints, Ints, Ints]:
    """``(rows, cols, values)`` of the symmetric relaxation: every pair both ways at its
    cost, and ``weight`` on the diagonal (a player left single)."""
    rows = np.concatenate([bw, sc2, np.arange(n)])
    cols = np.concatenate([sc2, bw, np.arange(n)])
    values = np.concatenate([cost, cost, np.full(n, weight, dtype=np.int64)])
    return rows, cols, values


def sparse_assignment(
    n: int,
    rows: Ints,
    cols: Ints,
    values: Ints,
    order: Ints | None = None,
    potential: Ints | None = None,
) -> Ints:
    """The optimal permutation of a sparse ``n x n`` assignment (LAPJV); integer costs.

    ``order``: the rows and columns renumbered so that ``order[k]`` becomes ``k``.
    ``potential``: added to every entry of row ``i`` and of column ``i`` (the optimum
    stays the same).
    """
    if potential is not None:
        values = values + potential[rows] + potential[cols]
    # Every permutation takes n entries, so a common offset keeps the optimum; it makes
    # every entry positive (a stored zero would read as "no edge").
    shifted = (values - values.min() + 1).astype(np.float64)
    rank = np.empty(n, dtype=np.int64)
    if order is not None:
        rank[order] = np.arange(n)
        rows, cols = rank[rows], rank[cols]
    matrix = csr_matrix((shifted, (rows, cols)), shape=(n, n))
    _, found = min_weight_full_bipartite_matching(matrix)
    result: Ints = found.astype(np.int64)
    return result if order is None else order[result][rank]


def rating_order(arrays: DuelArrays, n: int) -> Ints:
    """Players by a rating (BW if any, else SC2), then dummies: neighbours in the
    assignment's rows are neighbours in rating."""
    key = np.where(arrays.bw >= 0, arrays.bw, arrays.sc2)
    found: Ints = np.concatenate(
        [np.argsort(key, kind="stable"), np.arange(arrays.size, n, dtype=np.int64)]
    )
    return found


class _EdgeIndex:
    """The undirected candidate edges, looked up by their two players."""

    def __init__(self, n: int, bw: Ints, sc2: Ints, cost: Ints) -> None:
        self.n = n
        self.keys = np.minimum(bw, sc2) * n + np.maximum(bw, sc2)  # sorted (``undirected``)
        self.cost = cost

    def find(self, a: Ints, b: Ints) -> Ints:
        at: Ints = np.searchsorted(self.keys, np.minimum(a, b) * self.n + np.maximum(a, b))
        return at

    def costs(self, a: list[int], b: list[int], sit_out: int) -> list[int]:
        """Costs of the edges ``a[i] b[i]``; ``sit_out`` for an edge to a dummy (index >= n),
        so that rounding a cycle prefers real pairs to free sit-outs."""
        first, second = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
        real = (first < self.n) & (second < self.n)
        result = np.full(len(first), sit_out, dtype=np.int64)
        result[real] = self.cost[self.find(first[real], second[real])]
        costs: list[int] = result.tolist()
        return costs


def _round(cycle: list[int], costs: list[int]) -> list[tuple[int, int]]:
    """The cheapest alternate edges of a cycle (``costs[i]``: member i to i + 1); an odd
    cycle leaves one member out."""
    k = len(cycle)
    starts = range(k) if k % 2 else range(2)
    best = min(starts, key=lambda s: (sum(costs[(s + 2 * i) % k] for i in range(k // 2)), s))
    return [(cycle[(best + 2 * i) % k], cycle[(best + 2 * i + 1) % k]) for i in range(k // 2)]


def split_cycles(successor: Ints) -> tuple[Ints, list[list[int]]]:
    """A permutation's 2-cycles (their smaller members, ascending) and its cycles longer
    than 2 (each from its smallest member, by that member): most cycles of a band are
    2-cycles, found here without a Python loop.

    >>> firsts, longer = split_cycles(np.array([1, 0, 2, 4, 5, 3]))
    >>> firsts.tolist(), longer
    ([0], [[3, 4, 5]])

    Notes: O(n) vectorised, plus O(length) Python per longer cycle.
    """
    index = np.arange(len(successor))
    two = (successor != index) & (successor[successor] == index)
    firsts: Ints = np.flatnonzero(two & (index < successor))
    longer: list[list[int]] = []
    rest = np.flatnonzero((successor != index) & ~two).tolist()
    if rest:
        following = successor.tolist()
        seen: set[int] = set()
        for start in rest:
            if start in seen:
                continue
            cycle = [start]
            at = following[start]
            while at != start:
                cycle.append(at)
                at = following[at]
            seen.update(cycle)
            longer.append(cycle)
    return firsts, longer
