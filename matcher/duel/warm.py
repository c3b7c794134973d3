"""Mid-size waves of ``optimal``: the LP relaxation's pairs and duals, finished by the blossom.

The symmetric assignment (:mod:`matcher.duel.symmetric`) solves the LP relaxation of
the matching; on 1-D costs it is integral except for a few odd cycles, yet rounding
those cycles can cost a pair or force a long chain of side changes (measured at
n = 1,000: one alternating component of ~500 players). Edmonds' primal-dual method
repairs exactly that, and it needs few stages when it starts from the relaxation:

1. the relaxation on the k-nearest candidate graph, one sparse assignment (LAPJV);
2. its LP duals, from shortest paths in the assignment's residual graph (Bellman-Ford;
   no negative cycle, as the assignment is optimal): row and column potentials
   ``u, v`` with ``T[i, k] - u[i] - v[k] >= 0``, tight on the permutation;
3. ``pi[x] = u[x] + v[x]`` is an optimal dual of the fractional matching LP
   (``pi[a] + pi[b] <= 2 cost(a, b)``, ``pi[x] <= W``, tight on every cycle edge), so
   ``W - pi`` is a feasible blossom dual with every cycle edge tight;
4. the cycles' alternate edges as the starting matching (one player per odd cycle
   single) and :func:`matcher.duel.blossom.warm_max_weight_matching` to finish.

The result is a maximum-weight matching of the candidate graph, so optimal whenever
the candidate graph holds an optimum (:mod:`matcher.duel.exact` proves that property
with duals; here it is measured, docs/benchmarks/duel.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from matcher.duel.bands import split_cycles
from matcher.duel.blossom import BlossomSolution, WarmStart, warm_max_weight_matching
from matcher.duel.exact import big_weight, violated_pairs
from matcher.duel.graph import (
    DuelArrays,
    Ints,
    aligned_edges,
    nearest_edges,
    undirected,
    unique_sorted,
)
from matcher.duel.relaxed import sparse_assignment, symmetric_entries


@dataclass(frozen=True, slots=True)
class WarmOutcome:
    """Pairs ``(bw_player, sc2_player)`` and how they were found.

    ``proven``: no legal pair of the wave violates the final duals, so the pairs are an
    optimum on *every* legal pair, not only the candidate graph. ``odd_cycles``: odd
    cycles of the first relaxation; ``rounds``: candidate graphs solved.
    """

    pairs: tuple[tuple[int, int], ...]
    proven: bool
    odd_cycles: int
    rounds: int


def warm_pairs(
    arrays: DuelArrays,
    k: int = 6,
    max_rounds: int = 4,
    prove: bool = True,
    max_stages: int | None = None,
    aligned: int = 0,
) -> WarmOutcome | None:
    """An optimal matching of the wave via the relaxation and a warm blossom, or None.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390), DuelPlayer("d", None, 1452)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> outcome = warm_pairs(arrays)
    >>> outcome.pairs, outcome.proven
    (((0, 3), (1, 2)), True)

    Each round solves the ``k``-nearest candidate graph (plus the pairs earlier rounds
    found uncovered) and checks its duals against every legal pair, as
    :func:`matcher.duel.exact.exact_matching` does. After ``max_rounds`` the last
    round's pairs are returned unproven. ``aligned`` adds the edges of
    :func:`matcher.duel.graph.aligned_edges` to the candidate graph. ``prove=False``
    solves the candidate graph once and skips the check (reading the nested blossoms'
    duals cost about as much again as the solve at 1,000 players); the pairs are then
    optimal on the candidate graph only.

    Notes: per round one sparse assignment, a vectorised Bellman-Ford on O(n k) edges and
    the blossom's remaining stages (few from this start; O(n + m) per dual change). None
    when the relaxation's duals do not check out, ``max_stages`` (default 10 n) stages do
    not suffice, or blossoms nest deeper than Python's recursion limit: the caller then
    takes another path.
    """
    n = arrays.size
    u, v = nearest_edges(arrays, k)
    if aligned:
        more_u, more_v = aligned_edges(arrays, aligned)
        keys = unique_sorted(np.concatenate([u * n + v, more_u * n + more_v]))
        u, v = keys // n, keys % n
    if not len(u):  # no legal pair at all: the empty matching is the optimum
        return WarmOutcome((), True, 0, 1)
    weight = big_weight(arrays)
    found: WarmOutcome | None = None
    for rounds in range(1, max_rounds + 1):
        bw, sc2, cost = undirected(arrays, u, v)
        try:
            solved = _solve(n, bw, sc2, cost, weight, max_stages or 10 * n)
        except RecursionError:
            return None
        if solved is None:
            return None
        solution, odd = solved
        partner = np.array(solution.mate, dtype=np.int64)
        chosen = partner[bw] == sc2
        pairs = tuple(sorted(zip(bw[chosen].tolist(), sc2[chosen].tolist(), strict=True)))
        if not prove:
            return WarmOutcome(pairs, False, odd, rounds)
        extra_u, extra_v = violated_pairs(arrays, solution, weight)
        first_odd = odd if found is None else found.odd_cycles
        found = WarmOutcome(pairs, not len(extra_u), first_odd, rounds)
        if found.proven:
            return found
        u, v = np.concatenate([u, extra_u]), np.concatenate([v, extra_v])
    return found


def _solve(
    n: int, bw: Ints, sc2: Ints, cost: Ints, weight: int, max_stages: int
) -> tuple[BlossomSolution, int] | None:
    """The relaxation's pairs and duals on one candidate graph, finished by the blossom."""
    rows, cols, values = symmetric_entries(n, bw, sc2, cost, weight)
    successor = sparse_assignment(n, rows, cols, values)
    pi = assignment_duals(n, rows, cols, values, successor)
    if pi is None:
        return None
    dual = weight - pi
    mate, odd = start_mate(successor, n)
    edge_weight = weight - cost
    if not _feasible(dual, mate, bw, sc2, edge_weight):
        return None
    solution = warm_max_weight_matching(
        n,
        list(zip(bw.tolist(), sc2.tolist(), edge_weight.tolist(), strict=True)),
        WarmStart(mate.tolist(), dual.tolist()),
        max_stages,
    )
    return None if solution is None else (solution, odd)


