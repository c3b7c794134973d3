"""The exact reference: networkx blossom on the full graph of allowed pairs."""

from __future__ import annotations

import networkx as nx
import numpy as np

from matcher.duel.graph import DuelArrays, big_weight, cost, legal
from matcher.duel.model import DuelConfig, DuelPlayer
from tests.duel.waves import arrays_of


def reference_optimum(
    players: list[DuelPlayer], active_population: int, maps: tuple[str, ...], config: DuelConfig
) -> tuple[int, int]:
    """(pairs, summed score) of the exact optimum: max cardinality first, then min cost."""
    arrays = arrays_of(players, active_population, config, maps)
    n = arrays.size
    u, v = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    ok = legal(arrays, u, v)
    u, v = u[ok], v[ok]
    best: dict[tuple[int, int], int] = {}
    for a, b, c in zip(u.tolist(), v.tolist(), cost(arrays, u, v).tolist(), strict=True):
        key = (min(a, b), max(a, b))
        best[key] = min(c, best.get(key, c))
    weight = big_weight(arrays)
    graph = nx.Graph()
    graph.add_weighted_edges_from((a, b, weight - c) for (a, b), c in best.items())
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return len(matching), sum(best[(min(a, b), max(a, b))] for a, b in matching)


def count_and_cost(arrays: DuelArrays, pairs: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """(pairs, summed score) of ``(bw_player, sc2_player)`` index pairs, asserting that every
    pair is legal and nobody plays twice."""
    u = np.array([a for a, _ in pairs], dtype=np.int64)
    v = np.array([b for _, b in pairs], dtype=np.int64)
    assert bool(legal(arrays, u, v).all())
    assert len(set(u.tolist()) | set(v.tolist())) == 2 * len(pairs)  # nobody twice
    return len(pairs), int(cost(arrays, u, v).sum())


def score_of(pairs: object, config: DuelConfig, arrays: DuelArrays | None = None) -> int:
    """Summed score of DuelPairs: the design's ``diff**2 - bonus * waits``, less
    ``optimal``'s sit-out priority (``arrays``' wave's) per wave waited past
    ``optimal_sit_out_after``."""
    priority, after = 0 if arrays is None else arrays.priority, config.optimal_sit_out_after

    def overdue(wait: int) -> int:
        return 0 if after is None else max(wait - after, 0)

    return sum(
        p.diff**2
        - config.wait_bonus * (p.bw.wait_cycles + p.sc2.wait_cycles)
        - priority * (overdue(p.bw.wait_cycles) + overdue(p.sc2.wait_cycles))
        for p in pairs  # type: ignore[attr-defined]
    )
