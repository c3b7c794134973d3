"""Small waves of ``optimal``: the blossom finishes the relaxation's fractional cover.

When the first symmetric assignment (:mod:`matcher.duel.symmetric`) has odd cycles and
branch and bound does not close the gap within a few assignments:

1. the assignment's LP duals (shortest paths, :func:`matcher.duel.warm.assignment_duals`)
   give a feasible blossom dual ``W - pi`` that is tight on every cycle edge;
2. :func:`matcher.duel.blossom.warm_max_weight_matching` finishes the matching on
   *every* legal pair from that start: a maximum-weight matching, that is an optimum of
   the wave (most pairs, then least cost; docs/adr/0011), proved by its duals.

Among several optima, the one this start leads to is the wave's decision (docs/adr/0065);
it is deterministic (same table, same start, same blossom).
"""

from __future__ import annotations

import numpy as np

from matcher.duel.bands import Floats
from matcher.duel.blossom import WarmStart, warm_max_weight_matching
from matcher.duel.graph import Ints
from matcher.duel.warm import assignment_duals, start_mate


def blossom_from_relaxation(
    table: Floats, matrix: Floats, successor: Ints, weight: int
) -> list[tuple[int, int]] | None:
    """An optimal matching of the wave, pairs ``(a, b)`` with ``a < b``; None when the
    relaxation's duals do not give a valid start or the blossom needs over ``4 n`` stages.

    ``table``: the symmetric pair costs of the ``n`` players (inf: illegal); ``matrix``:
    the assignment solved (``table``, ``weight`` on the diagonal, dummy players after
    ``n``), ``successor`` its optimal permutation.

    Three players who may all play each other; the relaxation is the 3-cycle. Pair
    (0, 1) is the cheapest:

    >>> inf = np.inf
    >>> table = np.array([[inf, 0.0, 4.0], [0.0, inf, 1.0], [4.0, 1.0, inf]])
    >>> matrix = table.copy()
    >>> np.fill_diagonal(matrix, 100.0)
    >>> blossom_from_relaxation(table, matrix, np.array([1, 2, 0]), 100)
    [(0, 1)]

    Notes: one Bellman-Ford on the matrix, then the blossom's remaining stages (few from
    this start; O(n + edges) each): about 0.3 ms at 30 players.
    """
    n = len(table)
    rows, cols = np.nonzero(np.isfinite(matrix))
    values = matrix[rows, cols].astype(np.int64)
    pi = assignment_duals(len(matrix), rows, cols, values, successor)
    if pi is None:
        return None
    first, second = np.nonzero(np.triu(np.isfinite(table), 1))
    edge_weight = weight - table[first, second].astype(np.int64)
    mate, _ = start_mate(successor, n)
    dual = weight - pi[:n]
    slack = dual[first] + dual[second] - 2 * edge_weight
    if dual.min(initial=0) < 0 or slack.min(initial=0) < 0 or slack[mate[first] == second].any():
        return None
    edges = list(zip(first.tolist(), second.tolist(), edge_weight.tolist(), strict=True))
    solution = warm_max_weight_matching(n, edges, WarmStart(mate.tolist(), dual.tolist()), 4 * n)
    if solution is None:
        return None
    return [(a, b) for a, b in enumerate(solution.mate) if a < b]
