"""Small waves of ``optimal``: the symmetric assignment relaxation on every legal pair.

A matching ``M`` of the wave is scored ``f(M) = 2 cost(M) + W * (players left out)``;
with ``W = big_weight`` one more pair outweighs any difference in cost, so minimising
``f`` is the product's objective (most pairs, then least cost; docs/adr/0011).

The relaxation is an assignment on the square matrix ``T`` with ``T[u, v] = T[v, u]``
= the pair's cost (inf when illegal) and ``T[u, u] = W`` ("sit out"). Any matching
is a permutation (its pairs as 2-cycles, the rest fixed points) of value ``f(M)``,
so the optimal permutation's value ``A*`` is a lower bound on every ``f(M)``.

Proof that an assignment without odd cycles longer than 1 gives an optimal matching:

- a 2-cycle ``(u v)`` costs ``2 T[u, v]``: a pair; a fixed point costs ``W``: sits out;
- an even cycle ``v0 -> v1 -> ... -> v(2k-1) -> v0`` costs ``H0 + H1``, the costs of its
  two alternate perfect matchings (edges ``v(2i) v(2i+1)`` and ``v(2i+1) v(2i+2)``).
  Replacing the cycle by the 2-cycles of one half is a permutation costing ``2 H0`` (or
  ``2 H1``), so optimality gives ``H0 + H1 <= 2 H0`` and ``<= 2 H1``: ``H0 = H1``, and either
  half yields a permutation of value ``A*`` whose cycles all have length <= 2;
- that permutation is a matching ``M*`` with ``f(M*) = A* <= f(M)`` for every ``M``.

An odd connected component always admits a fractional cover (an odd cycle through all its
players beats leaving one out by ``W``), so one *dummy* player per odd component of 3 or
more is added, legal with each member at cost 0. Every matching leaves at least one
player of each of the ``k`` odd components out, who may pair with that component's
dummy: ``A* <= f(M) - k W``. A rounded optimum ``M*`` with ``j <= k`` dummies paired has
``A* = f(M*) - j W + (k - j) W >= f(M*) - k W``, so again ``f(M*) <= f(M)``.

An odd cycle ``C`` longer than 1 is fractional. No matching pairs every member of an
odd set inside the set, so branching on the member ``v`` of ``C`` that is not paired
inside ``C`` (forbid the entries between ``v`` and ``C - v``, symmetrically) covers every
matching, and each branch's assignment is a lower bound for the matchings in it. Best
first, the first integral node popped is optimal. Where that takes more than a few
assignments, the blossom finishes the first one instead
(:mod:`matcher.duel.relaxation_blossom`, docs/adr/0065), also optimal.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from matcher.duel.bands import Floats, dense_costs, permutation_cycles
from matcher.duel.exact import big_weight
from matcher.duel.graph import Bools, DuelArrays
from matcher.duel.relaxation_blossom import blossom_from_relaxation

#: Assignments of branch and bound before the blossom step on waves whose odd cycles
#: cannot be rounded locally (measured at 30 players: a branch step costs ~20 us, the
#: blossom step ~0.3 ms), and on the others, which branch and bound closes more often
#: (docs/adr/0065: 6 measured best at 30 players).
QUICK_SOLVES = 4
LOCAL_SOLVES = 6


@dataclass(frozen=True, slots=True)
class SymmetricOutcome:
    """Pairs ``(bw_player, sc2_player)`` sorted, proven optimal, or ``None`` (gave up).

    ``odd_cycles`` counts the fractional odd cycles of the first assignment, ``solves``
    the assignments solved (1 when the first is integral), ``dummies`` the odd
    components that received a dummy player; ``blossom``: the blossom finished the first
    assignment (:mod:`matcher.duel.relaxation_blossom`).
    """

    pairs: tuple[tuple[int, int], ...] | None
    odd_cycles: int
    solves: int
    dummies: int
    blossom: bool = False


def symmetric_pairs(
    arrays: DuelArrays,
    max_solves: int = 24,
    quick_solves: int = QUICK_SOLVES,
    blossom_step: bool = True,
) -> SymmetricOutcome:
    """Solve the wave by symmetric assignments (branch and bound); proven optimal or None.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> symmetric_pairs(arrays)
    SymmetricOutcome(pairs=((1, 0),), odd_cycles=0, solves=1, dummies=1, blossom=False)

    ``blossom_step``: when branch and bound has not finished after ``quick_solves``
    assignments (some odd cycle of the first assignment touches no single player and no
    other odd cycle: such waves mostly lose a pair to the relaxation's fractional cover,
    a gap branch and bound closes slowly if at all, docs/adr/0011) or
    :data:`LOCAL_SOLVES` (the other waves), the blossom finishes the first assignment
    (:mod:`matcher.duel.relaxation_blossom`). Among several optima that is the one
    returned (docs/adr/0065). Branch and bound resumes up to ``max_solves`` only if the
    step cannot start; without the step it runs up to ``max_solves``, then None.

    Notes: O(n^2) to build the table, then dense assignments of n + (odd components)
    rows (cubic worst case, well under a millisecond each for n <= 160 in practice),
    at most ``max_solves`` of them; the blossom step costs about 0.3 ms at 30 players.
    """
    n = arrays.size
    if n < 2:
        return SymmetricOutcome((), 0, 0, 0)
    directed = dense_costs(arrays, np.arange(n, dtype=np.int64))
    table = np.minimum(directed, directed.T)
    weight = big_weight(arrays)
    root, dummies = _with_dummies(table, float(weight))
    search = _Branching(root)
    pause = max_solves
    if blossom_step and search.odd_cycles:
        local = _rounds_locally(search.first.successor, table)
        pause = min(LOCAL_SOLVES if local else quick_solves, max_solves)
    chosen = search.run(pause)
    if chosen is None and blossom_step and not search.failed:
        found = blossom_from_relaxation(table, root, np.array(search.first.successor), weight)
        if found is not None:
            pairs = tuple(sorted(_oriented(directed, a, b) for a, b in found))
            return SymmetricOutcome(pairs, search.odd_cycles, search.solves, dummies, True)
        chosen = search.run(max_solves)
    if chosen is None:
        return SymmetricOutcome(None, search.odd_cycles, search.solves, dummies)
    pairs = tuple(sorted(_oriented(directed, a, b) for a, b in chosen if a < n and b < n))
    return SymmetricOutcome(pairs, search.odd_cycles, search.solves, dummies)


def _rounds_locally(successor: list[int], table: Floats) -> bool:
    """Whether every odd cycle of the assignment has a member that may play a single
    player or a member of another odd cycle (players after ``len(table)`` are dummies):
    then rounding loses no pair, and branch and bound closes the small gap quickly."""
    n = len(table)
    cycles = permutation_cycles(successor)
    single = [c[0] for c in cycles if (len(c) == 1 and c[0] < n) or (len(c) == 2 and c[1] >= n)]
    odd = [[v for v in c if v < n] for c in cycles if len(c) % 2 and len(c) > 1]
    for k, members in enumerate(odd):
        others = single + [v for j, cycle in enumerate(odd) if j != k for v in cycle]
        if not others or not np.isfinite(table[np.ix_(members, others)]).any():
            return False
    return True


class _Branching:
    """Best-first branch and bound on odd cycles, which can pause and resume.

    Best first: the popped bound is <= every open bound, and the branches of a node
    cover all its matchings, so an integral node popped is optimal (module notes). A
    pause puts the popped node back; as nodes order by (value, creation), resuming pops
    exactly what an uninterrupted search would have.
    """

    def __init__(self, root: Floats) -> None:
        self.first = _Node.solve(root, 0)
        self.heap = [self.first]
        self.solves = 1
        self.odd_cycles = len(self.first.rounded()[0])
        self.failed = False

    def run(self, max_solves: int) -> list[tuple[int, int]] | None:
        """The optimal node's pairs, or None: paused at ``max_solves`` or failed."""
        while self.heap and not self.failed:
            node = heapq.heappop(self.heap)
            odd, chosen = node.rounded()
            if not odd:
                return chosen
            cycle = min(odd, key=len)
            if not cycle:
                self.failed = True  # an even cycle with unequal halves: not optimal
            elif self.solves + len(cycle) > max_solves:
                heapq.heappush(self.heap, node)
                return None
            else:
                for drop in cycle:
                    branch = _Node.solve(_forbid(node.matrix, cycle, drop), self.solves)
                    heapq.heappush(self.heap, branch)
                    self.solves += 1
        return None


