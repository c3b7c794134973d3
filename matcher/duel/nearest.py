"""Each player's legal pairs nearest in rating, searched outward from its rating: what the
re-choice of ``optimal``'s pairs reads (:mod:`matcher.duel.large_complete`) without
listing every legal pair of a dense wave.

A player's pairs within a gap ``g`` of its ratings are the opposite ratings inside
``[rating - g, rating + g]``, found by bisection in the wave's rating orders and kept where
:func:`matcher.duel.graph.legal` says so. Searching every player to ``g`` lists all its
pairs of gap at most ``g``: when they are at least ``k``, its ``k`` nearest are among them;
else ``g`` grows until they are or ``g`` covers the widest window of the wave.

Partners at one gap come in each player's own order (:func:`tie_rank`), not in wave
order: where hundreds share a rating (a placement rating), wave order would give every
one of them the same first few of the group, and the re-choice, which reads only these
pairs, could then pair the group among itself through those few alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from matcher.duel.graph import Bools, DuelArrays, Ints, legal

#: Candidate pairs tested per vectorised batch at most: bounds the temporaries.
_BATCH = 1 << 18
#: The first gap searched, and its growth per round: a few rounds reach any window.
_FIRST_GAP = 8
_GROWTH = 4
#: Ties met per side and pair sought by :func:`_in_ties`: enough that a rule refusing
#: most of a tie group still leaves ``k`` pairs among them.
_TIED = 4


#: Fractions of a power of two that :func:`tie_rank` steps by (the golden ratio's and the
#: silver ratio's): consecutive players land far apart in the scattered order, and their
#: starting points too, at every wave size.
_SCATTER = 0.6180339887498949
_START = 0.41421356237309515


def tie_bits(size: int) -> int:
    """The bits of a :func:`tie_rank` in a wave of ``size`` players."""
    return max(size - 1, 1).bit_length()


def tie_rank(player: Ints, partner: Ints, size: int) -> Ints:
    """The order in which ``player`` meets its partners at one rating gap: a rank below
    ``2 ** tie_bits(size)``, one to one in ``partner`` for a given ``player``
    (:func:`tie_partner` reads the partner back).

    Each player meets the wave in one scattered order of it (:func:`scattered`), from a
    starting point of its own (:func:`starting_point`): two players of one tie group meet
    different members of it first, so the first few partners of every member together
    cover the group.

    >>> tie_rank(np.array([0, 0, 0, 0]), np.arange(4), 4).tolist()
    [0, 3, 2, 1]
    >>> tie_rank(np.array([1, 1, 1, 1]), np.arange(4), 4).tolist()
    [3, 2, 1, 0]
    >>> sorted(tie_rank(np.full(8, 5), np.arange(8), 8).tolist())
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    rank: Ints = (scattered(partner, size) - starting_point(player, size)) & _mask(size)
    return rank


def scattered(players: Ints, size: int) -> Ints:
    """``players``' places in the scattered order of the wave that :func:`tie_rank` turns:
    a multiplication by an odd number modulo a power of two, one to one."""
    place: Ints = (players * _step(_SCATTER, size)) & _mask(size)
    return place


def by_rating_scattered(ratings: Ints, players: Ints, size: int) -> Ints:
    """The order of ``players`` (indices below ``size``) by ``ratings``, then by their
    :func:`scattered` places: a tie group in an order unrelated to the join order.

    >>> by_rating_scattered(np.array([1500, 1400, 1500]), np.array([1, 3, 2]), 10).tolist()
    [1, 2, 0]
    """
    keys = ratings.astype(np.int64) << tie_bits(size) | scattered(players, size)
    order: Ints = np.argsort(keys, kind="stable")
    return order


def starting_point(players: Ints, size: int) -> Ints:
    """The scattered place from which each of ``players`` meets the wave: its rank 0."""
    start: Ints = (players * _step(_START, size)) & _mask(size)
    return start


