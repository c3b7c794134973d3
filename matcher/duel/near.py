"""Every legal pair between two sets of a wave's players, found through rating order: the
exact search that the completion step, the pair bound and the checker of ``optimal`` share.

A legal pair's diff is inside its window, so never wider than the largest window radius of
the two sets. Sorting one side's SC2 ratings and searching each BW rating within that
radius visits only the pairs close in rating; :func:`legal` then decides each one. The
search is exact (no pair is left out), unlike the candidate graph of
:func:`matcher.duel.graph.candidate_edges`, which keeps a few neighbours per rating.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from matcher.duel.graph import DuelArrays, Ints, legal
from matcher.duel.nearest import candidates_in_ranges, nearest_pairs, pair_order


def legal_between(arrays: DuelArrays, bw_side: Ints, sc2_side: Ints) -> tuple[Ints, Ints]:
    """Every legal directed pair ``(u, v)``, ``u`` of ``bw_side`` playing BW against ``v`` of
    ``sc2_side`` playing SC2.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, None), DuelPlayer("b", None, 1560),
    ...            DuelPlayer("c", None, 1700)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> [x.tolist() for x in legal_between(arrays, np.arange(3), np.arange(3))]
    [[0], [1]]

    Notes: O((b + s) log s + c) for c pairs within the largest radius, in batches.
    """
    found = list(_batches(arrays, bw_side, sc2_side))
    if not found:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate([u for u, _ in found]), np.concatenate([v for _, v in found])


def any_legal_between(arrays: DuelArrays, bw_side: Ints, sc2_side: Ints) -> bool:
    """Whether some pair of :func:`legal_between` exists (stops at the first batch with one).

    Notes: as :func:`legal_between` at worst.
    """
    return any(len(u) for u, _ in _batches(arrays, bw_side, sc2_side))


def legal_touching(arrays: DuelArrays, players: Ints) -> tuple[Ints, Ints]:
    """Every legal directed pair ``(u, v)`` (u plays BW) with ``u`` or ``v`` in ``players``.

    Notes: as :func:`legal_between`, twice.
    """
    everyone = np.arange(arrays.size, dtype=np.int64)
    u1, v1 = legal_between(arrays, players, everyone)
    # The pairs with both players in ``players`` are found above: the second search
    # takes only the others as BW (for every player at once, no second search at all).
    inside = np.zeros(arrays.size, dtype=bool)
    inside[players] = True
    u2, v2 = legal_between(arrays, everyone[~inside], players)
    return np.concatenate([u1, u2]), np.concatenate([v1, v2])


def _batches(arrays: DuelArrays, bw_side: Ints, sc2_side: Ints) -> Iterator[tuple[Ints, Ints]]:
    """The legal pairs in batches (:func:`matcher.duel.nearest.candidates_in_ranges`), each
    pair once.

    A pair's window is its BW player's radius, its SC2 player's, or the larger of the two
    (the window rule; the queue's ``max_distance`` takes the smaller, or the larger under
    ``expansion_age = "oldest"``), so each player
    searches only within its own radius, from the sides the rule needs.
    """
    bw_side = bw_side[arrays.bw[bw_side] >= 0]
    sc2_side = sc2_side[arrays.sc2[sc2_side] >= 0]
    if arrays.limits is not None:
        playable = arrays.limits.playable()
        bw_side, sc2_side = bw_side[playable[bw_side]], sc2_side[playable[sc2_side]]
    if not len(bw_side) or not len(sc2_side):
        return
    by_bw, by_sc2 = _searching_sides(arrays)
    if by_bw:
        yield from _search(arrays, bw_side, arrays.bw, sc2_side, arrays.sc2, False, None)
    if by_sc2:
        # Pairs within the BW player's radius were found above: skip them here.
        skip = arrays.radius if by_bw else None
        yield from _search(arrays, sc2_side, arrays.sc2, bw_side, arrays.bw, True, skip)


def _searching_sides(arrays: DuelArrays) -> tuple[bool, bool]:
    """Whether the BW players' radii, the SC2 players' radii or both bound a pair's diff."""
    limits = arrays.limits
    # A pair's max_distance is the smaller radius (newest) or the larger (oldest, and
    # the rule is then "longer").
    smaller = limits is not None and limits.replaces_window and not limits.distance_oldest
    if smaller or arrays.rule == "shorter":
        return True, False
    if arrays.rule == "longer":
        return True, True
    return (True, False) if arrays.lead_is_bw else (False, True)


def _search(
    arrays: DuelArrays,
    seekers: Ints,
    seeker_rating: Ints,
    others: Ints,
    other_rating: Ints,
    seekers_play_sc2: bool,
    skip_within: Ints | None,
) -> Iterator[tuple[Ints, Ints]]:
    """Each seeker against the others within the seeker's radius, legal pairs as (BW, SC2);
    ``skip_within``: drop pairs within that radius of the other player (found already)."""
    others = others[np.argsort(other_rating[others], kind="stable")]
    ratings = other_rating[others]
    reach = arrays.radius[seekers]
    low = np.searchsorted(ratings, seeker_rating[seekers] - reach, "left")
    high = np.searchsorted(ratings, seeker_rating[seekers] + reach, "right")
    for seeker, other in candidates_in_ranges(seekers, others, low, high):
        if skip_within is not None:
            far = np.abs(seeker_rating[seeker] - other_rating[other]) > skip_within[other]
            seeker, other = seeker[far], other[far]
        u, v = (other, seeker) if seekers_play_sc2 else (seeker, other)
        keep = legal(arrays, u, v)
        if keep.any():
            yield u[keep], v[keep]


