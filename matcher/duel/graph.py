"""The pair graph of ``optimal`` as NumPy arrays, shared by its tiers: who may play whom,
and at what cost.

A directed edge ``(u, v)`` means "u plays BW against v playing SC2". It is legal
when both offer those races, ``u != v``, the diff is inside the pair's window (by
the config's window rule) and some map is vetoed by neither. Its cost is the
design's score, ``diff**2 - wait_bonus * (wait_u + wait_v)``, less ``optimal``'s sit-out
priority ``priority * (overdue_u + overdue_v)``: ``overdue`` counts the waves a player waited
past ``optimal_sit_out_after`` and ``priority`` exceeds every legal ``diff**2``, so among
matchings of as many pairs one wave more of matched overdue wait outweighs any one pair's
rating gap: a far-rated ticket whose window has reached a partner is not left out for
ever by fresh players (docs/adr/0191).

Costs are 1-D (a rating difference), so the pairs worth considering lie close in
rating order: :func:`candidate_edges` keeps, for every rating, the ``k`` nearest
opposite ratings on each side and those at the same quantile (the large tier's graph);
:func:`legal_table` and :func:`cost_table` give every pair of a small wave.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from matcher.duel.limits import DuelLimits
from matcher.duel.model import DuelConfig, DuelPlayer, Window
from matcher.duel.percentile import RankWindow, rank_window
from matcher.duel.rematch_cost import RematchPenalty

Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]


def unique_sorted(values: NDArray[np.integer]) -> Ints:
    """``np.unique(values)`` for a 1-D integer array, by sorting.

    ``np.unique`` of NumPy 2.4 hashes integers before sorting them, several times slower
    on the candidate graph's keys.

    >>> unique_sorted(np.array([5, 1, 5, 3, 1])).tolist()
    [1, 3, 5]
    """
    ordered = np.sort(values)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    found: Ints = ordered[first]
    return found


def by_rating(ratings: Ints, players: Ints, size: int) -> Ints:
    """The order of ``players`` (indices below ``size``) by ``ratings``, then by player:
    ``np.lexsort((players, ratings))`` as one sort of unique keys, several times faster.

    >>> by_rating(np.array([1500, 1400, 1500]), np.array([7, 3, 2]), 10).tolist()
    [1, 2, 0]
    """
    keys = ratings.astype(np.int64) * size + players
    order: Ints = np.argsort(keys, kind="stable")
    return order


@dataclass(frozen=True)
class DuelArrays:
    """Players as columns. ``bw``/``sc2`` are -1 where the player lacks the race.

    ``bw_order``/``sc2_order`` list the players offering each race by rating (ties by
    wave order); ``bw_sorted``/``sc2_sorted`` are those ratings. ``limits``: the queue's
    rules as a filter on every pair (None: the queue has no rule limiting a pair).
    ``rank``: the percentile window (docs/adr/0177), which then decides a pair's window,
    ``radius`` only bounding its diff for the searches by rating (None: off).
    ``penalty``: the priced rematches the exact tier adds to the score (ADR 0180).
    """

    bw: Ints
    sc2: Ints
    wait: Ints
    radius: Ints
    veto: NDArray[np.uint64]
    all_maps: NDArray[np.uint64]
    rule: str
    lead_is_bw: bool
    bonus: int
    bw_order: Ints
    sc2_order: Ints
    bw_sorted: Ints
    sc2_sorted: Ints
    limits: DuelLimits | None = None
    #: Per wave a matched player waited past ``optimal_sit_out_after`` (0: off), above
    #: every legal ``diff**2`` of the wave (:func:`sit_out_priority`).
    priority: int = 0
    #: The waves each player waited past ``optimal_sit_out_after`` (None: off).
    overdue: Ints | None = None
    rank: RankWindow | None = None
    penalty: RematchPenalty | None = None

    @property
    def size(self) -> int:
        return len(self.bw)

    def max_radius(self) -> int:
        return int(self.radius.max()) if self.size else 0

    @cached_property
    def vetoed(self) -> bool:
        """Whether any player vetoes a map (computed once: :func:`legal` runs many times)."""
        return bool(self.veto.any())

    @cached_property
    def free_word(self) -> NDArray[np.uint64] | None:
        """The maps each player does not veto, one word per player when the maps fit in
        one, else None: a pair is playable where the two words share a bit."""
        if self.veto.shape[1] != 1:
            return None
        free: NDArray[np.uint64] = self.all_maps[0] & ~self.veto[:, 0]
        return free


def duel_arrays(
    players: Sequence[DuelPlayer],
    maps: tuple[str, ...],
    window: Window,
    config: DuelConfig,
    lead_is_bw: bool = True,
    limits: DuelLimits | None = None,
    pool: Ints | None = None,
    penalty: RematchPenalty | None = None,
) -> DuelArrays:
    """Build the arrays of a wave's players.

    ``lead_is_bw`` matters only under the ``lead`` window rule: whether the BW player's
    wait widens a pair's window (the caller passes ``ladder-v2.1``'s lead side, so every
    ladder pair is legal here, docs/adr/0013). ``limits``: the queue's rules, whose
    ``max_distance`` replaces the window (:mod:`matcher.duel.limits`). ``pool``: the
    whole wave's rating pool of the percentile window when ``players`` are part of it.

    Notes: O(n log n + n * maps / 64).
    """
    bw = np.array([-1 if p.bw_mmr is None else p.bw_mmr for p in players], dtype=np.int64)
    sc2 = np.array([-1 if p.sc2_mmr is None else p.sc2_mmr for p in players], dtype=np.int64)
    wait = np.array([p.wait_cycles for p in players], dtype=np.int64)
    veto, all_maps = _veto_masks(players, maps)
    bw_order, sc2_order = _rating_orders(bw), _rating_orders(sc2)
    radius = window.base + window.growth * wait
    rule = config.window_rule
    rank = None
    if limits is not None and limits.replaces_window:
        radius = limits.window_radius(np.concatenate([bw, sc2]))
        if limits.distance_oldest:  # the pair's limit is the larger of its two radii
            rule = "longer"
    elif config.window_percentile is not None:
        rank = rank_window(players, config.window_percentile, window, pool)
        radius = rank.points(bw, sc2)
    after, priority, overdue = config.optimal_sit_out_after, 0, None
    if after is not None and len(wait) and int(wait.max()) > after:
        overdue = np.maximum(wait - after, 0)
        priority = sit_out_priority(radius)
        if limits is not None and limits.sort is not None:  # above every legal score too
            priority += limits.sort.widest
    return DuelArrays(
        bw=bw,
        sc2=sc2,
        wait=wait,
        radius=radius,
        veto=veto,
        all_maps=all_maps,
        rule=rule,
        lead_is_bw=rule != "lead" or lead_is_bw,
        bonus=config.wait_bonus,
        bw_order=bw_order,
        sc2_order=sc2_order,
        bw_sorted=bw[bw_order],
        sc2_sorted=sc2[sc2_order],
        limits=limits,
        priority=priority,
        overdue=overdue,
        rank=rank,
        penalty=penalty,
    )


def sit_out_priority(radius: Ints) -> int:
    """The reward per overdue wave of a matched player that outweighs any legal pair's
    ``diff**2`` (no legal diff exceeds the largest radius).

    >>> sit_out_priority(np.array([75, 100]))
    10001
    """
    return int(radius.max(initial=0)) ** 2 + 1


def _veto_masks(
    players: Sequence[DuelPlayer], maps: tuple[str, ...]
) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]:
    words = max(1, (len(maps) + 63) // 64)
    all_maps = np.zeros(words, dtype=np.uint64)
    index = {name: i for i, name in enumerate(maps)}
    for i in range(len(maps)):
        all_maps[i // 64] |= np.uint64(1 << (i % 64))
    # Players share a few veto sets (most have none): each distinct set is resolved to
    # its bits once, then every player takes its set's row.
    row_of: dict[tuple[str, ...], int] = {}
    rows = [row_of.setdefault(_veto_key(player.vetoed_maps), len(row_of)) for player in players]
    distinct = np.zeros((len(row_of), words), dtype=np.uint64)
    for vetoes, row in row_of.items():
        for bit in (index[name] for name in vetoes if name in index):
            distinct[row, bit // 64] |= np.uint64(1 << (bit % 64))
    veto: NDArray[np.uint64] = distinct[np.array(rows, dtype=np.int64)]
    return veto, all_maps


def _veto_key(vetoes: Sequence[str]) -> tuple[str, ...]:
    return vetoes if type(vetoes) is tuple else tuple(vetoes)


def legal(arrays: DuelArrays, u: Ints, v: Ints) -> Bools:
    """Mask of the edges (u as BW, v as SC2) that are legal.

    Notes: O(len(u) * map words).
    """
    # In place where it can be: every fresh temporary of a large wave's size costs page
    # faults under glibc's defaults.
    diff, sc2 = arrays.bw[u], arrays.sc2[v]
    ok: Bools = u != v
    ok &= diff >= 0
    ok &= sc2 >= 0
    np.subtract(diff, sc2, out=diff)
    np.abs(diff, out=diff)
    radius, other = arrays.radius[u], arrays.radius[v]
    if arrays.rule == "longer":
        np.maximum(radius, other, out=radius)
    elif arrays.rule == "shorter":
        np.minimum(radius, other, out=radius)
    elif not arrays.lead_is_bw:
        radius = other
    ok &= diff <= radius
    if arrays.rank is not None:
        ok &= _within_rank(arrays, arrays.rank, u, v)
    if arrays.limits is not None:
        ok &= arrays.limits.allowed(u, v, diff)
    word = arrays.free_word
    if arrays.vetoed and word is not None:
        shared = word[u]
        shared &= word[v]
        ok &= shared != 0
    elif arrays.vetoed:
        free = arrays.all_maps & ~(arrays.veto[u] | arrays.veto[v])
        ok &= free.any(axis=1)
    elif not arrays.all_maps.any():
        ok &= False
    return ok


def legal_table(arrays: DuelArrays, members: Ints) -> Bools:
    """``[a, b]``: may ``members[a]`` play BW against ``members[b]``? Same rule as :func:`legal`.

    >>> from matcher.duel.model import DuelConfig, Window
    >>> players = [DuelPlayer("a", 1500, 1490), DuelPlayer("b", None, 1510)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> legal_table(arrays, np.array([0, 1])).tolist()
    [[False, True], [False, False]]

    Notes: O(p^2 * map words) for p members, by broadcasting (no index arrays).
    """
    bw, sc2 = arrays.bw[members][:, None], arrays.sc2[members][None, :]
    ok: Bools = (bw >= 0) & (sc2 >= 0)
    np.fill_diagonal(ok, False)
    ru, rv = arrays.radius[members][:, None], arrays.radius[members][None, :]
    if arrays.rule == "longer":
        radius = np.maximum(ru, rv)
    elif arrays.rule == "shorter":
        radius = np.minimum(ru, rv)
    else:
        radius = ru if arrays.lead_is_bw else rv
    diff = np.abs(bw - sc2)
    ok &= diff <= radius
    if arrays.rank is not None:
        column = members[None, :]
        ok &= _within_rank(arrays, arrays.rank, members[:, None], column, bw, sc2)
    if arrays.limits is not None:
        ok &= arrays.limits.allowed_table(members, diff)
    veto = arrays.veto[members]
    if veto.any():
        ok &= _any_free_map(arrays, veto)
    elif not arrays.all_maps.any():
        ok &= False
    return ok


def _within_rank(
    arrays: DuelArrays,
    rank: RankWindow,
    u: Ints,
    v: Ints,
    bw: Ints | None = None,
    sc2: Ints | None = None,
) -> Bools:
    """Mask of the pairs (u as BW, v as SC2) within the percentile window: the pair's
    reach is its players' by the window rule, as its points window would be."""
    mine, theirs = rank.reach[u], rank.reach[v]
    if arrays.rule == "longer":
        reach = np.maximum(mine, theirs)
    elif arrays.rule == "shorter":
        reach = np.minimum(mine, theirs)
    else:
        reach = mine if arrays.lead_is_bw else theirs
    bw = arrays.bw[u] if bw is None else bw
    sc2 = arrays.sc2[v] if sc2 is None else sc2
    return rank.allowed(bw, sc2, reach)


def _any_free_map(arrays: DuelArrays, veto: NDArray[np.uint64]) -> Bools:
    free: Bools = np.zeros((len(veto), len(veto)), dtype=bool)
    for word in range(veto.shape[1]):
        free |= (arrays.all_maps[word] & ~(veto[:, word][:, None] | veto[:, word][None, :])) != 0
    return free


def cost_table(arrays: DuelArrays, members: Ints) -> Ints:
    """``[a, b]``: the score of ``members[a]`` (BW) against ``members[b]`` (SC2).

    Notes: O(p^2).
    """
    diff = arrays.bw[members][:, None] - arrays.sc2[members][None, :]
    wait = arrays.wait[members]
    result: Ints = diff * diff - arrays.bonus * (wait[:, None] + wait[None, :])
    if arrays.overdue is not None:
        overdue = arrays.overdue[members]
        result -= arrays.priority * (overdue[:, None] + overdue[None, :])
    if arrays.penalty is not None:
        result += arrays.penalty.table(members)
    if arrays.limits is not None and arrays.limits.sort is not None:
        result += arrays.limits.sort.table(members)
    return result


def cost(arrays: DuelArrays, u: Ints, v: Ints) -> Ints:
    """The score of u (BW) against v (SC2): ``diff**2 - bonus * waits``, less the sit-out
    priority of their overdue waves, plus the queue's ``sort`` term (ADR 0195)."""
    diff = arrays.bw[u] - arrays.sc2[v]
    result: Ints = diff * diff - arrays.bonus * (arrays.wait[u] + arrays.wait[v])
    if arrays.overdue is not None:
        result -= arrays.priority * (arrays.overdue[u] + arrays.overdue[v])
    if arrays.limits is not None and arrays.limits.sort is not None:
        result += arrays.limits.sort.pairs(u, v)
    return result


def nearest_edges(arrays: DuelArrays, k: int) -> tuple[Ints, Ints]:
    """Legal edges from every rating to the ``k`` nearest opposite ratings each way.

    Returns ``(u, v)`` (u plays BW), without duplicates, sorted by (u, v).

    >>> from matcher.duel.model import DuelConfig, Window
    >>> players = [DuelPlayer("a", 1500, None), DuelPlayer("b", None, 1510)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> [x.tolist() for x in nearest_edges(arrays, 2)]
    [[0], [1]]

    Notes: O(n k log(n k)).
    """
    bo, so = arrays.bw_order, arrays.sc2_order
    if not len(bo) or not len(so):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    offsets = np.arange(-k, k, dtype=np.int64)
    at = _tie_spread(arrays.bw_sorted, arrays.sc2_sorted)
    cols = np.clip(at[:, None] + offsets, 0, len(so) - 1)
    u1, v1 = np.repeat(bo, 2 * k), so[cols.ravel()]
    at = _tie_spread(arrays.sc2_sorted, arrays.bw_sorted)
    rows = np.clip(at[:, None] + offsets, 0, len(bo) - 1)
    u2, v2 = bo[rows.ravel()], np.repeat(so, 2 * k)
    n = arrays.size
    keys = unique_sorted(np.concatenate([u1 * n + v1, u2 * n + v2]))
    u, v = keys // n, keys % n
    keep = legal(arrays, u, v)
    return u[keep], v[keep]


def _tie_spread(own: Ints, other: Ints) -> Ints:
    """Where each of the sorted ratings ``own`` falls among the sorted ratings ``other``,
    ties spread: the players of one rating are placed evenly over the other side's
    players of that rating, not all at its first, so that a tied group's nearest edges
    reach all of the other side's group instead of the same few.

    >>> _tie_spread(np.array([5, 5, 5, 5]), np.array([1, 5, 5, 5, 5, 5, 5, 5, 5, 9])).tolist()
    [2, 4, 6, 8]
    >>> _tie_spread(np.array([3, 7]), np.array([1, 5, 9])).tolist()
    [1, 2]
    """
    low = np.searchsorted(other, own, "left")
    tied = np.searchsorted(other, own, "right") - low
    first = np.searchsorted(own, own, "left")
    group = np.searchsorted(own, own, "right") - first
    place = np.arange(len(own)) - first
    spread: Ints = low + (2 * place + 1) * tied // (2 * group)
    return spread


def candidate_edges(arrays: DuelArrays, k: int) -> tuple[Ints, Ints]:
    """The large tier's candidate graph: :func:`nearest_edges` and :func:`aligned_edges`
    (``_ALIGNED`` places each way), without duplicates, sorted by (u, v).

    Notes: O(n k log(n k)).
    """
    near_u, near_v = nearest_edges(arrays, k)
    far_u, far_v = aligned_edges(arrays, _ALIGNED)
    n = arrays.size
    keys = unique_sorted(np.concatenate([near_u * n + near_v, far_u * n + far_v]))
    return keys // n, keys % n


#: Quantile edges each way in the candidate graph: where one side outnumbers the other
#: over a stretch of ratings, the optimum pairs players many places off the nearest
#: ratings and a k-nearest graph alone misses those pairs.
_ALIGNED = 8


def big_weight(arrays: DuelArrays, pairs: int | None = None) -> int:
    """A ``W`` such that one more pair outweighs any difference in total score spanning
    up to ``pairs`` pairs (default: all ``n / 2``).

    >>> from matcher.duel.model import DuelConfig, Window
    >>> arrays = duel_arrays([DuelPlayer("a", 1, None)], ("m",), Window(75, 25), DuelConfig())
    >>> big_weight(arrays)
    5627
    """
    spread = arrays.max_radius() ** 2 + 2 * arrays.bonus * int(arrays.wait.max(initial=0)) + 1
    if arrays.overdue is not None:
        spread += 2 * arrays.priority * int(arrays.overdue.max(initial=0))
    if arrays.limits is not None and arrays.limits.sort is not None:
        spread += arrays.limits.sort.widest
    return ((arrays.size // 2 if pairs is None else pairs) + 1) * spread + 1


def aligned_edges(arrays: DuelArrays, reach: int) -> tuple[Ints, Ints]:
    """Legal edges from the i-th BW rating to the SC2 ratings at the same quantile, up to
    ``reach`` places either way.

    Where one side outnumbers the other over a stretch of ratings, the sorted pairing
    (the cheapest, :mod:`matcher.duel.large_rematch`) runs many places off the nearest
    ratings, and a k-nearest graph misses it. The global quantile follows that drift.

    >>> from matcher.duel.model import DuelConfig, Window
    >>> players = [DuelPlayer("a", 1500, None), DuelPlayer("b", 1540, None),
    ...            DuelPlayer("c", None, 1510), DuelPlayer("d", None, 1560)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> [x.tolist() for x in aligned_edges(arrays, 0)]
    [[0, 1], [2, 3]]

    Returns ``(u, v)`` (u plays BW), without duplicates, sorted by (u, v).

    Notes: O(n * reach) plus a sort.
    """
    bo, so = arrays.bw_order, arrays.sc2_order
    if not len(bo) or not len(so):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    at = np.rint(np.arange(len(bo)) * (len(so) - 1) / max(len(bo) - 1, 1)).astype(np.int64)
    columns = np.clip(at[:, None] + np.arange(-reach, reach + 1)[None, :], 0, len(so) - 1)
    n = arrays.size
    keys = unique_sorted(np.repeat(bo, 2 * reach + 1) * n + so[columns.ravel()])
    u, v = keys // n, keys % n
    keep = legal(arrays, u, v)
    return u[keep], v[keep]


def undirected(arrays: DuelArrays, u: Ints, v: Ints) -> tuple[Ints, Ints, Ints]:
    """Collapse directed edges to one per unordered pair, keeping the cheaper side choice.

    Returns ``(bw_player, sc2_player, cost)`` sorted by (min, max) player index; on a
    cost tie the orientation with the lower BW player index wins (deterministic).

    Notes: O(m log m).
    """
    c = cost(arrays, u, v)
    pair = np.minimum(u, v) * arrays.size + np.maximum(u, v)
    # One sort by unordered pair; a pair has at most its two orientations (the candidate
    # graphs hold no repeated edge), decided by comparing neighbours: cheaper than a
    # four-key lexsort.
    order = np.argsort(pair, kind="stable")
    pair, u, v, c = pair[order], u[order], v[order], c[order]
    first = np.ones(len(u), dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    starts = np.flatnonzero(first)
    sizes = np.diff(np.append(starts, len(u)))
    if (sizes > 2).any():  # repeated edges: the general rule
        order = np.lexsort((u, c, pair))
        u, v, c, pair = u[order], v[order], c[order], pair[order]
        first[1:] = pair[1:] != pair[:-1]
        return u[first], v[first], c[first]
    two = starts[sizes == 2]
    later = two + 1
    second = (c[later] < c[two]) | ((c[later] == c[two]) & (u[later] < u[two]))
    starts[sizes == 2] = np.where(second, later, two)
    return u[starts], v[starts], c[starts]


def subset(arrays: DuelArrays, players: Ints) -> DuelArrays:
    """The arrays of ``players`` only (renumbered 0..len-1 in the given order).

    The wave-level facts (window rule, lead side, wait bonus, maps) stay those of the
    whole wave, so a pair is legal in the subset exactly when it is in the wave.

    Notes: O(p log p) for p players.
    """
    bw, sc2 = arrays.bw[players], arrays.sc2[players]
    bw_order, sc2_order = _rating_orders(bw), _rating_orders(sc2)
    return DuelArrays(
        bw=bw,
        sc2=sc2,
        wait=arrays.wait[players],
        radius=arrays.radius[players],
        veto=arrays.veto[players],
        all_maps=arrays.all_maps,
        rule=arrays.rule,
        lead_is_bw=arrays.lead_is_bw,
        bonus=arrays.bonus,
        bw_order=bw_order,
        sc2_order=sc2_order,
        bw_sorted=bw[bw_order],
        sc2_sorted=sc2[sc2_order],
        limits=None if arrays.limits is None else arrays.limits.subset(players),
        priority=arrays.priority,
        overdue=None if arrays.overdue is None else arrays.overdue[players],
        rank=None if arrays.rank is None else arrays.rank.subset(players),
    )


def _rating_orders(ratings: NDArray[np.int64]) -> NDArray[np.intp]:
    """Indices of the players rated on one side (rating >= 0), by rating, stable."""
    rated = np.flatnonzero(ratings >= 0)
    return rated[np.argsort(ratings[rated], kind="stable")]
