"""An upper bound on the pairs of any legal matching of a wave: what ``optimal``'s large
tier reports beside its pairs, so that every wave says how far from a maximum matching
it can be at most.

Players who can play nobody are left out (exactly: the left-out players' legal pairs are
searched, :mod:`matcher.duel.near`). The rest are split into groups that no legal pair
crosses: a legal pair's two ratings lie within the wave's largest window radius, so
sorting every rating point and cutting where two neighbours lie farther apart separates
ratings no pair joins; a "both" player joins the groups of its two points. A group of
``g`` players, ``b`` offering BW and ``s`` offering SC2, holds at most
``min(g // 2, b, s)`` pairs (each pair seats one BW and one SC2 player).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from matcher.duel.graph import DuelArrays, Ints
from matcher.duel.near import legal_touching


def pair_bound(arrays: DuelArrays, bw: Ints, sc2: Ints) -> int:
    """At least as many pairs as any legal matching of the wave has, given a matching
    ``(bw[i], sc2[i])`` of it (its players all have a partner; the others are searched).

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1500), DuelPlayer("b", 1510, 1510),
    ...            DuelPlayer("c", 1520, 1520), DuelPlayer("d", 2900, None)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> pair_bound(arrays, np.array([0]), np.array([1]))
    1

    Notes: one exact search of the unmatched players' legal pairs, then O(n log n).
    """
    active = np.zeros(arrays.size, dtype=bool)
    active[bw] = active[sc2] = True
    u, v = legal_touching(arrays, np.flatnonzero(~active))
    active[u] = active[v] = True
    players = np.flatnonzero(active)
    if not len(players):
        return 0
    group = _groups(arrays, players)
    offers_bw = (arrays.bw[players] >= 0).astype(np.int64)
    offers_sc2 = (arrays.sc2[players] >= 0).astype(np.int64)
    size = np.bincount(group)
    most = np.minimum(
        size // 2,
        np.minimum(np.bincount(group, offers_bw), np.bincount(group, offers_sc2)),
    )
    return int(most.sum())


def _groups(arrays: DuelArrays, players: Ints) -> Ints:
    """A group number per player of ``players``: no legal pair joins two groups."""
    reach = int(arrays.radius[players].max())
    owner = np.concatenate([players, players])
    rating = np.concatenate([arrays.bw[players], arrays.sc2[players]])
    rated = rating >= 0
    owner, rating = owner[rated], rating[rated]
    order = np.argsort(rating, kind="stable")
    owner, rating = owner[order], rating[order]
    segment = np.concatenate([[0], np.cumsum(np.diff(rating) > reach)])
    # Players and segments as one graph: a player joins the segments of its points.
    count = int(segment[-1]) + 1
    slot = np.searchsorted(players, owner)
    graph = coo_matrix(
        (np.ones(len(slot), dtype=np.int8), (slot, len(players) + segment)),
        shape=(len(players) + count, len(players) + count),
    )
    _, label = connected_components(graph, directed=False)
    found: Ints = label[: len(players)]
    return found
