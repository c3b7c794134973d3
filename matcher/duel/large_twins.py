"""Large waves of ``optimal`` on a mirror ladder (every player has one rating, either side),
last step: the best matching of rating-sorted neighbours, by dynamic programme, when it
beats the one found.

On one rating line with convex costs, an optimum mostly pairs neighbours in rating; where
it must leave players out it chooses whom, anywhere on the line (a tail player rather
than one of the dense middle). The relaxation and the completion decide that locally.
The programme decides it over the whole wave: among matchings made only of
rating-sorted neighbours, the most pairs, then the least summed score. It is taken when
it has more pairs, or as many and a lower score, and is maximal; otherwise the given
pairs stay.
"""

from __future__ import annotations

import numpy as np

from matcher.duel.graph import DuelArrays, Ints, by_rating, cost, legal
from matcher.duel.near import any_legal_between


def neighbour_pairs(arrays: DuelArrays, bw: Ints, sc2: Ints) -> tuple[Ints, Ints]:
    """The pairs ``(bw[i], sc2[i])``, or the programme's when better (every player a twin).

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer(p, r, r) for p, r in (("a", 1000), ("b", 1500),
    ...                                              ("c", 1510), ("d", 1560))]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> [x.tolist() for x in neighbour_pairs(arrays, np.array([1]), np.array([3]))]
    [[1], [2]]

    Notes: O(n log n) and one Python pass over the n players.
    """
    twins = (arrays.bw >= 0) & (arrays.bw == arrays.sc2)
    if arrays.size < 2 or not twins.all():
        return bw, sc2
    everyone = np.arange(arrays.size, dtype=np.int64)
    order = everyone[by_rating(arrays.bw, everyone, arrays.size)]
    low, high = order[:-1], order[1:]
    forward = legal(arrays, low, high)
    playable = forward | legal(arrays, high, low)
    first, second = np.where(forward, low, high), np.where(forward, high, low)
    score = cost(arrays, first, second)
    taken = _programme(playable.tolist(), score.tolist())
    current = (len(bw), -int(cost(arrays, bw, sc2).sum()))
    found = (len(taken), -int(score[taken].sum()) if taken else 0)
    if found <= current:
        return bw, sc2
    matched = np.zeros(arrays.size, dtype=bool)
    matched[first[taken]] = matched[second[taken]] = True
    loose = np.flatnonzero(~matched)
    if any_legal_between(arrays, loose, loose):  # as many pairs, yet not maximal: keep ours
        return bw, sc2
    return first[taken], second[taken]


def _programme(playable: list[bool], score: list[int]) -> list[int]:
    """Indices ``i`` of the neighbour pairs (player i, player i + 1) of the best matching."""
    # best[i]: (pairs, -score) over the first i players; took[i]: pair i - 2 taken there.
    best: list[tuple[int, int]] = [(0, 0), (0, 0)]
    took = [False, False]
    for i, ok in enumerate(playable):
        skip = best[-1]
        pair = (best[-2][0] + 1, best[-2][1] - score[i]) if ok else None
        if pair is not None and pair > skip:
            best.append(pair)
            took.append(True)
        else:
            best.append(skip)
            took.append(False)
    taken: list[int] = []
    at = len(took) - 1
    while at >= 2:
        if took[at]:
            taken.append(at - 2)
            at -= 2
        else:
            at -= 1
    return taken[::-1]