def legal_by_player(arrays: DuelArrays, players: Ints) -> tuple[Ints, Ints, Ints, Ints]:
    """Every legal directed pair ``(u, v)`` (u plays BW) touching ``players``, once per
    member of ``players`` in it: ``(player, partner, u, v)``, sorted by player, then rating
    gap, then partner (a pair legal both ways appears once per side choice).

    Notes: as :func:`legal_touching`, then a sort of the pairs found.
    """
    u, v = legal_touching(arrays, players)
    inside = np.zeros(arrays.size, dtype=bool)
    inside[players] = True
    bw_side, sc2_side = np.flatnonzero(inside[u]), np.flatnonzero(inside[v])
    at = np.concatenate([bw_side, sc2_side])
    player = np.concatenate([u[bw_side], v[sc2_side]])
    partner = np.concatenate([v[bw_side], u[sc2_side]])
    gap = np.abs(arrays.bw[u[at]] - arrays.sc2[v[at]])
    order = pair_order(player, gap, partner, arrays.size)
    at = at[order]
    return player[order], partner[order], u[at], v[at]


class PlayerPairs:
    """Each player's legal directed pairs in :func:`legal_by_player`'s order, searched for
    the players asked about and kept: the augmenting paths and the re-choice of the pairs
    after them (:mod:`matcher.duel.large_complete`) read the pairs of mostly the same
    players. A player's pairs and their order do not depend on the other players searched
    with it (a pair legal both ways lists its player's BW side first), so what is kept is
    what a search of that player alone gives.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1500), DuelPlayer("b", 1540, 1540),
    ...            DuelPlayer("c", None, 1600)]
    >>> pairs = PlayerPairs(duel_arrays(players, ("m",), Window(75, 25), DuelConfig()))
    >>> pairs.partners(0).tolist(), pairs.partners(1).tolist()  # a and c are 100 apart
    ([1], [0, 2])
    >>> [x.tolist() for x in pairs.nearest(np.arange(3), 1)]  # (BW, SC2) per player
    [[0, 1, 1], [1, 0, 2]]
    """

    def __init__(self, arrays: DuelArrays) -> None:
        self.arrays = arrays
        #: Per player searched: its pairs ``(u, v)`` and its distinct partners, nearest first.
        self._pairs: dict[int, tuple[Ints, Ints]] = {}
        self._partners: dict[int, Ints] = {}

    def known(self, player: int) -> bool:
        return player in self._pairs

    def search(self, players: Ints) -> None:
        """Search the pairs of those of ``players`` not searched yet, in one go.

        Notes: as :func:`legal_by_player` on them.
        """
        players = np.unique(players)
        missing = players[[int(p) not in self._pairs for p in players.tolist()]]
        if not len(missing):
            return
        player, partner, u, v = legal_by_player(self.arrays, missing)
        low = np.searchsorted(player, missing, "left").tolist()
        high = np.searchsorted(player, missing, "right").tolist()
        # A pair legal both ways is listed twice: a partner's first (nearest) entry.
        _, first = np.unique(player * self.arrays.size + partner, return_index=True)
        first.sort()
        distinct_player, distinct = player[first], partner[first]
        distinct_low = np.searchsorted(distinct_player, missing, "left").tolist()
        distinct_high = np.searchsorted(distinct_player, missing, "right").tolist()
        for one, start, stop, dstart, dstop in zip(
            missing.tolist(), low, high, distinct_low, distinct_high, strict=True
        ):
            self._pairs[one] = (u[start:stop], v[start:stop])
            self._partners[one] = distinct[dstart:dstop]

    def partners(self, player: int) -> Ints:
        """The players ``player`` may play (either side), nearest in rating first."""
        if player not in self._partners:
            self.search(np.array([player], dtype=np.int64))
        return self._partners[player]

    def nearest(self, players: Ints, k: int) -> tuple[Ints, Ints]:
        """For each of ``players`` (distinct, ascending), its ``k`` legal pairs nearest in
        rating, as directed pairs ``(u, v)`` (u plays BW); a pair near to both its players
        is listed once per player.

        Notes: the players searched already read their pairs; the others are searched
        outward from their ratings only as far as their ``k`` nearest
        (:func:`matcher.duel.nearest.nearest_pairs`).
        """
        known = [p for p in players.tolist() if p in self._pairs]
        player, u, v = nearest_pairs(self.arrays, np.setdiff1d(players, known), k)
        if known:
            kept = [self._pairs[p] for p in known]
            count = [min(len(pairs), k) for pairs, _ in kept]
            player = np.concatenate([player, np.repeat(np.array(known, dtype=np.int64), count)])
            u = np.concatenate([u, *[pairs[:k] for pairs, _ in kept]])
            v = np.concatenate([v, *[pairs[:k] for _, pairs in kept]])
            order = np.argsort(player, kind="stable")
            u, v = u[order], v[order]
        return u, v