def _mask(size: int) -> int:
    return (1 << tie_bits(size)) - 1


def _step(fraction: float, size: int) -> int:
    """The odd multiplier nearest ``fraction`` of the power of two of :func:`tie_bits`."""
    return int((1 << tie_bits(size)) * fraction) | 1


def tie_partner(player: Ints, rank: Ints, size: int) -> Ints:
    """The partner whose :func:`tie_rank` for ``player`` is ``rank``.

    >>> tie_partner(np.full(8, 5), tie_rank(np.full(8, 5), np.arange(8), 8), 8).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    mask = _mask(size)
    inverse = pow(_step(_SCATTER, size), -1, mask + 1)
    partner: Ints = (((rank + starting_point(player, size)) & mask) * inverse) & mask
    return partner


def pair_order(player: Ints, gap: Ints, partner: Ints, size: int) -> Ints:
    """The stable order of pairs by player, then rating gap, then :func:`tie_rank`
    (``size``: the wave's players): one stable sort of one key, one pass instead of three
    over the millions of pairs of a dense wave.

    >>> pair_order(np.array([1, 0, 0]), np.array([5, 9, 2]), np.array([0, 1, 2]), 3).tolist()
    [2, 1, 0]
    """
    # The key fits int64 for any wave of ratings up to 10,000 (the contract's bound).
    span = int(gap.max()) + 1 if len(gap) else 1
    key = (player * span + gap) << tie_bits(size) | tie_rank(player, partner, size)
    order: Ints = np.argsort(key, kind="stable")
    return order


def nearest_pairs(arrays: DuelArrays, players: Ints, k: int) -> tuple[Ints, Ints, Ints]:
    """For each of ``players`` (distinct), its ``k`` legal directed pairs ``(u, v)`` (u plays
    BW) nearest in rating, as ``(player, u, v)`` in :func:`by_nearness`'s order.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1500), DuelPlayer("b", 1540, 1540),
    ...            DuelPlayer("c", None, 1600)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> [x.tolist() for x in nearest_pairs(arrays, np.arange(3), 1)]
    [[0, 1, 2], [0, 1, 1], [1, 0, 2]]

    Notes: per round, O(p log n + c) for the c candidates within the gap searched; the
    rounds stop for a player once it has ``k`` pairs or its search covers every window.
    """
    widest = arrays.max_radius()
    gap = min(_FIRST_GAP, widest)
    left = np.sort(players)
    if arrays.limits is not None:  # a player above every latency limit plays nobody
        left = left[arrays.limits.playable()[left]]
    kept: list[tuple[Ints, Ints, Ints]] = []  # (player, u, v) of the players settled
    crowded = left[_tie_sizes(arrays, left) > _TIED * k]
    if len(crowded):
        player, u, v, settled = _in_ties(arrays, crowded, k)
        kept.append((player, u, v))
        left = np.setdiff1d(left, crowded[settled], assume_unique=True)
    while len(left):
        player, u, v = _within(arrays, left, gap)
        starts = np.searchsorted(player, left, "left")
        counts = np.searchsorted(player, left, "right") - starts
        settled = (counts >= k) | (gap >= widest)
        rank = np.arange(len(player)) - np.repeat(starts, counts)
        keep = (rank < k) & np.repeat(settled, counts)
        kept.append((player[keep], u[keep], v[keep]))
        left = left[~settled]
        gap = min(gap * _GROWTH, widest)
    if not kept:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    player = np.concatenate([p for p, _, _ in kept])
    order = np.argsort(player, kind="stable")
    u = np.concatenate([x for _, x, _ in kept])
    v = np.concatenate([x for _, _, x in kept])
    return player[order], u[order], v[order]


def _tie_sizes(arrays: DuelArrays, players: Ints) -> Ints:
    """Per player, the larger of its two sides' counts of opposite ratings equal to its own
    (0 on a side it does not play)."""
    sizes = np.zeros(len(players), dtype=np.int64)
    for ratings, sorted_ratings in ((arrays.bw, arrays.sc2_sorted), (arrays.sc2, arrays.bw_sorted)):
        own = ratings[players]
        count = np.searchsorted(sorted_ratings, own, "right")
        count -= np.searchsorted(sorted_ratings, own, "left")
        np.maximum(sizes, np.where(own >= 0, count, 0), out=sizes)
    return sizes


def _in_ties(arrays: DuelArrays, players: Ints, k: int) -> tuple[Ints, Ints, Ints, Bools]:
    """The players (ascending) whose ``k`` nearest pairs all lie at their own rating, with
    those pairs as ``(player, u, v)``, and the mask of them among ``players``.

    A tie group of thousands (one rating for all) would put every member into every
    search; here a player whose tie group is larger than ``_TIED * k`` on a side meets
    only the first ``_TIED * k`` of that side's ties in its own order (:func:`tie_rank`):
    a run, wrapping round, of the group sorted by its scattered order. The pairs found
    with a partner up to the last one met on every side cut short are all of that
    player's gap-0 pairs that far, so when they are ``k`` or more the first ``k`` are its
    nearest."""
    n, bits = arrays.size, tie_bits(arrays.size)
    sides = []
    for seekers, ratings, others, sorted_ratings, plays_bw in (
        (players[arrays.bw[players] >= 0], arrays.bw, arrays.sc2_order, arrays.sc2_sorted, True),
        (players[arrays.sc2[players] >= 0], arrays.sc2, arrays.bw_order, arrays.bw_sorted, False),
    ):
        own = ratings[seekers]
        low = np.searchsorted(sorted_ratings, own, "left")
        high = np.searchsorted(sorted_ratings, own, "right")
        # The side by rating (already so), then by the scattered order every player meets
        # it in.
        others = others[by_rating_scattered(sorted_ratings, others, n)]
        keys = (sorted_ratings << bits) | scattered(others, n)
        # Where the seeker's own order starts: the first scattered rank at or past its
        # starting point, wrapping round to the group's first.
        first = np.searchsorted(keys, (own << bits) | starting_point(seekers, n), "left")
        first = np.where(first >= high, low, first)
        short = high - low > _TIED * k
        stop = np.where(short, first + _TIED * k, high)
        wrapped = np.where(short, np.maximum(stop - high, 0), first - low)
        stop = np.minimum(stop, high)
        ranges = (np.concatenate([first, low]), np.concatenate([stop, low + wrapped]))
        found = _legal_in_ranges(
            arrays, np.concatenate([seekers, seekers]), others, *ranges, plays_bw
        )
        # The rank of the last partner met on a side cut short; pairs past it wait.
        end = np.where(wrapped > 0, low + wrapped, stop) - 1
        last = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        last[seekers[short]] = tie_rank(seekers[short], others[end[short]], n)
        sides.append((found, last))
    (playing_bw, last_bw), (playing_sc2, last_sc2) = sides
    player, u, v = by_nearness(arrays, playing_bw, playing_sc2)
    partner = np.where(u == player, v, u)
    known = tie_rank(player, partner, n) <= np.minimum(last_bw, last_sc2)[player]
    player, u, v = player[known], u[known], v[known]
    starts = np.searchsorted(player, players, "left")
    counts = np.searchsorted(player, players, "right") - starts
    settled = counts >= k
    rank = np.arange(len(player)) - np.repeat(starts, counts)
    keep = (rank < k) & np.repeat(settled, counts)
    return player[keep], u[keep], v[keep], settled


def _within(arrays: DuelArrays, players: Ints, gap: int) -> tuple[Ints, Ints, Ints]:
    """Every legal directed pair ``(u, v)`` of ``players`` (ascending) within ``gap`` of
    rating, once per member of ``players`` in it, as ``(player, u, v)`` sorted by player,
    gap, partner, the player's BW side first."""
    as_bw = players[arrays.bw[players] >= 0]
    as_sc2 = players[arrays.sc2[players] >= 0]
    bw_player, bw_partner = _around(
        arrays.bw[as_bw], as_bw, arrays.sc2_order, arrays.sc2_sorted, gap, arrays, True
    )
    sc2_player, sc2_partner = _around(
        arrays.sc2[as_sc2], as_sc2, arrays.bw_order, arrays.bw_sorted, gap, arrays, False
    )
    return by_nearness(arrays, (bw_player, bw_partner), (sc2_player, sc2_partner))


def by_nearness(
    arrays: DuelArrays, playing_bw: tuple[Ints, Ints], playing_sc2: tuple[Ints, Ints]
) -> tuple[Ints, Ints, Ints]:
    """Legal directed pairs told from one player's side, ``(player, partner)`` with the
    player playing BW or SC2, as ``(player, u, v)`` (u plays BW) sorted by player, then
    rating gap, then partner, the player's BW side first."""
    player = np.concatenate([playing_bw[0], playing_sc2[0]])
    partner = np.concatenate([playing_bw[1], playing_sc2[1]])
    u = np.concatenate([playing_bw[0], playing_sc2[1]])
    v = np.concatenate([playing_bw[1], playing_sc2[0]])
    order = pair_order(player, np.abs(arrays.bw[u] - arrays.sc2[v]), partner, arrays.size)
    return player[order], u[order], v[order]


def _around(
    ratings: Ints,
    seekers: Ints,
    others: Ints,
    other_ratings: Ints,
    gap: int,
    arrays: DuelArrays,
    seekers_play_bw: bool,
) -> tuple[Ints, Ints]:
    """The legal pairs of each seeker with the others (``others`` sorted by
    ``other_ratings``) whose rating lies within ``gap`` of the seeker's, as
    ``(seeker, other)``."""
    low = np.searchsorted(other_ratings, ratings - gap, "left")
    high = np.searchsorted(other_ratings, ratings + gap, "right")
    return _legal_in_ranges(arrays, seekers, others, low, high, seekers_play_bw)


def _legal_in_ranges(
    arrays: DuelArrays, seekers: Ints, others: Ints, low: Ints, high: Ints, seekers_play_bw: bool
) -> tuple[Ints, Ints]:
    """The legal pairs of each ``seekers[i]`` with ``others[low[i]:high[i]]``, as
    ``(seeker, other)``, tested in batches of at most ``_BATCH`` candidates."""
    found_seeker, found_other = [], []
    for seeker, other in candidates_in_ranges(seekers, others, low, high):
        ok = legal(arrays, seeker, other) if seekers_play_bw else legal(arrays, other, seeker)
        found_seeker.append(seeker[ok])
        found_other.append(other[ok])
    if not found_seeker:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(found_seeker), np.concatenate(found_other)


def candidates_in_ranges(
    seekers: Ints, others: Ints, low: Ints, high: Ints
) -> Iterator[tuple[Ints, Ints]]:
    """Each ``seekers[i]`` with each of ``others[low[i]:high[i]]``, as ``(seeker, other)``
    arrays in batches of at most ``_BATCH`` candidates (one seeker's range may exceed it).

    >>> [x.tolist() for x in next(candidates_in_ranges(
    ...     np.array([7, 8]), np.array([1, 2, 3]), np.array([0, 2]), np.array([2, 3])))]
    [[7, 7, 8], [1, 2, 3]]
    """
    ends = np.cumsum(high - low)
    start = 0
    while start < len(seekers):
        base = int(ends[start - 1]) if start else 0
        stop = max(int(np.searchsorted(ends, base + _BATCH, "right")), start + 1)
        counts = (high - low)[start:stop]
        seeker = np.repeat(seekers[start:stop], counts)
        # Position of each candidate inside its seeker's range.
        offset = np.arange(len(seeker)) - np.repeat(np.cumsum(counts) - counts, counts)
        yield seeker, others[np.repeat(low[start:stop], counts) + offset]
        start = stop
