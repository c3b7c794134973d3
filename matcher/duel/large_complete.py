"""Large waves of ``optimal``, completion step: pair the players the relaxation's rounding
left out, until no legal pair and no short augmenting path is left; under a rule that
refuses pairs whatever their ratings, until no augmenting path at all is left.

Each odd cycle of the relaxation (:mod:`matcher.duel.large`) leaves one member out. With
integer ratings and many ties (a same-game ladder) there are hundreds of them, and the
left-out players are mostly legal with each other. Two steps pair them:

1. the relaxation again, on the left-out players only (their own candidate graph), a few
   rounds while it pairs any: cheap, and it pairs them by the same criterion;
2. augmenting paths of one edge (two left-out players legal with each other) and of three
   edges (``x - a = b - y``: a pair ``a b`` re-paired as ``x a`` and ``b y``), searched on
   every legal pair of the left-out players (:mod:`matcher.duel.near`, exact), applied
   cheapest first until none is left.

After step 2 no two unmatched players may play each other: the result is maximal. Longer
augmenting paths are searched inside the rating neighbourhood of the players still left
out (rustworkx's blossom); the pair bound (:mod:`matcher.duel.bound`) says per wave how
far from a maximum matching the result can be at most, and when the pairs fall under
99.5 % of it every augmenting path is applied (:mod:`matcher.duel.augment`). Last, the
dearest pairs are re-chosen by the blossom with their rating neighbourhoods: on a wave of
a few hundred players they set the 99th percentile of the rating differences, and the
relaxation's rounding chooses who sits out inside each odd cycle only.

A queue rule that refuses pairs by the players' traits, whatever their ratings
(``max_latency_ms``, attributes, named checks), breaks the rating order these steps
follow: a player's few legal partners may lie hundreds of places off. The relaxation then
takes every legal pair (:mod:`matcher.duel.large`); step 1 is skipped (it pairs left-out
players with each other at any gap); after step 2 every augmenting path is applied
(:mod:`matcher.duel.augment`): the result has the most pairs of any matching. The paths
ignore the score, so the pairs are then re-chosen by the blossom among each player's
nearest legal partners, in blocks by rating (:func:`_cheapest_again`). Meetings and block
lists refuse a few listed pairs: the usual steps run, then every augmenting path when
the pair bound says one may be left.

No library repairs a matching from a given one: rustworkx's and networkx's blossoms start
from nothing, and on the whole wave cost several times the large tier's time budget.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import rustworkx as rx

from matcher.duel.augment import ListedPartners, augment_to_maximum
from matcher.duel.bound import pair_bound
from matcher.duel.graph import (
    Bools,
    DuelArrays,
    Ints,
    candidate_edges,
    cost,
    legal,
    subset,
    undirected,
    unique_sorted,
)
from matcher.duel.large import relaxed_pairs
from matcher.duel.near import LegalPartners
from matcher.duel.nearest import by_rating_scattered
from matcher.duel.small import exact_pairs, exact_pairs_on, legal_edges

#: Players nearest in rating to a left-out player re-solved exactly with it (and their
#: partners): long enough for the augmenting paths of sparse tails, small enough for the
#: blossom to stay cheap.
_BALL = 60
#: Neighbourhoods re-solved per wave at most (each adds at least one pair).
_BALL_ROUNDS = 4

#: Legal partners nearest in rating per player, in multiples of ``optimal_neighbours``,
#: among which :func:`_cheapest_again` re-chooses the pairs: enough for a player whose
#: few legal partners lie many places off in rating (a latency limit), few enough for
#: the blossom.
_NEAREST = 16
#: Pairs at a player's own rating among them, in multiples of ``optimal_neighbours``.
_TIES = 8
#: Players from which the augmenting paths are searched first among the near pairs: on
#: smaller waves the paths' search of every legal pair of the few players it reaches
#: costs less than the near pairs of every player.
_NEAR_PATHS_FROM = 2_000
#: Players re-paired by one blossom, about (its time grows faster than the square).
_BLOCK = 1000

#: The share of the pair bound the large tier makes at least, as a fraction: below it
#: every augmenting path is searched.
_SHARE = (995, 1000)

#: Pairs re-chosen exactly among their rating neighbours after completion, dearest first:
#: a pair far off in rating that another choice of sit-outs or partners nearby avoids
#: sets a small wave's 99th percentile, which the relaxation's rounding and its candidate
#: graph do not see.
_DEAREST = 3
#: Players nearest in rating to each member of such a pair, re-solved with it (with
#: their partners).
_DEAR_BALL = 40

#: Relaxations of the left-out players at most (each pairs most of them: their odd cycles
#: leave about one in three out again).
_RELAX_ROUNDS = 3


class Completed(NamedTuple):
    """The completed pairs ``(bw[i], sc2[i])`` and ``bound``: no matching of the wave has
    more pairs (their count when a search proved it)."""

    bw: Ints
    sc2: Ints
    bound: int


def completed_pairs(arrays: DuelArrays, bw: Ints, sc2: Ints, k: int, cap: int) -> Completed:
    """The pairs ``(bw[i], sc2[i])`` completed as the module says; every given pair is kept
    or re-paired through an augmenting path, so the count never drops.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer(p, 1500, 1500) for p in "abcd"]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> found = completed_pairs(arrays, np.array([0]), np.array([1]), 6, 2)
    >>> found.bw.tolist(), found.sc2.tolist(), found.bound
    ([0, 1], [3, 2], 2)

    Notes: a few relaxations of the left-out players, then per round of augmenting paths
    one exact search of their legal pairs (:func:`matcher.duel.near.legal_touching`); one
    pair bound (:mod:`matcher.duel.bound`); a blossom per neighbourhood of the dearest
    pairs.
    """
    state = _Pairs(arrays.size, bw, sc2)
    searched = LegalPartners(arrays)  # each left-out player's partners, searched once
    if arrays.limits is not None and arrays.limits.refuses_by_traits():  # the module says why
        _most_pairs_then_cheapest(arrays, state, k, searched)
        bw, sc2 = state.arrays()
        return Completed(bw, sc2, len(bw))  # no augmenting path is left: proved
    for _ in range(_RELAX_ROUNDS):
        loose = state.loose()
        if len(loose) < 2:
            break
        found = relaxed_pairs(subset(arrays, loose), k, cap).pairs
        if not found:
            break
        for a, b in found:
            state.pair(int(loose[a]), int(loose[b]))
    for _ in range(_BALL_ROUNDS):
        touching = _augment_all(arrays, state, searched)
        # A re-solved neighbourhood may leave out a player of its own who can play one
        # outside it: the augmenting paths run again after each.
        if not _ball_repair(arrays, state, touching):
            break
    else:
        _augment_all(arrays, state, searched)
    bw, sc2 = state.arrays()
    bound = pair_bound(arrays, bw, sc2)
    # Meetings and block lists refuse a few listed pairs: the steps above leave a pair out
    # now and then, which only a search of every augmenting path finds, run when the
    # bound says one may be left. Without them the search runs when the pairs fall short
    # of the share of the bound the large tier promises (docs/optimal.md).
    listed = arrays.limits is not None and len(arrays.limits.met)
    if len(bw) < bound and (listed or len(bw) * _SHARE[1] < bound * _SHARE[0]):
        for first, second in augment_to_maximum(arrays, state.mate, searched):
            state.pair(first, second)
        bound = int((state.mate >= 0).sum()) // 2  # no augmenting path is left: proved
    _dearest_again(arrays, state, k)
    bw, sc2 = state.arrays()
    return Completed(bw, sc2, bound)


class _Pairs:
    """A matching as ``mate`` (-1: unmatched) and which member of each pair plays BW."""

    def __init__(self, n: int, bw: Ints, sc2: Ints) -> None:
        self.mate = np.full(n, -1, dtype=np.int64)
        self.mate[bw], self.mate[sc2] = sc2, bw
        self.plays_bw = np.zeros(n, dtype=bool)
        self.plays_bw[bw] = True

    def loose(self) -> Ints:
        found: Ints = np.flatnonzero(self.mate < 0)
        return found

    def pair(self, bw: int, sc2: int) -> None:
        self.mate[bw], self.mate[sc2] = sc2, bw
        self.plays_bw[bw], self.plays_bw[sc2] = True, False

    def arrays(self) -> tuple[Ints, Ints]:
        bw = np.flatnonzero((self.mate >= 0) & self.plays_bw)
        return bw, self.mate[bw]

    def with_partners(self, players: Ints) -> Bools:
        """``players`` and their partners, as a mask: a set closed under partners, which
        can be re-paired among itself without touching another pair."""
        inside = np.zeros(len(self.mate), dtype=bool)
        inside[players] = True
        mates = self.mate[players]
        inside[mates[mates >= 0]] = True
        return inside


def _augment_all(arrays: DuelArrays, state: _Pairs, searched: LegalPartners) -> tuple[Ints, Ints]:
    """Rounds of :func:`_augment` until none is left, on one search of the left-out
    players' legal pairs (``searched`` keeps their partners for the longer paths and the
    re-choice): augmenting never unmatches a player, so the pairs touching the players
    still left out are among those found first. Returns those pairs (one per unordered
    pair; none when fewer than two players are left out, as then no augmenting path
    exists)."""
    loose = state.loose()
    if len(loose) < 2:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    # Collapsed once: dropping the pairs of players since matched keeps or drops both
    # orientations of a pair, so filtering the collapsed edges gives the same edges.
    bw, sc2, cost = undirected(arrays, *searched.touching(loose))
    while len(bw) and _augment(arrays, state, bw, sc2, cost):
        is_loose = state.mate < 0
        keep = is_loose[bw] | is_loose[sc2]
        bw, sc2, cost = bw[keep], sc2[keep], cost[keep]
    return bw, sc2


def _augment(arrays: DuelArrays, state: _Pairs, bw: Ints, sc2: Ints, cost: Ints) -> bool:
    """One round of augmenting paths of one and three edges, cheapest first, disjoint, on
    the legal pairs ``(bw, sc2)`` at ``cost`` (one per unordered pair, as
    :func:`matcher.duel.graph.undirected` gives them) touching every left-out player;
    False when there is none."""
    is_loose = state.mate < 0
    both = is_loose[bw] & is_loose[sc2]
    used = np.zeros(arrays.size, dtype=bool)
    made = False
    for i in np.flatnonzero(both)[np.argsort(cost[both], kind="stable")].tolist():
        first, second = int(bw[i]), int(sc2[i])
        if not used[first] and not used[second]:
            used[first] = used[second] = made = True
            state.pair(first, second)
    # Edges x - a (x loose, a matched) as (a, x, orientation, cost), two cheapest per a.
    one = ~both
    x = np.where(is_loose[bw], bw, sc2)[one]
    a = np.where(is_loose[bw], sc2, bw)[one]
    order = np.lexsort((x, cost[one], a))
    x, a, x_bw, c = x[order], a[order], (bw[one] == x)[order], cost[one][order]
    rank = np.arange(len(a)) - np.searchsorted(a, a)
    top = rank < 2
    x, a, x_bw, c = x[top], a[top], x_bw[top], c[top]
    return _three_edge_paths(state, used, (x, a, x_bw, c)) or made


def _most_pairs_then_cheapest(
    arrays: DuelArrays, state: _Pairs, k: int, searched: LegalPartners
) -> None:
    """Under a rule that refuses pairs whatever their ratings: the short paths, then every
    augmenting path (:mod:`matcher.duel.augment`), so that no matching has more pairs;
    then :func:`_cheapest_again` (the paths ignore the score, and so does rounding the
    relaxation's odd cycles, which are many under such a rule).

    On waves of ``_NEAR_PATHS_FROM`` players or more the paths are searched first among
    each player's nearest legal partners (the pairs the re-choice reads too), the
    candidate graph and the left-out players' pairs: on a dense wave every legal pair is
    thousands per player, and the paths a maximum matching needs run through near pairs.
    Every legal pair is then searched only while the pair bound is above the count, to
    prove no path is left."""
    touching = _augment_all(arrays, state, searched)
    everyone, wanted = np.arange(arrays.size, dtype=np.int64), _NEAREST * k
    candidates = candidate_edges(arrays, k)
    nearest: tuple[Ints, Ints, Ints] | None = None
    if not _bound_met(arrays, state):
        sources: list[LegalPartners | ListedPartners] = [searched]
        if arrays.size >= _NEAR_PATHS_FROM:
            nearest = searched.nearest(everyone, wanted)
            near_u = np.concatenate([nearest[1], candidates[0], touching[0]])
            near_v = np.concatenate([nearest[2], candidates[1], touching[1]])
            sources.insert(0, ListedPartners(arrays, near_u, near_v))
        for partners in sources:
            for bw, sc2 in augment_to_maximum(arrays, state.mate, partners):
                state.pair(bw, sc2)
            if _bound_met(arrays, state):
                break
    if nearest is None:  # after the paths: read off the partners they searched
        nearest = searched.nearest(everyone, wanted)
    _cheapest_again(arrays, state, _fewer_ties(arrays, nearest, _TIES * k), candidates)


def _fewer_ties(
    arrays: DuelArrays, nearest: tuple[Ints, Ints, Ints], ties: int
) -> tuple[Ints, Ints]:
    """The pairs ``(u, v)`` of ``nearest`` (``(player, u, v)`` as
    :meth:`LegalPartners.nearest` gives them), each player's at its own rating cut to its
    first ``ties``: met in each player's own order, they reach across its tie group, and
    more of them only slow the blossom."""
    player, u, v = nearest
    rank = np.arange(len(player)) - np.searchsorted(player, player)
    keep = (rank < ties) | (arrays.bw[u] != arrays.sc2[v])
    return u[keep], v[keep]


def _bound_met(arrays: DuelArrays, state: _Pairs) -> bool:
    """Whether the matching has as many pairs as the pair bound allows: then no matching
    has more, and no augmenting path is left to search."""
    bw, sc2 = state.arrays()
    return len(bw) >= pair_bound(arrays, bw, sc2)


def _cheapest_again(
    arrays: DuelArrays, state: _Pairs, nearest: tuple[Ints, Ints], candidates: tuple[Ints, Ints]
) -> None:
    """Re-pair the wave by rustworkx's blossom (most pairs, then least score) among the
    pairs found, each player's ``_NEAREST * k`` legal partners nearest in rating
    (``nearest``, as :meth:`LegalPartners.nearest` gives them) and the candidate graph:
    in blocks of about ``_BLOCK`` players by rating, each with its players' partners
    (re-pairing such a block is free), and, when there are several, a second time
    shifted by half a block. A block keeps its pair count (its pairs found are among
    those edges, and the wave has no matching with more) and never costs more."""
    n = arrays.size
    u = np.concatenate([nearest[0], candidates[0]])
    v = np.concatenate([nearest[1], candidates[1]])
    # Both side choices of each pair where legal, so that the cheaper is taken.
    back = legal(arrays, v, u)
    keys = unique_sorted(np.concatenate([u * n + v, v[back] * n + u[back]]))
    u, v = keys // n, keys % n
    # By rating, and inside one rating in the scattered order rather than by join order,
    # so that a block cutting a tie group takes new and long-waiting players alike: a
    # latency limit lets the new ones play only those who have waited.
    order = by_rating_scattered(_rating(arrays), np.arange(n, dtype=np.int64), n)
    size = -(-n // max(1, round(n / _BLOCK)))  # equal blocks, about _BLOCK players
    starts = [*range(0, n, size), *(range(size // 2, n - size // 2, size) if n > size else ())]
    for start in starts:
        block = order[start : start + size]
        inside = state.with_partners(block)
        bw, sc2 = state.arrays()
        mine = inside[bw]
        kept = inside[u] & inside[v]
        if _least_already(arrays, state, (bw[mine], sc2[mine]), (u[kept], v[kept])):
            continue
        # The partners from outside the block: their other partners lie outside it, so the
        # block may not leave them out for a player of its own.
        guests = inside.copy()
        guests[block] = False
        block_u = np.concatenate([bw[mine], u[kept]])
        block_v = np.concatenate([sc2[mine], v[kept]])
        pairs = unique_sorted(block_u * n + block_v)
        state.mate[inside] = -1
        for bw_player, sc2_player in exact_pairs_on(arrays, pairs // n, pairs % n, guests):
            state.pair(bw_player, sc2_player)


def _least_already(
    arrays: DuelArrays, state: _Pairs, pairs: tuple[Ints, Ints], edges: tuple[Ints, Ints]
) -> bool:
    """Whether a block's ``pairs`` already take the least score of any matching on its
    ``edges``: every player of an edge is paired, so every matching with as many pairs
    pairs the same players (the score's terms per player are the same), and every pair
    is at gap 0, the least its one term per pair can be (where no ``sort`` rule adds
    another). One rating for all is such a block."""
    if arrays.limits is not None and arrays.limits.sort is not None:
        return False
    if (arrays.bw[pairs[0]] != arrays.sc2[pairs[1]]).any():
        return False
    return bool((state.mate[edges[0]] >= 0).all() and (state.mate[edges[1]] >= 0).all())


def _dearest_again(arrays: DuelArrays, state: _Pairs, k: int) -> None:
    """Re-pair the ``_DEAREST`` dearest pairs' neighbourhoods by rustworkx's blossom (most
    pairs, then least score): the ``_DEAR_BALL`` players nearest in rating to each of
    their members, with their partners, on the neighbourhood's candidate graph and its
    pairs; overlapping neighbourhoods are solved as one. A neighbourhood's pairs are among
    its edges, so it never loses a pair nor costs more."""
    bw, sc2 = state.arrays()
    if not len(bw):
        return
    dearest = np.argsort(-cost(arrays, bw, sc2), kind="stable")[:_DEAREST]
    order, place = _rating_places(arrays)
    reach = np.arange(-(_DEAR_BALL // 2), _DEAR_BALL // 2 + 1)
    centres = np.concatenate([bw[dearest], sc2[dearest]])
    spots = np.unique(np.clip(place[centres][:, None] + reach, 0, arrays.size - 1))
    for run in np.split(spots, np.flatnonzero(np.diff(spots) > 1) + 1):
        inside = state.with_partners(order[run])
        ball = np.flatnonzero(inside)
        near_u, near_v = candidate_edges(subset(arrays, ball), k)
        bw, sc2 = state.arrays()
        kept = inside[bw]
        u = np.concatenate([ball[near_u], bw[kept]])
        v = np.concatenate([ball[near_v], sc2[kept]])
        state.mate[ball] = -1
        for bw_player, sc2_player in exact_pairs_on(arrays, u, v):
            state.pair(bw_player, sc2_player)


def _rating_places(arrays: DuelArrays) -> tuple[Ints, Ints]:
    """The players by :func:`_rating` and each player's place in that order."""
    order = np.argsort(_rating(arrays), kind="stable")
    place = np.empty(arrays.size, dtype=np.int64)
    place[order] = np.arange(arrays.size)
    return order, place


def _rating(arrays: DuelArrays) -> Ints:
    """Each player's rating that orders the blocks and neighbourhoods: BW if any, else SC2."""
    rating: Ints = np.where(arrays.bw >= 0, arrays.bw, arrays.sc2)
    return rating


def _ball_repair(arrays: DuelArrays, state: _Pairs, touching: tuple[Ints, Ints]) -> bool:
    """Re-solve exactly the neighbourhood of the left-out players who have a legal partner
    (``touching``: every legal pair touching a left-out player, from :func:`_augment_all`):
    the ``_BALL`` players nearest each in rating, with their partners. An augmenting path
    inside it, of any length, is found by rustworkx's blossom; False when none is."""
    u, v = touching
    if not len(u):
        return False
    is_loose = state.mate < 0
    centres = np.unique(np.concatenate([u[is_loose[u]], v[is_loose[v]]]))
    if len(centres) < 2:
        return False  # an augmenting path joins two left-out players with a partner
    order, place = _rating_places(arrays)
    reach = np.arange(-(_BALL // 2), _BALL // 2 + 1)
    near = order[np.clip(place[centres][:, None] + reach, 0, arrays.size - 1).ravel()]
    ball = np.flatnonzero(state.with_partners(near))
    part = subset(arrays, ball)
    if _most_pairs(part) <= int((state.mate[ball] >= 0).sum()) // 2:
        return False
    state.mate[ball] = -1
    for bw, sc2 in exact_pairs(part):
        state.pair(int(ball[bw]), int(ball[sc2]))
    return True


def _most_pairs(arrays: DuelArrays) -> int:
    """The most pairs of any matching of ``arrays`` (rustworkx's blossom, cardinality only)."""
    bw, sc2, _ = legal_edges(arrays)
    graph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(arrays.size))
    graph.add_edges_from_no_data(list(zip(bw.tolist(), sc2.tolist(), strict=True)))
    return len(rx.max_weight_matching(graph, max_cardinality=True))


def _three_edge_paths(
    state: _Pairs, used: np.ndarray, edges: tuple[Ints, Ints, Ints, Ints]
) -> bool:
    """Apply disjoint paths ``x - a = b - y`` (``a b`` a pair), cheapest added cost first.

    ``edges``: ``(x, a, x plays BW, cost)`` sorted by ``a``, then cost, then ``x``; at most
    two per ``a``. Each pair is taken from its lower member: each of its options ``x``
    with the cheapest option ``y`` of the other member that is not ``x``.
    """
    x, a, x_bw, c = edges
    if not len(a):
        return False
    starts = np.flatnonzero(np.concatenate([[True], a[1:] != a[:-1]]))
    owner = a[starts]  # the players with an option, ascending
    has_second = np.diff(np.append(starts, len(a))) == 2
    slot = np.full(len(state.mate), -1, dtype=np.int64)
    slot[owner] = np.arange(len(owner))
    mates = state.mate[owner]
    taken = (mates > owner) & (slot[np.maximum(mates, 0)] >= 0)
    low, high = starts[taken], starts[slot[mates[taken]]]
    high_second = has_second[slot[mates[taken]]]
    xs, ys = [], []
    for option, exists in ((low, np.ones(len(low), dtype=bool)), (low + 1, has_second[taken])):
        # The other member's first option unless it is x itself, then its second.
        y = np.where(x[high] != x[option], high, high + 1)
        ok = exists & ((x[high] != x[option]) | high_second)
        xs.append(option[ok])
        ys.append(y[ok])
    xo, yo = np.concatenate(xs), np.concatenate(ys)
    first, second = a[xo], a[yo]
    cost, xi, yi, x_is_bw, y_is_bw = c[xo] + c[yo], x[xo], x[yo], x_bw[xo], x_bw[yo]
    order = np.lexsort((y_is_bw, x_is_bw, yi, second, first, xi, cost))
    made = False
    for xp, fp, sp, yp, xb, yb in zip(
        *(column[order].tolist() for column in (xi, first, second, yi, x_is_bw, y_is_bw)),
        strict=True,
    ):
        if used[xp] or used[yp] or used[fp] or used[sp]:
            continue
        used[xp] = used[yp] = used[fp] = used[sp] = made = True
        state.pair(xp, fp) if xb else state.pair(fp, xp)
        state.pair(yp, sp) if yb else state.pair(sp, yp)
    return made