@dataclass(order=True)
class _Node:
    """One branch: its assignment's value (a lower bound), then creation order (ties)."""

    value: float
    order: int
    matrix: Floats = field(compare=False)
    successor: list[int] = field(compare=False)

    @staticmethod
    def solve(matrix: Floats, order: int) -> _Node:
        rows, successor = linear_sum_assignment(matrix)
        return _Node(float(matrix[rows, successor].sum()), order, matrix, successor.tolist())

    def rounded(self) -> tuple[list[list[int]], list[tuple[int, int]]]:
        """(odd cycles, pairs of the even ones halved); an even cycle whose halves differ
        (impossible for an optimal assignment) is reported as ``[]`` to stop the search."""
        odd: list[list[int]] = []
        chosen: list[tuple[int, int]] = []
        for cycle in permutation_cycles(self.successor):
            if len(cycle) == 2:  # the matrix is symmetric: both halves are this pair
                chosen.append((cycle[0], cycle[1]))
            elif len(cycle) % 2 and len(cycle) > 1:
                odd.append(cycle)
            elif len(cycle) > 1:
                half = _cheaper_half(self.matrix, cycle)
                if half is None:
                    odd.append([])
                chosen += half or []
        return odd, chosen


def _forbid(matrix: Floats, cycle: list[int], drop: int) -> Floats:
    """The branch where ``drop`` is not paired inside ``cycle``. An odd set cannot be
    matched within itself, so every matching lies in the branch of some member."""
    branch = matrix.copy()
    others = [v for v in cycle if v != drop]
    branch[drop, others] = np.inf
    branch[others, drop] = np.inf
    return branch


