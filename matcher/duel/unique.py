"""Small waves of ``optimal``: the blossom from the relaxation, kept when its optimum is unique.

When the first symmetric assignment (:mod:`matcher.duel.symmetric`) has odd cycles,
branch and bound needs up to 24 more assignments and then the cold blossom (about
2 ms at 30 players). Here instead:

1. the assignment's LP duals (shortest paths, :func:`matcher.duel.warm.assignment_duals`)
   give a feasible blossom dual ``W - pi`` that is tight on every cycle edge;
2. :func:`matcher.duel.blossom.warm_max_weight_matching` finishes the matching on
   *every* legal pair from that start: a maximum-weight matching, that is an optimum of
   the wave (most pairs, then least cost; docs/adr/0011), with the duals that prove it;
3. complementary slackness says which matchings are optimal: exactly those that use only
   tight edges, cover every vertex of positive dual and fill every blossom of positive
   dual (``(size - 1) / 2`` pairs inside). Counting them on each component of the tight
   graph tells whether the optimum is *unique*.

A unique optimum is what every exact path returns, so it is returned (same pairs, same
sides: the cheaper side choice, the lower index as BW on a tie). With several optima the
caller keeps its own path, whose choice among them is the pinned one (None here).
"""

from __future__ import annotations

import numpy as np

from matcher.duel.bands import Floats
from matcher.duel.blossom import BlossomSolution, WarmStart, warm_max_weight_matching
from matcher.duel.graph import Ints
from matcher.duel.warm import assignment_duals, start_mate

#: Search steps allowed to count the optima of one tight component before giving up.
MAX_STEPS = 2000


def unique_optimum(
    table: Floats, matrix: Floats, successor: Ints, weight: int
) -> list[tuple[int, int]] | None:
    """The wave's optimal pairs ``(a, b)``, ``a < b``, if the optimum is unique; else None.

    ``table``: the symmetric pair costs of the ``n`` players (inf: illegal); ``matrix``:
    the assignment solved (``table``, ``weight`` on the diagonal, dummy players after
    ``n``), ``successor`` its optimal permutation.

    >>> inf = np.inf
    >>> table = np.array([[inf, 1.0, 4.0], [1.0, inf, 1.0], [4.0, 1.0, inf]])
    >>> matrix = table.copy()
    >>> np.fill_diagonal(matrix, 100.0)
    >>> unique_optimum(table, matrix, np.array([1, 2, 0]), 100)
    >>> table[0, 1] = table[1, 0] = 0.0
    >>> unique_optimum(table, matrix, np.array([1, 2, 0]), 100)
    [(0, 1)]

    Notes: one Bellman-Ford on the matrix, the blossom's remaining stages (few from this
    start), then O(edges * blossom depth) and a bounded search per tight component.
    """
    n = len(table)
    rows, cols = np.nonzero(np.isfinite(matrix))
    values = matrix[rows, cols].astype(np.int64)
    pi = assignment_duals(len(matrix), rows, cols, values, successor)
    if pi is None:
        return None
    first, second = np.nonzero(np.triu(np.isfinite(table), 1))
    edge_weight = weight - table[first, second].astype(np.int64)
    edges = list(zip(first.tolist(), second.tolist(), edge_weight.tolist(), strict=True))
    mate, _ = start_mate(successor, n)
    dual = weight - pi[:n]
    slack = dual[first] + dual[second] - 2 * edge_weight
    if dual.min(initial=0) < 0 or slack.min(initial=0) < 0 or slack[mate[first] == second].any():
        return None
    solution = warm_max_weight_matching(n, edges, WarmStart(mate.tolist(), dual.tolist()), 4 * n)
    if solution is None or not _only_optimum(solution, edges):
        return None
    return [(a, b) for a, b in enumerate(solution.mate) if a < b]


def _only_optimum(solution: BlossomSolution, edges: list[tuple[int, int, int]]) -> bool:
    """Whether ``solution.mate`` is the one matching that complementary slackness allows."""
    n = len(solution.mate)
    chain = [_ancestors(solution.blossom_parent, v) for v in range(n)]
    tight: list[list[int]] = [[] for _ in range(n)]
    for i, j, w in edges:
        slack = solution.vertex_dual[i] + solution.vertex_dual[j] - 2 * w
        if chain[i] and chain[j]:
            shared = set(chain[i]).intersection(chain[j])
            slack += 2 * sum(solution.blossom_dual.get(b, 0) for b in shared)
        if slack < 0:
            return False  # not dual feasible: not a proof
        if slack == 0:
            tight[i].append(j)
            tight[j].append(i)
    # The blossoms that every optimum must fill, as indices into each player's list.
    full = [b for b, z in solution.blossom_dual.items() if z > 0]
    inside = [[k for k, b in enumerate(full) if b in chain[v]] for v in range(n)]
    seen = [False] * n
    for v in range(n):
        if seen[v] or not tight[v]:
            continue
        component = _component(tight, v, seen)
        if sum(len(tight[u]) for u in component) == len(component):
            continue  # one pair and nothing else tight around it: forced
        if _count(component, tight, solution.vertex_dual, inside, len(full)) != 1:
            return False
    return True


def _count(
    component: list[int],
    tight: list[list[int]],
    vertex_dual: tuple[int, ...],
    inside: list[list[int]],
    blossoms: int,
) -> int:
    """Matchings of the tight ``component`` meeting complementary slackness: every
    positive-dual player paired, at most (so exactly, by parity) one player of each
    positive-dual blossom not paired inside it. Stops at 2; 0 when the search exceeds
    :data:`MAX_STEPS`."""
    partner: dict[int, int] = {}
    loose = [0] * blossoms  # players of each blossom single or paired outside it
    found = steps = 0

    def search(at: int) -> None:
        nonlocal found, steps
        steps += 1
        if found >= 2 or steps > MAX_STEPS:
            return
        while at < len(component) and component[at] in partner:
            at += 1
        if at == len(component):
            found += all(count == 1 for count, k in zip(loose, range(blossoms)) if _in(k, component, inside))
            return
        v = component[at]
        options = [u for u in tight[v] if u not in partner]
        if vertex_dual[v] == 0:
            options.append(-1)
        for u in options:
            apart = inside[v] if u < 0 else [k for k in inside[v] if k not in inside[u]]
            apart = apart + ([] if u < 0 else [k for k in inside[u] if k not in inside[v]])
            if any(loose[k] for k in apart):
                continue
            for k in apart:
                loose[k] += 1
            partner[v] = u
            if u >= 0:
                partner[u] = v
            search(at + 1)
            del partner[v]
            if u >= 0:
                del partner[u]
            for k in apart:
                loose[k] -= 1

    search(0)
    return found if steps <= MAX_STEPS else 0


def _in(k: int, component: list[int], inside: list[list[int]]) -> bool:
    return any(k in inside[v] for v in component)


def _component(tight: list[list[int]], start: int, seen: list[bool]) -> list[int]:
    """The tight component of ``start`` in breadth-first order (neighbours decided together)."""
    seen[start] = True
    members = [start]
    for v in members:
        for u in tight[v]:
            if not seen[u]:
                seen[u] = True
                members.append(u)
    return members


def _ancestors(parent: tuple[int, ...], v: int) -> list[int]:
    chain = []
    b = parent[v]
    while b != -1:
        chain.append(b)
        b = parent[b]
    return chain
