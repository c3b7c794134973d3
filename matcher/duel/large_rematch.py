"""Large waves of ``optimal``, last step: re-pair the chosen players by rating order (sides kept).

Once every matched player's side is fixed (BW or SC2), the cheapest pairing of the BW
points with the SC2 points is the *sorted* one: the i-th lowest BW rating against the
i-th lowest SC2 rating. The cost ``diff**2`` is Monge (for ``a <= a'`` and ``b <= b'``,
``(a-b)**2 + (a'-b')**2 <= (a-b')**2 + (a'-b)**2``) and the wait bonus is the same for
any pairing of the same players.

The pre-pass of :mod:`matcher.duel.large_prepair` pairs equal ratings and leaves the rest to
the relaxation, which then pairs the leftovers 3-6 MMR apart; the sorted pairing spreads
those gaps over the pre-paired players between them (five gaps of 1 cost 5, one of 5
costs 25).

The sorted pairing ignores windows and vetoes, so it is taken component by component:
the current and the sorted pairs of the same players form alternating cycles, and each
cycle independently keeps its current pairs unless the sorted ones are all legal and
strictly cheaper. The result has the same players, is legal, and never costs more.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from matcher.duel.graph import DuelArrays, Ints, by_rating, cost, legal


def sorted_rematch(arrays: DuelArrays, bw: Ints, sc2: Ints) -> tuple[Ints, Ints]:
    """Pairs ``(bw[i], sc2[i])`` re-paired by rating order where that is legal and cheaper.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, None), DuelPlayer("b", 1510, None),
    ...            DuelPlayer("c", None, 1512), DuelPlayer("d", None, 1498)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> [x.tolist() for x in sorted_rematch(arrays, np.array([0, 1]), np.array([2, 3]))]
    [[0, 1], [3, 2]]

    A sorted pair that is illegal (no common map, or outside a window) is first re-paired
    with its neighbours in the order by a small exact assignment; what is still illegal
    falls back cycle by cycle as described above.

    Notes: O(p log p) for p pairs, vectorised but for one small assignment per illegal
    sorted pair (a handful on a large wave).
    """
    count = len(bw)
    if count < 2:
        return bw, sc2
    by_bw = by_rating(arrays.bw[bw], bw, arrays.size)  # pair indices by BW rating, player
    by_sc2 = by_rating(arrays.sc2[sc2], sc2, arrays.size)
    _trade_illegal(arrays, bw[by_bw], sc2, by_sc2)
    # New pair k: the BW player of pair by_bw[k] against the SC2 player of pair by_sc2[k].
    # Pairs sharing a player under either pairing form one alternating cycle.
    graph = coo_matrix((np.ones(count, dtype=np.int8), (by_bw, by_sc2)), shape=(count, count))
    _, cycle_of_pair = connected_components(graph, directed=False)
    new_bw, new_sc2 = bw[by_bw], sc2[by_sc2]
    cycle_of_new = cycle_of_pair[by_bw]
    cycles = int(cycle_of_pair.max()) + 1
    # A cycle holds the same players either way, so its wait bonus cancels out of the
    # comparison: the design's score decides exactly as the squared diff alone would.
    old_cost = np.bincount(cycle_of_pair, cost(arrays, bw, sc2), cycles)
    new_cost = np.bincount(cycle_of_new, cost(arrays, new_bw, new_sc2), cycles)
    illegal = np.bincount(cycle_of_new, ~legal(arrays, new_bw, new_sc2), cycles) > 0
    better = (new_cost < old_cost) & ~illegal
    keep_old = ~better[cycle_of_pair]
    take_new = better[cycle_of_new]
    return (
        np.concatenate([bw[keep_old], new_bw[take_new]]),
        np.concatenate([sc2[keep_old], new_sc2[take_new]]),
    )


def _trade_illegal(arrays: DuelArrays, new_bw: Ints, sc2: Ints, by_sc2: Ints) -> None:
    """Re-pair, in place in ``by_sc2``, the neighbourhood of each illegal sorted pair.

    The SC2 sides of the ``2 * reach + 1`` positions around it are re-assigned to their BW
    sides by a small exact assignment (squared diff, illegal pairs excluded) when one
    exists with every pair legal; the reach doubles up to ``_REACH_LIMIT`` otherwise.
    """
    bad = np.flatnonzero(~legal(arrays, new_bw, sc2[by_sc2])).tolist()
    count = len(by_sc2)
    for k in bad:
        reach = 2
        while reach <= _REACH_LIMIT:
            block = np.arange(max(k - reach, 0), min(k + reach + 1, count))
            if _repair_block(arrays, new_bw[block], sc2, by_sc2, block):
                break
            reach *= 2


def _repair_block(arrays: DuelArrays, block_bw: Ints, sc2: Ints, by_sc2: Ints, block: Ints) -> bool:
    block_sc2 = sc2[by_sc2[block]]
    rows = np.repeat(block_bw, len(block))
    cols = np.tile(block_sc2, len(block))
    ok = legal(arrays, rows, cols).reshape(len(block), len(block))
    if ok.all(axis=None) or not ok.any(axis=1).all():
        return bool(ok[np.arange(len(block)), np.arange(len(block))].all())
    diff = (arrays.bw[rows] - arrays.sc2[cols]).reshape(len(block), len(block))
    big = int((diff * diff).max(initial=0)) * len(block) + 1
    table = np.where(ok, diff * diff, big)
    row, col = linear_sum_assignment(table)
    if not ok[row, col].all():
        return False
    by_sc2[block[row]] = by_sc2[block[col]].copy()
    return True


def twin_rematch(arrays: DuelArrays, bw: Ints, sc2: Ints) -> tuple[Ints, Ints]:
    """Pairs of "twins" (players whose BW and SC2 ratings are equal: a mirror ladder's
    players) re-paired two by two along the rating order where legal and cheaper.

    Sides mean nothing to a twin, so the cheapest pairing of a set of twins is the
    consecutive one along the rating order (squared diff is convex), not the sorted
    BW-against-SC2 pairing of :func:`sorted_rematch`. The current and the consecutive pairs
    form alternating cycles; each cycle takes the consecutive pairs when every one is
    legal (either player on BW) and they cost less.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer(p, r, r) for p, r in (("a", 1500), ("b", 1510),
    ...                                              ("c", 1502), ("d", 1512))]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> [x.tolist() for x in twin_rematch(arrays, np.array([0, 1]), np.array([3, 2]))]
    [[0, 1], [2, 3]]

    Notes: O(p log p) for p pairs, vectorised.
    """
    twin = (arrays.bw >= 0) & (arrays.bw == arrays.sc2)
    inside = twin[bw] & twin[sc2]
    count = int(inside.sum())
    if count < 2:
        return bw, sc2
    players = np.concatenate([bw[inside], sc2[inside]])
    order = by_rating(arrays.bw[players], players, arrays.size)
    first, second = order[0::2], order[1::2]
    # Positions 0..2c-1: old pair i holds positions i and i + c; new pair j holds
    # first[j] and second[j].
    graph = coo_matrix(
        (
            np.ones(2 * count, dtype=np.int8),
            (np.r_[np.arange(count), first], np.r_[np.arange(count) + count, second]),
        ),
        shape=(2 * count, 2 * count),
    )
    _, label = connected_components(graph, directed=False)
    u, v = players[first], players[second]
    forward = legal(arrays, u, v)
    new_bw, new_sc2 = np.where(forward, u, v), np.where(forward, v, u)
    ok = forward | legal(arrays, v, u)
    cycles = int(label.max()) + 1
    old_cost = np.bincount(label[:count], cost(arrays, bw[inside], sc2[inside]), cycles)
    new_cost = np.bincount(label[first], cost(arrays, new_bw, new_sc2), cycles)
    better = (new_cost < old_cost) & ~(np.bincount(label[first], ~ok, cycles) > 0)
    keep_old = ~better[label[:count]]
    take_new = better[label[first]]
    return (
        np.concatenate([bw[~inside], bw[inside][keep_old], new_bw[take_new]]),
        np.concatenate([sc2[~inside], sc2[inside][keep_old], new_sc2[take_new]]),
    )


#: Largest neighbourhood (positions each side) an illegal sorted pair is repaired in.
_REACH_LIMIT = 16
