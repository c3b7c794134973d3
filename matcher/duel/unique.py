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

#: Search steps allowed to count the optima of one tight component before giving up (at
#: most ~90 were needed on 1,000 benchmark waves of 30 players; each costs ~1 us).
MAX_STEPS = 1000


def unique_optimum(
    table: Floats, matrix: Floats, successor: Ints, weight: int
) -> list[tuple[int, int]] | None:
    """The wave's optimal pairs ``(a, b)``, ``a < b``, if the optimum is unique; else None.

    ``table``: the symmetric pair costs of the ``n`` players (inf: illegal); ``matrix``:
    the assignment solved (``table``, ``weight`` on the diagonal, dummy players after
    ``n``), ``successor`` its optimal permutation.

    Three players who may all play each other; the relaxation is the 3-cycle. Pairs
    (0, 1) and (1, 2) both cost 1: two optima. At cost 0 for (0, 1) it is the only one.

    >>> inf = np.inf
    >>> table = np.array([[inf, 1.0, 4.0], [1.0, inf, 1.0], [4.0, 1.0, inf]])
    >>> matrix = table.copy()
    >>> np.fill_diagonal(matrix, 100.0)
    >>> unique_optimum(table, matrix, np.array([1, 2, 0]), 100) is None
    True
    >>> table[0, 1] = table[1, 0] = matrix[0, 1] = matrix[1, 0] = 0.0
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
    mate, _ = start_mate(successor, n)
    dual = weight - pi[:n]
    slack = dual[first] + dual[second] - 2 * edge_weight
    if dual.min(initial=0) < 0 or slack.min(initial=0) < 0 or slack[mate[first] == second].any():
        return None
    edges = list(zip(first.tolist(), second.tolist(), edge_weight.tolist(), strict=True))
    solution = warm_max_weight_matching(n, edges, WarmStart(mate.tolist(), dual.tolist()), 4 * n)
    if solution is None or not _only_optimum(solution, first, second, edge_weight):
        return None
    return [(a, b) for a, b in enumerate(solution.mate) if a < b]


def _only_optimum(solution: BlossomSolution, first: Ints, second: Ints, weight: Ints) -> bool:
    """Whether ``solution.mate`` is the one matching that complementary slackness allows."""
    n = len(solution.mate)
    blossom_dual = solution.blossom_dual
    # Which blossoms hold each player (one column per blossom): a pair's shared dual is the
    # summed dual of the blossoms holding both, one matrix product for every close pair.
    blossoms = sorted(blossom_dual)
    column = {b: k for k, b in enumerate(blossoms)}
    holds = np.zeros((n, len(blossoms)), dtype=np.int64)
    parent = solution.blossom_parent
    for v in range(n):
        b = parent[v]
        while b != -1:
            if b in column:
                holds[v, column[b]] = 1
            b = parent[b]
    z = np.array([blossom_dual[b] for b in blossoms], dtype=np.int64)
    dual = np.array(solution.vertex_dual, dtype=np.int64)
    # Shared duals only add to a slack: a pair whose vertex duals alone leave slack is
    # neither tight nor violated.
    vertex_slack = dual[first] + dual[second] - 2 * weight
    close = np.flatnonzero(vertex_slack <= 0)
    i, j = first[close], second[close]
    slack = vertex_slack[close] + 2 * ((holds[i] & holds[j]) @ z)
    if len(slack) and slack.min() < 0:
        return False  # not dual feasible: not a proof
    tight: list[list[int]] = [[] for _ in range(n)]
    on = slack == 0
    for a, b in zip(i[on].tolist(), j[on].tolist(), strict=True):
        tight[a].append(b)
        tight[b].append(a)
    # The blossoms that every optimum must fill, as a bit set per player.
    positive = np.flatnonzero(z > 0).tolist()
    if len(positive) < 63:  # the bit sets fit an int64: one product
        bits = np.zeros(len(blossoms), dtype=np.int64)
        bits[positive] = np.left_shift(1, np.arange(len(positive), dtype=np.int64))
        inside: list[int] = (holds @ bits).tolist()
    else:
        rows = holds[:, positive].tolist()
        inside = [sum(1 << k for k, held in enumerate(row) if held) for row in rows]
    vertex_dual = solution.vertex_dual
    seen = [False] * n
    for v in range(n):
        if seen[v] or not tight[v]:
            continue
        component = breadth_first_component(tight, v, seen)
        if len(component) == 2 and len(tight[v]) == 1:
            continue  # one tight pair and nothing else tight around it: forced
        if _count(component, tight, vertex_dual, inside) != 1:
            return False
    return True


def _count(
    component: list[int], tight: list[list[int]], vertex_dual: tuple[int, ...], inside: list[int]
) -> int:
    """Matchings of the tight ``component`` meeting complementary slackness: every
    positive-dual player paired, exactly one player of each positive-dual blossom not
    paired inside it. Stops at 2; 0 when the search exceeds :data:`MAX_STEPS`.

    ``inside[v]``: the bit set of the positive-dual blossoms holding v. A pair leaves
    ``inside[v] ^ inside[u]`` (blossoms holding one of them) with a player not paired
    inside; a single player leaves all of its own. A blossom may have one such player,
    and then, its size being odd, has exactly one once all of its players are decided.
    """
    taken = [False] * len(vertex_dual)
    loose = _force(component, tight, vertex_dual, inside, taken)
    if loose < 0:
        return 0
    rest = [v for v in component if not taken[v]]
    options = {
        v: [(u, inside[v] ^ inside[u]) for u in tight[v] if not taken[u]]
        + ([(-1, inside[v])] if vertex_dual[v] == 0 else [])
        for v in rest
    }
    found = steps = 0

    def search(at: int, loose: int) -> None:
        nonlocal found, steps
        steps += 1
        if found >= 2 or steps > MAX_STEPS:
            return
        while at < len(rest) and taken[rest[at]]:
            at += 1
        if at == len(rest):
            found += 1
            return
        v = rest[at]
        taken[v] = True
        for u, apart in options[v]:
            if u < 0:
                if not apart & loose:
                    search(at + 1, loose | apart)
            elif not taken[u] and not apart & loose:
                taken[u] = True
                search(at + 1, loose | apart)
                taken[u] = False
        taken[v] = False

    search(0, loose)
    return found if steps <= MAX_STEPS else 0


def _force(
    component: list[int],
    tight: list[list[int]],
    vertex_dual: tuple[int, ...],
    inside: list[int],
    taken: list[bool],
) -> int:
    """Take the pairs every valid matching has: a positive-dual player with one free tight
    neighbour must pair with it (repeatedly). Returns the blossoms they leave with a
    player not paired inside (see :func:`_count`), or -1 when one would have two."""
    free = {v: len(tight[v]) for v in component}
    stack = [v for v in component if free[v] == 1 and vertex_dual[v] > 0]
    loose = 0
    while stack:
        v = stack.pop()
        if taken[v] or free[v] != 1 or vertex_dual[v] == 0:
            continue
        u = next(u for u in tight[v] if not taken[u])
        taken[v] = taken[u] = True
        if (inside[v] ^ inside[u]) & loose:
            return -1
        loose |= inside[v] ^ inside[u]
        for x in tight[u]:
            if not taken[x]:
                free[x] -= 1
                if free[x] == 1 and vertex_dual[x] > 0:
                    stack.append(x)
    return loose


def breadth_first_component(neighbours: list[list[int]], start: int, seen: list[bool]) -> list[int]:
    """The component of ``start`` in ``neighbours`` lists, in breadth-first order (here the
    tight neighbours, decided together); marks its members in ``seen``."""
    seen[start] = True
    members = [start]
    for v in members:
        for u in neighbours[v]:
            if not seen[u]:
                seen[u] = True
                members.append(u)
    return members