def start_mate(successor: Ints, n: int) -> tuple[Ints, int]:
    """The blossom's starting pairs among players ``0..n-1`` (later indices are dummies,
    left out): 2-cycles, and alternate edges of longer cycles (one member of an odd cycle
    single); with the number of odd cycles.

    >>> mate, odd = start_mate(np.array([1, 0, 3, 4, 2]), 5)
    >>> mate.tolist(), odd
    ([1, 0, 3, 2, -1], 1)
    """
    firsts, longer = split_cycles(successor)
    firsts = firsts[(firsts < n) & (successor[firsts] < n)]
    mate = np.full(n, -1, dtype=np.int64)
    mate[firsts], mate[successor[firsts]] = successor[firsts], firsts
    odd = 0
    for cycle in longer:
        odd += len(cycle) % 2
        for i in range(0, len(cycle) - 1, 2):
            if cycle[i] < n and cycle[i + 1] < n:
                mate[cycle[i]], mate[cycle[i + 1]] = cycle[i + 1], cycle[i]
    return mate, odd


def assignment_duals(n: int, rows: Ints, cols: Ints, values: Ints, successor: Ints) -> Ints | None:
    """``pi = u + v`` from column potentials by shortest paths, or None if they fail.

    Column ``successor[i]`` may hand row ``i`` to column ``c`` at ``T[i, c] -
    T[i, successor[i]]``; distances from a source joined to every column at 0 give
    potentials ``v`` with ``v[c] <= v[successor[i]] + T[i, c] - T[i, successor[i]]``
    (Bellman-Ford, vectorised: one pass over all edges per round, until no distance
    changes; an optimal assignment has no negative cycle, so at most n rounds).
    """
    assigned = np.zeros(n, dtype=np.int64)
    on_permutation = cols == successor[rows]
    assigned[rows[on_permutation]] = values[on_permutation]
    tail, head = successor[rows], cols
    step = values - assigned[rows]
    off = ~on_permutation
    tail, head, step = tail[off], head[off], step[off]
    v = np.zeros(n, dtype=np.int64)
    for _ in range(n + 1):
        reach = v[tail] + step
        better = reach < v[head]
        if not better.any():
            break
        np.minimum.at(v, head[better], reach[better])
    else:
        return None  # a negative cycle: the assignment was not optimal
    u = assigned - v[successor]
    if (values - u[rows] - v[cols]).min(initial=0) < 0:
        return None
    pi: Ints = u + v
    return pi


def _feasible(dual: Ints, mate: Ints, bw: Ints, sc2: Ints, edge_weight: Ints) -> bool:
    """Blossom duals: >= 0, every edge covered, every starting pair tight."""
    slack = dual[bw] + dual[sc2] - 2 * edge_weight
    paired = mate[bw] == sc2
    return bool(dual.min() >= 0 and slack.min() >= 0 and not slack[paired].any())
