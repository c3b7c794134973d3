"""The exact optimum of a 1v1 wave: blossom matching on a sparse graph, proved by its duals.

The objective is lexicographic: most pairs, then least total cost. Giving every
edge the weight ``W - cost`` with ``W`` above any possible difference in total
cost turns it into one maximum-weight matching (docs/adr/0011).

The full pair graph is dense (every pair inside a window of 75+ MMR), but an
optimum only uses pairs close in rating. So the blossom runs on the ``k``-nearest
graph and its dual solution is then checked against *every* legal pair: an edge
with negative reduced cost is added and the solve repeated. When no edge violates
the duals, LP duality proves the matching optimal on the full graph.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from matcher.duel.blossom import BlossomSolution, max_weight_matching
from matcher.duel.graph import DuelArrays, Ints, edges_in_ranges, nearest_edges, undirected


@dataclass(frozen=True, slots=True)
class ExactMatching:
    """Optimal pairs ``(bw_player, sc2_player)`` and how the proof went."""

    pairs: tuple[tuple[int, int], ...]
    rounds: int
    edges: int


@dataclass
class _Duals:
    """The solution of one round, over all players of the wave."""

    mate: Ints
    vertex: Ints
    top: Ints
    chains: dict[int, list[tuple[int, int]]]


def big_weight(arrays: DuelArrays, pairs: int | None = None) -> int:
    """A ``W`` such that one more pair outweighs any difference in total cost.

    ``pairs`` bounds how many pairs that difference may span (default: all ``n / 2``).

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> arrays = duel_arrays([DuelPlayer("a", 1, None)], ("m",), Window(75, 25), DuelConfig())
    >>> big_weight(arrays)
    5627
    """
    spread = arrays.max_radius() ** 2 + 2 * arrays.bonus * int(arrays.wait.max(initial=0)) + 1
    return ((arrays.size // 2 if pairs is None else pairs) + 1) * spread + 1


def exact_matching(arrays: DuelArrays, k: int = 4, max_rounds: int = 50) -> ExactMatching:
    """Return an optimal matching of the wave (most pairs, then least cost).

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> exact_matching(arrays).pairs
    ((1, 0),)

    Notes: each round is O(n^3) worst case (blossom); rounds are few in practice,
    as the k-nearest graph nearly always holds an optimum.
    """
    u, v = nearest_edges(arrays, k)
    weight = big_weight(arrays)
    for round_number in range(1, max_rounds + 1):
        bw, sc2, c = undirected(arrays, u, v)
        duals, matched = _solve(arrays.size, bw, sc2, weight - c)
        forest = _Forest.of_chains(duals.chains)
        extra_u, extra_v = _violations(arrays, duals.vertex, duals.top, forest.common_duals, weight)
        if not len(extra_u) or round_number == max_rounds:
            pairs = tuple(zip(bw[matched].tolist(), sc2[matched].tolist(), strict=True))
            return ExactMatching(tuple(sorted(pairs)), round_number, len(bw))
        u, v = np.concatenate([u, extra_u]), np.concatenate([v, extra_v])
    raise AssertionError("unreachable")  # pragma: no cover


def _solve(n: int, bw: Ints, sc2: Ints, weights: Ints) -> tuple[_Duals, Ints]:
    """Blossom per connected component; returns global duals and the matched edge indices."""
    duals = _Duals(np.full(n, -1), np.zeros(n, dtype=np.int64), np.full(n, -1), {})
    graph = coo_matrix((np.ones(len(bw)), (bw, sc2)), shape=(n, n))
    count, label = connected_components(graph, directed=False)
    members = np.argsort(label, kind="stable")
    bounds = np.searchsorted(label[members], np.arange(count + 1))
    edge_component = label[bw] if len(bw) else np.zeros(0, dtype=np.int64)
    edge_order = np.argsort(edge_component, kind="stable")
    edge_bounds = np.searchsorted(edge_component[edge_order], np.arange(count + 1))
    matched: list[int] = []
    for comp in range(count):
        edges = edge_order[edge_bounds[comp] : edge_bounds[comp + 1]]
        if not len(edges):
            continue
        nodes = members[bounds[comp] : bounds[comp + 1]]
        local = {int(g): i for i, g in enumerate(nodes)}
        triples = [
            (local[a], local[b], w)
            for a, b, w in zip(
                bw[edges].tolist(), sc2[edges].tolist(), weights[edges].tolist(), strict=True
            )
        ]
        solution = max_weight_matching(len(nodes), triples)
        _store(duals, nodes, solution, 2 * n * comp)
        matched.extend(
            int(e) for e, (a, b, _) in zip(edges, triples, strict=True) if solution.mate[a] == b
        )
    return duals, np.array(sorted(matched), dtype=np.int64)


def _store(duals: _Duals, nodes: Ints, solution: BlossomSolution, offset: int) -> None:
    for i, g in enumerate(nodes.tolist()):
        partner = solution.mate[i]
        duals.mate[g] = int(nodes[partner]) if partner >= 0 else -1
        duals.vertex[g] = solution.vertex_dual[i]
        chain: list[tuple[int, int]] = []
        b = solution.blossom_parent[i]
        while b != -1:
            chain.append((offset + b, solution.blossom_dual.get(b, 0)))
            b = solution.blossom_parent[b]
        if chain:
            duals.top[g] = chain[-1][0]
            duals.chains[g] = chain


def violated_pairs(arrays: DuelArrays, solution: BlossomSolution, weight: int) -> tuple[Ints, Ints]:
    """Legal pairs ``(bw, sc2)`` of the whole wave that ``solution``'s duals do not cover.

    ``solution`` is a blossom solve over all players of ``arrays`` with edge weights
    ``weight - cost``; no violated pair proves its matching optimal on every legal pair.

    Notes: O(n * blossom depth) array work, then O(n log n + pairs inside the duals' reach).
    """
    n = arrays.size
    parent = np.array(solution.blossom_parent, dtype=np.int64)
    blossom_dual = np.zeros(len(parent), dtype=np.int64)
    for b, z in solution.blossom_dual.items():
        blossom_dual[b] = z
    levels = []  # ancestors of every player, innermost blossom first
    above = parent[:n]
    while (above >= 0).any():
        levels.append(above)
        above = np.where(above >= 0, parent[np.maximum(above, 0)], -1)
    vertex = np.array(solution.vertex_dual, dtype=np.int64)
    if not levels:
        return _violations(arrays, vertex, np.full(n, -1), lambda a, b: a * 0, weight)
    inner_first = np.array(levels)
    depth = (inner_first >= 0).sum(axis=0)
    players = np.flatnonzero(depth > 0)
    top = np.full(n, -1, dtype=np.int64)
    top[players] = inner_first[depth[players] - 1, players]
    rows = np.arange(len(inner_first))[:, None]
    outer_first = np.where(
        rows < depth[players], inner_first[np.maximum(depth[players] - 1 - rows, 0), players], -1
    )
    forest = _Forest(players, outer_first, np.where(outer_first >= 0, blossom_dual[outer_first], 0))
    return _violations(arrays, vertex, top, forest.common_duals, weight)


def _violations(
    arrays: DuelArrays,
    vertex: Ints,
    top: Ints,
    common_duals: Callable[[Ints, Ints], Ints],
    weight: int,
) -> tuple[Ints, Ints]:
    """Legal edges whose reduced cost under the duals is negative (none: optimal).

    ``vertex``: the players' duals; ``top``: each player's outermost blossom (-1: none);
    ``common_duals(a, b)``: summed duals of the blossoms holding both of each pair.
    """
    slack = vertex - weight - 2 * arrays.bonus * arrays.wait
    sc2_side = arrays.sc2_order
    if not len(sc2_side) or not len(arrays.bw_order):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    floor = int(slack[sc2_side].min())
    room = -(slack + floor)
    # +1 absorbs the float rounding of the square root; the exact test follows.
    reach = np.where(room > 0, np.floor(np.sqrt(np.maximum(room, 0) / 2)).astype(np.int64) + 1, -1)
    reach = np.minimum(reach, arrays.max_radius())
    u, v = edges_in_ranges(arrays, arrays.bw - reach, arrays.bw + reach)
    diff = arrays.bw[u] - arrays.sc2[v]
    reduced = slack[u] + slack[v] + 2 * diff * diff
    shared = np.flatnonzero((top[u] == top[v]) & (top[u] >= 0) & (reduced < 0))
    if len(shared):
        reduced[shared] += 2 * common_duals(u[shared], v[shared])
    bad = reduced < 0
    return u[bad], v[bad]


@dataclass(frozen=True)
class _Forest:
    """The blossom forest over the players, for "which blossoms hold both" questions.

    ``outer_first[d, i]``: the blossom at depth ``d`` (0: outermost) above player
    ``players[i]`` (-1 below its innermost one); ``duals`` the blossoms' duals, same shape.
    """

    players: Ints
    outer_first: Ints
    duals: Ints

    @staticmethod
    def of_chains(chains: dict[int, list[tuple[int, int]]]) -> _Forest:
        """From per-player chains ``[(blossom, dual), ...]``, innermost first."""
        players = np.array(sorted(chains), dtype=np.int64)
        if not len(players):
            empty = np.zeros((0, 0), dtype=np.int64)
            return _Forest(players, empty, empty)
        lengths = np.array([len(chains[g]) for g in players.tolist()], dtype=np.int64)
        total = int(lengths.sum())
        flat = np.fromiter(
            (x for g in players.tolist() for entry in reversed(chains[g]) for x in entry),
            dtype=np.int64,
            count=2 * total,
        )
        column = np.repeat(np.arange(len(players)), lengths)
        row = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        ids = np.full((int(lengths.max()), len(players)), -1, dtype=np.int64)
        duals = np.zeros_like(ids)
        ids[row, column], duals[row, column] = flat[0::2], flat[1::2]
        return _Forest(players, ids, duals)

    def common_duals(self, a: Ints, b: Ints) -> Ints:
        """Per pair (two different players under one outermost blossom), the summed duals
        of the blossoms holding both.

        Listing the players so that each blossom's players are contiguous (sorted by their
        blossoms, outermost first), the blossoms holding both ``a`` and ``b`` are those
        above their lowest common one, whose sum ``S`` (its dual plus its ancestors') is the
        minimum of ``S`` over the lowest common blossoms of the neighbours between them
        (``S`` only grows downwards: duals are >= 0). A sparse table answers those range
        minima for all pairs at once.

        Notes: O(players * depth + pairs * log players).
        """
        order = np.lexsort(self.outer_first[::-1])
        ids = self.outer_first[:, order]
        sums = np.cumsum(self.duals, axis=0)[:, order]
        position = np.full(int(max(a.max(), b.max(), self.players.max())) + 1, -1, dtype=np.int64)
        position[self.players[order]] = np.arange(len(order))
        same = (ids[:, :-1] == ids[:, 1:]) & (ids[:, :-1] >= 0)
        shared_depth = np.where(same.all(axis=0), len(ids), np.argmin(same, axis=0))
        pair = np.arange(len(order) - 1)
        gaps = np.where(shared_depth > 0, sums[np.maximum(shared_depth - 1, 0), pair], 0)
        first = np.minimum(position[a], position[b])
        last = np.maximum(position[a], position[b])
        table = [gaps]
        while (1 << len(table)) <= len(gaps):
            previous, half = table[-1], 1 << (len(table) - 1)
            table.append(np.minimum(previous[:-half], previous[half:]))
        level = np.floor(np.log2(np.maximum(last - first, 1))).astype(np.int64)
        result = np.empty(len(a), dtype=np.int64)
        for k in np.unique(level).tolist():
            pick = level == k
            row = table[k]
            result[pick] = np.minimum(row[first[pick]], row[last[pick] - (1 << k)])
        return result
