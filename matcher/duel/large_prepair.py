"""Very large waves of ``optimal`` (above ``optimal_prepair_limit`` players), first step:
pair equal ratings in dense rating ranges.

Where ratings are dense (many points within a few MMR), an optimum pairs almost every
player with a partner a few MMR away, and the relaxation spends most of its time
confirming that. :func:`equal_rating_pairs` settles those
players up front, fully vectorised: a BW point and an SC2 point of *equal* rating, both
in a dense range (at least ``density`` rating points within ``reach`` MMR), from two
different players, on a playable map, form a pair. The rest of the wave (sparse tails,
leftovers) goes to the relaxation (:mod:`matcher.duel.large`) as a smaller wave.

Why it costs little: if an optimum pairs ``u`` (BW, rating r) with ``p`` and ``q`` with
``v`` (SC2, rating r), pairing ``u``-``v`` and ``q``-``p`` instead keeps the count when
``|bw_q - sc2_p| <= |bw_q - r| + |r - sc2_p|`` is inside the window (dense: a few MMR,
windows are 75+) and costs at most ``2 |bw_q - r| |r - sc2_p|`` more. Near-optimal, not
exact: held to the quality bar of docs/optimal.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from matcher.duel.graph import Bools, DuelArrays, Ints, by_rating, legal

#: Multiplies a rating into a sort key above any rank inside one rating.
_KEY = 1 << 32


@dataclass(frozen=True, slots=True)
class Prepaired:
    """Pre-settled pairs ``(bw_player, sc2_player)`` and the players left to solve."""

    bw: Ints
    sc2: Ints
    rest: Ints


def equal_rating_pairs(arrays: DuelArrays, density: int, reach: int = 10) -> Prepaired:
    """Pair equal BW and SC2 ratings where at least ``density`` points lie within ``reach``.

    Single-race players first (BW-only against SC2-only), then single-race against
    "both" players, then "both" players with equal ratings against each other (a mirror
    ladder's players: one rating, either side), then "both" against "both"; inside one
    rating the lower player index goes first (deterministic).

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, None), DuelPlayer("b", None, 1500),
    ...            DuelPlayer("c", 1510, None), DuelPlayer("d", None, 1490)]
    >>> out = equal_rating_pairs(duel_arrays(players, ("m",), Window(75, 25), DuelConfig()), 4)
    >>> out.bw.tolist(), out.sc2.tolist(), out.rest.tolist()
    ([0], [1], [2, 3])

    Notes: O(n log n), a constant number of vectorised passes.
    """
    n = arrays.size
    used = np.zeros(n, dtype=bool)
    points = np.sort(np.concatenate([arrays.bw_sorted, arrays.sc2_sorted]))
    # Sorted needles: searchsorted walks the points once instead of jumping around.
    dense_bw = np.zeros(n, dtype=bool)
    dense_bw[arrays.bw_order] = _dense(points, arrays.bw_sorted, density, reach)
    dense_sc2 = np.zeros(n, dtype=bool)
    dense_sc2[arrays.sc2_order] = _dense(points, arrays.sc2_sorted, density, reach)
    both = (arrays.bw >= 0) & (arrays.sc2 >= 0)
    bw_only, sc2_only = np.flatnonzero(dense_bw & ~both), np.flatnonzero(dense_sc2 & ~both)
    both_bw, both_sc2 = np.flatnonzero(dense_bw & both), np.flatnonzero(dense_sc2 & both)
    found: list[tuple[Ints, Ints]] = []
    for left, right in ((bw_only, sc2_only), (bw_only, both_sc2), (both_bw, sc2_only)):
        u, v = _equal(arrays, left[~used[left]], right[~used[right]])
        used[u] = used[v] = True
        found.append((u, v))
    u, v = _twins(arrays, np.flatnonzero(dense_bw & dense_sc2 & both & ~used))
    used[u] = used[v] = True
    found.append((u, v))
    u, v = _equal(arrays, both_bw[~used[both_bw]], both_sc2[~used[both_sc2]])
    u, v = _first_use(u, v, n)
    used[u] = used[v] = True
    found.append((u, v))
    return Prepaired(
        np.concatenate([f[0] for f in found]),
        np.concatenate([f[1] for f in found]),
        np.flatnonzero(~used),
    )


def _dense(points: Ints, ratings: Ints, density: int, reach: int) -> Bools:
    """Per rating: at least ``density`` rating points within ``reach`` of it."""
    count = np.searchsorted(points, ratings + reach, "right") - np.searchsorted(
        points, ratings - reach, "left"
    )
    dense: Bools = count >= density
    return dense


def _equal(arrays: DuelArrays, left: Ints, right: Ints) -> tuple[Ints, Ints]:
    """Pair the k-th ``left`` BW point of a rating with the k-th ``right`` SC2 point of it."""
    left = left[by_rating(arrays.bw[left], left, arrays.size)]
    right = right[by_rating(arrays.sc2[right], right, arrays.size)]
    left_keys = _ranked(arrays.bw[left])
    right_keys = _ranked(arrays.sc2[right])
    _, at_left, at_right = np.intersect1d(
        left_keys, right_keys, assume_unique=True, return_indices=True
    )
    u, v = left[at_left], right[at_right]
    keep = legal(arrays, u, v)
    return u[keep], v[keep]


def _twins(arrays: DuelArrays, players: Ints) -> tuple[Ints, Ints]:
    """Pair "both" players whose two ratings are equal, two by two inside each rating (the
    lower player plays BW): the relaxation pairs them at diff 0 too, at a far higher cost
    in time, since every odd group of equal ratings leaves it an odd cycle."""
    players = players[arrays.bw[players] == arrays.sc2[players]]
    players = players[by_rating(arrays.bw[players], players, arrays.size)]
    ratings = arrays.bw[players]
    rank = np.arange(len(players)) - np.searchsorted(ratings, ratings)
    first = np.flatnonzero(rank % 2 == 0)
    first = first[first + 1 < len(players)]
    first = first[ratings[first + 1] == ratings[first]]
    u, v = players[first], players[first + 1]
    keep = legal(arrays, u, v)
    return u[keep], v[keep]


def _ranked(sorted_ratings: Ints) -> Ints:
    """Unique keys (rating, rank among equal ratings) of a sorted rating array."""
    rank = np.arange(len(sorted_ratings)) - np.searchsorted(sorted_ratings, sorted_ratings)
    keys: Ints = sorted_ratings * _KEY + rank
    return keys


def _first_use(u: Ints, v: Ints, n: int) -> tuple[Ints, Ints]:
    """Drop pairs reusing a player ("both" players have two points), earlier pairs first.

    A "both" player can be BW in one pair and SC2 in another; the later pair yields.
    Pairs touching no such player are kept at once, the few others in order.
    """
    times = np.bincount(np.concatenate([u, v]), minlength=n)
    clash = (times[u] > 1) | (times[v] > 1)
    keep = ~clash
    used = np.zeros(n, dtype=bool)
    for i in np.flatnonzero(clash).tolist():
        a, b = int(u[i]), int(v[i])
        if not used[a] and not used[b]:
            used[a] = used[b] = keep[i] = True
    return u[keep], v[keep]
