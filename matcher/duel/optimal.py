"""Strategy ``optimal``: the most pairs inside their windows, then the least total score.

The exact problem is a max-cardinality min-cost matching on a general graph ("both"
players may take either side). Pure-Python blossom is exact but far too slow for a
10,000-player wave, so ``optimal`` solves the LP relaxation instead (docs/adr/0011):

1. The pair graph keeps, for every rating, the ``optimal_neighbours`` nearest
   opposite ratings (:func:`~matcher.duel.graph.nearest_edges`).
2. Every player gets a row and a column; entry ``(u, v)`` is the pair's score and
   the diagonal ``(u, u)`` a "sit out" penalty ``W`` larger than any score
   difference. A min-cost perfect assignment (sparse LAPJV) is a permutation whose
   2-cycles are pairs, fixed points sit out and longer cycles are the fractional
   part of the (half-integral) matching polytope's optimum.
3. If there is no cycle longer than two, the assignment *is* an optimal matching of
   the candidate graph. Otherwise a small wave is re-solved exactly (certified
   blossom, :mod:`matcher.duel.exact`); a large one rounds every long cycle to its
   best alternating half and then augments: an unmatched player takes over a
   partner whose old partner finds another unmatched player.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

from matcher.duel.blossom import max_weight_matching
from matcher.duel.exact import big_weight, exact_matching
from matcher.duel.graph import DuelArrays, Ints, cost, duel_arrays, nearest_edges, undirected
from matcher.duel.model import DuelConfig, DuelPair, DuelPlayer, Window
from matcher.duel.windows import pressure, tier_window


@dataclass(frozen=True, slots=True)
class OptimalOutcome:
    """The pairs of one wave (sorted by BW player rating) and how they were found.

    ``exact`` is True when the pairs are proven optimal: the relaxation was integral
    (optimal on the candidate graph) or the certified blossom solved the wave.
    """

    pairs: tuple[DuelPair, ...]
    pressure: float
    window: Window
    exact: bool
    odd_cycles: int
    moves: int


def optimal_pairs(
    players: Sequence[DuelPlayer],
    active_population: int,
    maps: tuple[str, ...],
    config: DuelConfig,
) -> OptimalOutcome:
    """Pair the valid players of a wave: most pairs first, then least summed score.

    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390)]
    >>> outcome = optimal_pairs(players, 100, ("m",), DuelConfig(window_rule="longer"))
    >>> [(p.bw.player_id, p.sc2.player_id, p.diff) for p in outcome.pairs]
    [('b', 'a', 50)]

    Notes: O(n k log(n k)) to build the graph plus one sparse assignment
    (near-linear on these local graphs); exact blossom only for waves of at most
    ``optimal_exact_limit`` players whose relaxation is fractional.
    """
    wave_pressure = pressure(len(players), active_population, config)
    window = tier_window(wave_pressure, config)
    arrays = duel_arrays(players, maps, window, config)
    pairs, exact, odd, moves = _solve(arrays, config)
    pairs.sort(key=lambda pair: (int(arrays.bw[pair[0]]), pair[0]))
    return OptimalOutcome(
        tuple(DuelPair(players[a], players[b]) for a, b in pairs),
        wave_pressure,
        window,
        exact,
        odd,
        moves,
    )


def _solve(arrays: DuelArrays, config: DuelConfig) -> tuple[list[tuple[int, int]], bool, int, int]:
    u, v = nearest_edges(arrays, config.optimal_neighbours)
    bw, sc2, c = undirected(arrays, u, v)
    if not len(bw):
        return [], True, 0, 0
    successor = _relaxation(arrays, bw, sc2, c)
    oriented = {(int(a), int(b)): (int(a), int(b)) for a, b in zip(bw, sc2, strict=True)}
    oriented.update({(b, a): pair for (a, b), pair in list(oriented.items())})
    cycles = _cycles(successor)
    long_cycles = [cycle for cycle in cycles if len(cycle) > 2]
    if not long_cycles:
        return [oriented[(cy[0], cy[1])] for cy in cycles if len(cy) == 2], True, 0, 0
    odd = sum(len(cycle) % 2 for cycle in long_cycles)
    if arrays.size <= config.optimal_exact_limit:
        return list(exact_matching(arrays).pairs), True, odd, 0
    mate = np.full(arrays.size, -1, dtype=np.int64)
    dropped: list[int] = []
    for cycle in cycles:
        chosen = _round_cycle(arrays, cycle, oriented)
        for a, b in chosen:
            mate[a], mate[b] = b, a
        if len(cycle) > 2 and len(cycle) % 2:
            dropped.extend(x for x in cycle if mate[x] < 0)
    repair = _LocalRepair(arrays, bw, sc2, c, config.optimal_repair_reach)
    moves = sum(repair.resolve(mate, x) for x in dropped)
    moves += _augment(mate, bw, sc2, config.optimal_improve_rounds)
    pairs = [oriented[(a, int(mate[a]))] for a in range(arrays.size) if a < mate[a]]
    return pairs, False, odd, moves


def _relaxation(arrays: DuelArrays, bw: Ints, sc2: Ints, c: Ints) -> Ints:
    """Min-cost perfect assignment of the symmetric pair matrix with sit-out diagonal."""
    n = arrays.size
    weight = big_weight(arrays)
    # Entries must be positive (scipy drops explicit zeros); a uniform shift keeps the optimum.
    shift = 1 - min(int(c.min()), 0)
    diagonal = np.arange(n, dtype=np.int64)
    rows = np.concatenate([bw, sc2, diagonal])
    cols = np.concatenate([sc2, bw, diagonal])
    data = np.concatenate([c, c, np.full(n, weight, dtype=np.int64)]) + shift
    matrix = csr_matrix((data.astype(np.float64), (rows, cols)), shape=(n, n))
    _, successor = min_weight_full_bipartite_matching(matrix)
    result: Ints = successor.astype(np.int64)
    return result


def _cycles(successor: Ints) -> list[list[int]]:
    """The cycles of a permutation, each starting at its smallest member (deterministic)."""
    seen = np.zeros(len(successor), dtype=bool)
    cycles: list[list[int]] = []
    following = successor.tolist()
    for start in range(len(following)):
        if seen[start]:
            continue
        cycle = [start]
        seen[start] = True
        at = following[start]
        while at != start:
            cycle.append(at)
            seen[at] = True
            at = following[at]
        cycles.append(cycle)
    return cycles


def _round_cycle(
    arrays: DuelArrays, cycle: list[int], oriented: dict[tuple[int, int], tuple[int, int]]
) -> list[tuple[int, int]]:
    """Best set of alternate edges of a cycle; an odd cycle leaves its best player out."""
    k = len(cycle)
    if k < 2:
        return []
    if k == 2:
        return [(cycle[0], cycle[1])]
    edges = [oriented[(cycle[i], cycle[(i + 1) % k])] for i in range(k)]
    u = np.array([a for a, _ in edges], dtype=np.int64)
    v = np.array([b for _, b in edges], dtype=np.int64)
    costs = cost(arrays, u, v).tolist()
    options = range(k) if k % 2 else range(2)
    # Starting at edge s, take edges s, s+2, ...: (k // 2) edges; odd cycles drop one vertex.
    best = min(options, key=lambda s: (sum(costs[(s + 2 * i) % k] for i in range(k // 2)), s))
    return [(cycle[(best + 2 * i) % k], cycle[(best + 2 * i + 1) % k]) for i in range(k // 2)]


class _LocalRepair:
    """Exact blossom on the rating neighbourhood of a player an odd cycle left out.

    The neighbourhood is the ``reach`` nearest ratings on each side of each of the
    player's ratings, closed under the current pairs, so the current pairs are a
    feasible answer of the small problem and the re-solve can only improve them.
    """

    def __init__(self, arrays: DuelArrays, bw: Ints, sc2: Ints, c: Ints, reach: int) -> None:
        self.reach = reach
        self.weight = big_weight(arrays)
        players = np.concatenate([arrays.bw_order, arrays.sc2_order])
        ratings = np.concatenate([arrays.bw_sorted, arrays.sc2_sorted])
        order = np.lexsort((players, ratings))
        self.sorted_players = players[order]
        self.positions: dict[int, list[int]] = {}
        for position, player in enumerate(self.sorted_players.tolist()):
            self.positions.setdefault(player, []).append(position)
        self.edges: dict[int, list[tuple[int, int, int]]] = {}
        for a, b, cc in zip(bw.tolist(), sc2.tolist(), c.tolist(), strict=True):
            self.edges.setdefault(a, []).append((a, b, cc))
            self.edges.setdefault(b, []).append((a, b, cc))

    def resolve(self, mate: Ints, x: int) -> int:
        """Re-solve around ``x``; return the number of pairs gained."""
        if mate[x] >= 0:
            return 0
        total = len(self.sorted_players)
        members: set[int] = set()
        for at in self.positions.get(x, []):
            lo, hi = max(0, at - self.reach), min(total, at + self.reach + 1)
            members.update(self.sorted_players[lo:hi].tolist())
        members.update(int(mate[m]) for m in list(members) if mate[m] >= 0)
        nodes = sorted(members)
        local = {g: i for i, g in enumerate(nodes)}
        triples = sorted(
            {
                (local[a], local[b], self.weight - cc)
                for g in nodes
                for a, b, cc in self.edges.get(g, [])
                if a in local and b in local
            }
        )
        before = sum(1 for g in nodes if mate[g] >= 0)
        solution = max_weight_matching(len(nodes), triples)
        for i, g in enumerate(nodes):
            mate[g] = nodes[solution.mate[i]] if solution.mate[i] >= 0 else -1
        return (sum(1 for g in nodes if mate[g] >= 0) - before) // 2


def _augment(mate: Ints, bw: Ints, sc2: Ints, rounds: int) -> int:
    """Length-1 and length-3 augmenting paths from unmatched players; returns pairs added.

    Only cardinality is repaired here: the rounding loses at most one pair per odd
    cycle, and a short augmenting path nearly always wins it back.
    """
    neighbours: dict[int, list[int]] = {}
    for a, b in zip(bw.tolist(), sc2.tolist(), strict=True):
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    moves = 0
    for _ in range(rounds):
        before = moves
        for x in [int(i) for i in np.flatnonzero(mate < 0)]:
            if mate[x] >= 0:
                continue
            moves += _augment_from(mate, neighbours, x)
        if moves == before:
            break
    return moves


def _augment_from(mate: Ints, neighbours: dict[int, list[int]], x: int) -> int:
    near = neighbours.get(x, [])
    for a in near:
        if mate[a] < 0:
            mate[x], mate[a] = a, x
            return 1
    for a in near:
        b = int(mate[a])
        for y in neighbours.get(b, []):
            if y != x and y != a and mate[y] < 0:
                mate[x], mate[a], mate[b], mate[y] = a, x, y, b
                return 1
    return 0
