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
from matcher.duel.nearest import (
    by_nearness,
    candidates_in_ranges,
    nearest_pairs,
    tie_bits,
    tie_partner,
    tie_rank,
)


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


def partners_by_player(
    arrays: DuelArrays, players: Ints, touching: tuple[Ints, Ints] | None = None
) -> tuple[Ints, Ints]:
    """Each of ``players``' legal partners (either side), as ``(player, partner)`` sorted by
    player, then rating gap, then :func:`matcher.duel.nearest.tie_rank`; a partner legal
    both ways is listed once, at its nearer side choice (the player's BW side on a tie).
    ``touching``: the directed pairs :func:`legal_touching` gives for ``players`` or more,
    when found already.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1500), DuelPlayer("b", 1540, 1540),
    ...            DuelPlayer("c", None, 1600)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> [x.tolist() for x in partners_by_player(arrays, np.arange(3))]  # a and c: 100 apart
    [[0, 1, 1, 2], [1, 0, 2, 1]]

    Notes: as :func:`legal_touching`, then two sorts of one integer key per pair found.
    """
    u, v = legal_touching(arrays, players) if touching is None else touching
    inside = np.zeros(arrays.size, dtype=bool)
    inside[players] = True
    as_bw, as_sc2 = inside[u], inside[v]
    player = np.concatenate([u[as_bw], v[as_sc2]])
    partner = np.concatenate([v[as_bw], u[as_sc2]])
    gap = np.concatenate([arrays.bw[u[as_bw]], arrays.bw[u[as_sc2]]])
    gap -= np.concatenate([arrays.sc2[v[as_bw]], arrays.sc2[v[as_sc2]]])
    np.abs(gap, out=gap)
    side = np.repeat(np.array([0, 1], dtype=np.int64), [int(as_bw.sum()), int(as_sc2.sum())])
    # Each pair once as one integer key (no two alike), sorted by value: no permutation to
    # gather through, and the player, gap and partner read back from the key by shifts
    # and masks (each field given a power-of-two width).
    players_bits = tie_bits(arrays.size)
    gap_bits = (int(gap.max()) if len(gap) else 1).bit_length()
    pair = (player << players_bits) | partner
    by_partner = np.sort((((pair << gap_bits) | gap) << 1) | side)
    pair = by_partner >> (gap_bits + 1)
    first = np.ones(len(pair), dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    pair, gap = pair[first], (by_partner[first] >> 1) & ((1 << gap_bits) - 1)
    player, partner = pair >> players_bits, pair & ((1 << players_bits) - 1)
    rank = tie_rank(player, partner, arrays.size)
    by_gap = np.sort(((player << gap_bits | gap) << players_bits) | rank)
    player = by_gap >> (gap_bits + players_bits)
    return player, tie_partner(player, by_gap & ((1 << players_bits) - 1), arrays.size)


class LegalPartners:
    """Each player's legal partners, nearest in rating first (:func:`partners_by_player`),
    searched for the players asked about and kept: the rounds of augmenting paths read
    the partners of mostly the same players, and the re-choice of the pairs after them
    (:mod:`matcher.duel.large_complete`) each player's nearest pairs. A player's partners
    do not depend on the other players searched with it.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1500), DuelPlayer("b", 1540, 1540),
    ...            DuelPlayer("c", None, 1600)]
    >>> partners = LegalPartners(duel_arrays(players, ("m",), Window(75, 25), DuelConfig()))
    >>> partners.of(0).tolist(), partners.of(1).tolist()  # a and c are 100 apart
    ([1], [0, 2])
    >>> [x.tolist() for x in partners.nearest(np.arange(3), 1)]  # (player, BW, SC2)
    [[0, 1, 2], [0, 1, 1], [1, 0, 2]]
    """

    def __init__(self, arrays: DuelArrays) -> None:
        self.arrays = arrays
        self._partners: dict[int, Ints] = {}

    def known(self, player: int) -> bool:
        return player in self._partners

    def search(self, players: Ints, touching: tuple[Ints, Ints] | None = None) -> None:
        """Search the partners of those of ``players`` not searched yet, in one go; read
        them off ``touching`` instead when given (every legal pair touching ``players``).

        Notes: as :func:`partners_by_player` on them.
        """
        players = np.unique(players)
        missing = players[[int(p) not in self._partners for p in players.tolist()]]
        if not len(missing):
            return
        player, partner = partners_by_player(self.arrays, missing, touching)
        low = np.searchsorted(player, missing, "left").tolist()
        high = np.searchsorted(player, missing, "right").tolist()
        for one, start, stop in zip(missing.tolist(), low, high, strict=True):
            self._partners[one] = partner[start:stop]

    def touching(self, players: Ints) -> tuple[Ints, Ints]:
        """Every legal directed pair ``(u, v)`` (u plays BW) with ``u`` or ``v`` in
        ``players`` (:func:`legal_touching`), their partners kept as :meth:`search` keeps
        them: the players left out are the ones the augmenting paths search first.

        Notes: as :func:`legal_touching`.
        """
        found = legal_touching(self.arrays, players)
        self.search(players, found)
        return found

    def of(self, player: int) -> Ints:
        """The players ``player`` may play (either side), nearest in rating first."""
        if player not in self._partners:
            self.search(np.array([player], dtype=np.int64))
        return self._partners[player]

    def nearest(self, players: Ints, k: int) -> tuple[Ints, Ints, Ints]:
        """For each of ``players`` (distinct, ascending), its ``k`` legal directed pairs
        ``(u, v)`` (u plays BW) nearest in rating, as ``(player, u, v)`` in the order
        :func:`matcher.duel.nearest.nearest_pairs` gives them.

        A player searched already reads them off its first ``k`` partners: a pair's gap
        on either side choice is at least its partner's nearer gap, so no partner further
        down the list has a pair among the ``k`` nearest. The others are searched outward
        from their ratings.
        """
        known = np.array([p for p in players.tolist() if p in self._partners], dtype=np.int64)
        player, u, v = nearest_pairs(self.arrays, np.setdiff1d(players, known), k)
        if not len(known):
            return player, u, v
        firsts = [self._partners[p][:k] for p in known.tolist()]
        owner = np.repeat(known, [len(first) for first in firsts])
        other = np.concatenate(firsts)
        as_bw, as_sc2 = legal(self.arrays, owner, other), legal(self.arrays, other, owner)
        owners, bw, sc2 = by_nearness(
            self.arrays, (owner[as_bw], other[as_bw]), (owner[as_sc2], other[as_sc2])
        )
        rank = np.arange(len(owners)) - np.searchsorted(owners, owners)
        near = rank < k
        player = np.concatenate([player, owners[near]])
        order = np.argsort(player, kind="stable")
        u, v = np.concatenate([u, bw[near]]), np.concatenate([v, sc2[near]])
        return player[order], u[order], v[order]
