"""Small and mid-size waves of ``optimal`` (up to ``optimal_exact_limit`` players): the
proved optimum on every legal pair, by rustworkx's blossom.

The objective "most pairs, then least summed score" becomes one maximum-weight matching
of maximum cardinality: an edge weighs ``top - score`` (``top`` above every score, so
every weight is a positive integer and the solver is exact), and ``max_cardinality``
makes the pair count come first. An unordered pair of players keeps its cheaper side
choice (a "both" player may take either side).
"""

from __future__ import annotations

import numpy as np
import rustworkx as rx

from matcher.duel.choice import PairNoise
from matcher.duel.graph import (
    Bools,
    DuelArrays,
    Ints,
    cost_table,
    legal_table,
    undirected,
    unique_sorted,
)


def exact_pairs(arrays: DuelArrays, noise: PairNoise | None = None) -> list[tuple[int, int]]:
    """The optimum's pairs ``(bw_player, sc2_player)``, by BW player.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390)]
    >>> exact_pairs(duel_arrays(players, ("m",), Window(75, 25), DuelConfig()))
    [(1, 0)]

    ``noise``: a seeded perturbation added to each pair's gain ``-score``
    (``optimal_choice = "weighted"``, :mod:`matcher.duel.choice`); the pair count still
    comes first.

    Notes: O(n^2) to build the edges (vectorised), then the blossom, O(n^3) at worst.
    """
    bw, sc2, score = legal_edges(arrays)
    if not len(bw):
        return []
    if noise is None:
        weight = int(score.max()) + 1 - score
    else:
        gain = noise(bw, sc2) - score
        weight = gain - int(gain.min()) + 1
    return _blossom(arrays.size, bw, sc2, weight)


def _blossom(size: int, bw: Ints, sc2: Ints, weight: Ints) -> list[tuple[int, int]]:
    """The matching of the most pairs, then the largest weight, on the unordered pairs
    ``(bw[i], sc2[i])`` of players below ``size`` (sorted by lower, then higher player;
    positive integer weights)."""
    if not len(bw):
        return []
    graph = rx.PyGraph(multigraph=False, node_count_hint=size, edge_count_hint=len(bw))
    graph.add_nodes_from(range(size))
    graph.add_edges_from(list(zip(bw.tolist(), sc2.tolist(), weight.tolist(), strict=True)))
    mates = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    found = np.array(sorted(mates), dtype=np.int64).reshape(-1, 2)
    # The edges are sorted by (lower, higher) player: look each mate pair up there.
    keys = np.minimum(bw, sc2) * size + np.maximum(bw, sc2)
    at = np.searchsorted(keys, found.min(axis=1) * size + found.max(axis=1))
    at = at[np.argsort(bw[at], kind="stable")]
    return list(zip(bw[at].tolist(), sc2[at].tolist(), strict=True))


def exact_pairs_on(
    arrays: DuelArrays, u: Ints, v: Ints, kept: Bools | None = None
) -> list[tuple[int, int]]:
    """The optimum's pairs ``(bw_player, sc2_player)`` among the legal directed pairs
    ``(u[i], v[i])`` only (u plays BW), by BW player: most pairs, then the most players
    of ``kept`` (a mask over the wave) paired, then least score.

    Notes: the blossom on the pairs given.
    """
    bw, sc2, score = undirected(arrays, u, v)
    # Only the players of some pair are nodes, numbered in the players' order: the solver's
    # stages visit every node, and a block of a large wave holds a small share of its
    # players.
    players = unique_sorted(np.concatenate([bw, sc2]))
    first, second = np.searchsorted(players, bw), np.searchsorted(players, sc2)
    weight = int(score.max(initial=0)) + 1 - score
    if kept is not None:
        # Each kept player paired outweighs any difference of the summed weights.
        worth = int(weight.sum()) + 1
        weight = weight + worth * (kept[bw].astype(np.int64) + kept[sc2])
    found = _blossom(len(players), first, second, weight)
    return [(int(players[a]), int(players[b])) for a, b in found]


def legal_edges(arrays: DuelArrays) -> tuple[Ints, Ints, Ints]:
    """Every legal unordered pair once: ``(bw_player, sc2_player, score)`` of its cheaper
    side choice (the lower BW player on a tie), by (lower, higher) player index.

    Notes: O(n^2) time and memory, broadcast tables.
    """
    members = np.arange(arrays.size, dtype=np.int64)
    big = np.iinfo(np.int64).max
    table = np.where(legal_table(arrays, members), cost_table(arrays, members), big)
    # Row a, column b: a plays BW. The upper triangle's pair (a, b), a < b, takes the
    # transposed entry (b plays BW) only when strictly cheaper.
    low, high = np.triu_indices(arrays.size, 1)
    forward, backward = table[low, high], table[high, low]
    flip = backward < forward
    score = np.where(flip, backward, forward)
    keep = score < big
    bw = np.where(flip, high, low)[keep]
    sc2 = np.where(flip, low, high)[keep]
    return bw, sc2, score[keep]