def _with_dummies(table: Floats, weight: float) -> tuple[Floats, int]:
    """The assignment matrix: pair costs, ``W`` on the diagonal, one dummy per odd component."""
    n = len(table)
    legal = np.isfinite(table)
    np.fill_diagonal(legal, False)
    odd = [members for members in components(legal) if len(members) % 2 and len(members) > 1]
    size = n + len(odd)
    matrix: Floats = np.full((size, size), np.inf)
    matrix[:n, :n] = table
    for d, members in enumerate(odd):
        matrix[n + d, members] = matrix[members, n + d] = 0.0
    np.fill_diagonal(matrix, weight)
    return matrix, len(odd)


def components(legal: Bools) -> list[list[int]]:
    """Connected components of a symmetric adjacency matrix, in the order of their smallest
    members (the order of ``scipy.sparse.csgraph.connected_components``' labels, whose
    call costs ~150 us at 30 players against ~20 us here).

    >>> components(np.array([[0, 0, 1], [0, 0, 0], [1, 0, 0]], dtype=bool))
    [[0, 2], [1]]

    Notes: O(n + edges).
    """
    rows, cols = np.nonzero(legal)
    neighbours: list[list[int]] = [[] for _ in range(len(legal))]
    for a, b in zip(rows.tolist(), cols.tolist(), strict=True):
        neighbours[a].append(b)
    seen = [False] * len(legal)
    return [
        sorted(breadth_first_component(neighbours, start, seen))
        for start in range(len(legal))
        if not seen[start]
    ]


def _cheaper_half(matrix: Floats, cycle: list[int]) -> list[tuple[int, int]] | None:
    """One alternate half of an even cycle; None if the halves' costs differ (see proof)."""
    k = len(cycle)
    edges = [(cycle[i], cycle[(i + 1) % k]) for i in range(k)]
    halves = [edges[start::2] for start in (0, 1)]
    costs = [sum(float(matrix[a, b]) for a, b in half) for half in halves]
    if costs[0] != costs[1]:
        return None
    return halves[0]


def _oriented(directed: Floats, a: int, b: int) -> tuple[int, int]:
    """(BW, SC2): the cheaper side choice; on a tie the lower index plays BW (as ``undirected``)."""
    ab, ba = directed[a, b], directed[b, a]
    return (a, b) if ab < ba or (ab == ba and a < b) else (b, a)


def breadth_first_component(neighbours: list[list[int]], start: int, seen: list[bool]) -> list[int]:
    """The component of ``start`` in ``neighbours`` lists, in breadth-first order; marks
    its members in ``seen``."""
    seen[start] = True
    members = [start]
    for v in members:
        for u in neighbours[v]:
            if not seen[u]:
                seen[u] = True
                members.append(u)
    return members
