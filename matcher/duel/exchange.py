"""Large waves of ``optimal``: two "both" players trade sides along the rating order.

After the re-pairing by rating order (:mod:`matcher.duel.rematch`) and the add and swap
moves (:mod:`matcher.duel.augment`), what keeps a large wave's result from the optimum is
mostly the side each "both" player takes (ADR 0066). The optimum balances the BW and the
SC2 points of every rating stretch, and where ratings are sparse (the tails) one point
too many on one side pushes every pair of the stretch one place off.

An *exchange* moves one matched "both" player ``p`` from BW to SC2 and another, ``q``,
from SC2 to BW: the same players stay matched (so the wait bonus cancels out and the
squared diff alone decides), the BW order loses ``p``'s BW rating and gains ``q``'s, the
SC2 order loses ``q``'s SC2 rating and gains ``p``'s. Every pair between a removal and
an insertion shifts by one place, and where the two shifted stretches overlap the pairs
are two places apart or not moved at all. So the price of any exchange is O(1) from
prefix sums of each BW player against the SC2 player ``d`` places further, ``d`` in
-2..2 (:class:`ShiftSums`), legality included.

Which exchanges to price: one-sided estimates split into a part of ``p`` and a part of
``q`` (exact when the two stretches do not meet), and for each player the best partner
whose insertion falls on the side its estimate assumes (a prefix minimum); each of those
is priced exactly. Moves whose index stretches are apart do not interact and are
applied in the same round. Measured in docs/benchmarks/duel.md (ADR 0067).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from matcher.duel.augment import prefix_sums
from matcher.duel.graph import Bools, DuelArrays, Ints, legal, unique_sorted


@dataclass(frozen=True, slots=True)
class Exchanged:
    """Pairs ``(bw[i], sc2[i])`` after the exchanges (BW in rating order) and how many."""

    bw: Ints
    sc2: Ints
    exchanges: int


def exchanged_pairs(arrays: DuelArrays, bw: Ints, sc2: Ints, rounds: int) -> Exchanged:
    """Trade the sides of two "both" players while that lowers the summed squared diff.

    ``bw``/``sc2``: legal pairs, ``bw`` in rating order and ``sc2`` aligned with it.
    Every applied exchange keeps all pairs legal and strictly lowers the total score.
    Below, p (BW 1500) against q (SC2 1500) and c (BW 1700) against d (SC2 1600) cost
    0 + 10,000; with p on SC2 and q on BW, 2,500 + 0.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("p", 1500, 1700), DuelPlayer("c", 1700, None),
    ...            DuelPlayer("q", 1650, 1500), DuelPlayer("d", None, 1600)]
    >>> arrays = duel_arrays(players, ("m",), Window(300, 25), DuelConfig())
    >>> out = exchanged_pairs(arrays, np.array([0, 1]), np.array([2, 3]), 4)
    >>> out.bw.tolist(), out.sc2.tolist(), out.exchanges
    ([2, 1], [3, 0], 1)

    Notes: per round O(m log m) for m pairs (prefix sums, candidate minima, one O(1)
    price per candidate, a few per "both" player); at most ``rounds`` rounds.
    """
    made = 0
    for _ in range(rounds):
        if len(bw) < 2:
            break
        sums = ShiftSums(arrays, bw, sc2)
        leaving_bw, leaving_sc2 = _candidates(arrays, sums)
        if not len(leaving_bw):
            break
        delta, illegal, t, u = sums.price(leaving_bw, leaving_sc2)
        moves = _apart(leaving_bw, leaving_sc2, t, u, delta, illegal)
        if not moves:
            break
        for k in moves:
            a, b = int(leaving_bw[k]), int(leaving_sc2[k])
            p, q = int(bw[a]), int(sc2[b])
            bw = np.insert(np.delete(bw, a), int(t[k]), q)
            sc2 = np.insert(np.delete(sc2, b), int(u[k]), p)
        made += len(moves)
    return Exchanged(bw, sc2, made)


#: Shifts of the BW order against the SC2 order an exchange can produce.
_SHIFTS = 5  # -2..2


class ShiftSums:
    """Prefix sums, per shift ``d`` in -2..2, of BW index ``k + d`` against SC2 index ``k``:
    squared diffs and illegal pairs (row ``d + 2`` of ``tables``)."""

    def __init__(self, arrays: DuelArrays, bw: Ints, sc2: Ints, packed: bool = True) -> None:
        self.arrays, self.bw, self.sc2 = arrays, bw, sc2
        m = self.m = len(bw)
        self.x = arrays.bw[bw].astype(np.int64)
        self.y = arrays.sc2[sc2].astype(np.int64)
        k = np.arange(m)
        # Row d + 2, column j + 1: the sum over positions before j, for j in -1..m+1.
        # Columns 0 and 1 stay 0 and the last repeats the one before, so a range's
        # indices never need clipping (see ``_signed_sums``).
        square = np.zeros((_SHIFTS, m + 3), dtype=np.int64)
        illegal = np.zeros((_SHIFTS, m + 3), dtype=np.int64)
        for row, d in enumerate(range(-2, 3)):
            inside = (k + d >= 0) & (k + d < m)
            kd = k[inside] + d
            diff = self.x[kd] - self.y[inside]
            square[row, 2 : m + 2][inside] = diff * diff
            if d:  # the current pairs (d = 0) are legal
                illegal[row, 2 : m + 2][inside] = ~legal(arrays, bw[kd], sc2[inside])
        np.cumsum(square, axis=1, out=square)
        np.cumsum(illegal, axis=1, out=illegal)
        # One array holds both sums, ``square << bits | illegal``: a range sum then takes
        # one gather instead of two. Signed sums of ranges stay exact: the illegal counts
        # they add up to count positions (0..m).
        self.bits = max(1, m.bit_length())
        if packed and int(square[:, -1].max(initial=0)) < 1 << (58 - self.bits):
            square <<= self.bits
            square += illegal
            self.tables = [square.ravel()]
        else:  # squared diffs too large to share a word: two tables
            self.bits, self.tables = 0, [square.ravel(), illegal.ravel()]
        # Where each SC2-side player's BW rating, and each BW-side player's SC2 rating,
        # would enter the other order (meaningful for "both" players only).
        self.bw_slot = np.searchsorted(self.x, arrays.bw[sc2])
        self.sc2_slot = np.searchsorted(self.y, arrays.sc2[bw])

    def price(self, a: Ints, b: Ints) -> tuple[Ints, Ints, Ints, Ints]:
        """Per candidate: the BW player at index ``a`` and the SC2 player at index ``b``
        (both "both" players) trade sides: each leaves its order and enters the other.

        Returns the change of the summed squared diff, the number of illegal pairs
        after, and the insertion indices ``t`` (BW) and ``u`` (SC2) in the new orders.

        Positions of the BW stretch meet the SC2 player ``s1`` places away, those of the
        SC2 stretch ``-s2``, those of both ``s1 - s2``: range sums by inclusion and
        exclusion; the two insertion positions are then replaced by their own pairs.
        """
        arrays, m = self.arrays, self.m
        entering_bw, entering_sc2 = self.sc2[b], self.bw[a]
        x_in = arrays.bw[entering_bw].astype(np.int64)
        y_in = arrays.sc2[entering_sc2].astype(np.int64)
        t = _after_removal(self.bw_slot[b], a)
        u = _after_removal(self.sc2_slot[a], b)
        s1, x_lo, x_hi = _stretch(t, a)
        s2, y_lo, y_hi = _stretch(u, b)
        o_lo, o_hi = np.maximum(x_lo, y_lo), np.minimum(x_hi, y_hi)
        zero = np.zeros_like(a)
        terms = (
            (1, s1, zero, x_lo, x_hi),
            (-1, zero, zero, x_lo, x_hi),
            (1, -s2, s2, y_lo, y_hi),
            (-1, zero, zero, y_lo, y_hi),
            (1, s1 - s2, s2, o_lo, o_hi),
            (1, zero, zero, o_lo, o_hi),
            (-1, s1, zero, o_lo, o_hi),
            (-1, -s2, s2, o_lo, o_hi),
        )
        # The insertion positions as the sums counted them, then as they really pair.
        in_y = (t >= y_lo) & (t < y_hi)
        apart = u != t
        in_x = (u >= x_lo) & (u < x_hi) & apart
        corrections = (
            (-1, np.where(in_y, -s2, 0), np.where(in_y, s2, 0), t, t + 1),
            (-1, np.where(in_x, s1, 0), zero, u, u + apart),
        )
        sums = self._signed_sums(terms + corrections)
        if self.bits:
            total, bad = sums[0] >> self.bits, sums[0] & ((1 << self.bits) - 1)
        else:
            total, bad = sums
        partner_t = np.clip(t + np.where(in_y, s2, 0), 0, m - 1)
        sc2_at_t = np.where(apart, self.sc2[partner_t], entering_sc2)
        diff = x_in - np.where(apart, self.y[partner_t], y_in)
        total += diff * diff
        bad += ~legal(arrays, entering_bw, sc2_at_t)
        partner_u = np.clip(u + np.where(in_x, s1, 0), 0, m - 1)
        diff = self.x[partner_u] - y_in
        total += np.where(apart, diff * diff, 0)
        bad += apart & ~legal(arrays, self.bw[partner_u], entering_sc2)
        return total, bad, t, u

    def _signed_sums(self, terms: tuple[tuple[int, Ints, Ints, Ints, Ints], ...]) -> list[Ints]:
        """Per table, per candidate: the signed sum of the terms' ranges. A term
        ``(sign, shift, offset, lo, hi)`` is the new positions ``lo..hi-1`` holding BW
        ``i + offset + shift`` against SC2 ``i + offset``.

        ``lo``/``hi`` lie in 0..m and ``offset`` in -1..1, so the padded rows (see
        ``__init__``) need no clipping; an empty range (``lo >= hi``) starts where it
        ends. One term at a time, in place: fewer large temporaries alive at once.
        """
        totals = [np.zeros(len(terms[0][1]), dtype=np.int64) for _ in self.tables]
        for sign, shift, offset, lo, hi in terms:
            bottom = shift + 2  # the row's start, then the range's first index
            bottom *= self.m + 3
            bottom += offset
            bottom += 1
            top = bottom + hi
            bottom += np.minimum(lo, hi)
            for total, table in zip(totals, self.tables, strict=True):
                found = table.take(top)
                found -= table.take(bottom)
                if sign > 0:
                    total += found
                else:
                    total -= found
        return totals


def _stretch(inserted: Ints, removed: Ints) -> tuple[Ints, Ints, Ints]:
    """Shift and new positions ``[lo, hi)`` that hold an old neighbour after a removal
    and an insertion: inserting below the removal moves them up one place (shift -1)."""
    below = inserted < removed
    above = inserted > removed
    shift: Ints = above.astype(np.int64) - below.astype(np.int64)
    lo: Ints = np.where(below, inserted + 1, removed)
    hi: Ints = np.where(below, removed + 1, np.where(above, inserted, removed))
    return shift, lo, hi


def _after_removal(slot: Ints, leaving: Ints) -> Ints:
    """An insertion index into the order once index ``leaving`` is removed from it."""
    moved: Ints = np.where(slot > leaving, slot - 1, slot)
    return moved


def _candidates(arrays: DuelArrays, sums: ShiftSums) -> tuple[Ints, Ints]:
    """``(a, b)``: BW index ``a`` and SC2 index ``b`` of "both" players worth pricing.

    Per orientation (each insertion below or above its removal) the one-sided price of
    each half splits into a term of ``p`` (its BW removal, its SC2 insertion) and a term
    of ``q``; each player is proposed with the best partner on the side the orientation
    assumes.
    """
    m, x, y = sums.m, sums.x, sums.y
    both = (arrays.bw >= 0) & (arrays.sc2 >= 0)
    a = np.flatnonzero(both[sums.bw])  # p: "both" players on the BW side
    b = np.flatnonzero(both[sums.sc2])  # q: "both" players on the SC2 side
    if not len(a) or not len(b):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    own = (x - y) ** 2
    i = np.arange(m)
    down_x = prefix_sums(np.where(i > 0, (x[i - 1] - y) ** 2 - own, 0))  # BW i-1 meets SC2 i
    up_x = prefix_sums(np.where(i < m - 1, (x[np.minimum(i + 1, m - 1)] - y) ** 2 - own, 0))
    down_y = prefix_sums(np.where(i > 0, (x - y[i - 1]) ** 2 - own, 0))
    up_y = prefix_sums(np.where(i < m - 1, (x - y[np.minimum(i + 1, m - 1)]) ** 2 - own, 0))
    x_of_q = arrays.bw[sums.sc2[b]].astype(np.int64)
    y_of_p = arrays.sc2[sums.bw[a]].astype(np.int64)
    t = np.minimum(sums.bw_slot[b], m - 1)  # q's BW slot
    u = np.minimum(sums.sc2_slot[a], m - 1)  # p's SC2 slot
    lands_x = (x_of_q - y[t]) ** 2 - own[t]
    lands_y = (x[u] - y_of_p) ** 2 - own[u]
    by_t, by_u = np.argsort(t, kind="stable"), np.argsort(u, kind="stable")
    found_a, found_b = [], []
    for x_down in (True, False):
        for y_down in (True, False):
            p_term = (down_x[a + 1] if x_down else -up_x[a]) + lands_y
            p_term += -down_y[u + 1] if y_down else up_y[u]
            q_term = (-down_x[t + 1] if x_down else up_x[t]) + lands_x
            q_term += down_y[b + 1] if y_down else -up_y[b]
            ok, best = _best_partner(t, by_t, q_term, a, below=x_down)
            found_a.append(a[ok])
            found_b.append(b[best[ok]])
            ok, best = _best_partner(u, by_u, p_term, b, below=y_down)
            found_a.append(a[best[ok]])
            found_b.append(b[ok])
    keys = unique_sorted(np.concatenate(found_a) * m + np.concatenate(found_b))
    return keys // m, keys % m


def _best_partner(
    keys: Ints, order: Ints, values: Ints, queries: Ints, below: bool
) -> tuple[Bools, Ints]:
    """Per query: whether some key lies strictly below (``below``) or above it, and the
    index of the least value among those keys: a prefix minimum along ``order`` (the
    keys' stable sort), walked upwards or downwards; the first in that walk on a tie."""
    walk = order if below else order[::-1]
    ranked = values[walk]
    least = np.minimum.accumulate(ranked)
    new_low = np.ones(len(ranked), dtype=bool)
    new_low[1:] = ranked[1:] < least[:-1]
    where = np.maximum.accumulate(np.where(new_low, np.arange(len(ranked)), 0))
    if below:
        count = np.searchsorted(keys[walk], queries, "left")
    else:
        count = np.searchsorted(-keys[walk], -queries, "left")
    found: Bools = count > 0
    return found, walk[where[np.maximum(count - 1, 0)]]


def _apart(a: Ints, b: Ints, t: Ints, u: Ints, delta: Ints, illegal: Ints) -> list[int]:
    """Improving legal moves, best first, whose index stretches do not meet: the best
    one left is taken and every move meeting it dropped (a few moves a round, each one
    vectorised pass over the candidates)."""
    good = np.flatnonzero((illegal == 0) & (delta < 0))
    good = good[np.lexsort((a[good], b[good], delta[good]))]
    low = np.minimum(np.minimum(a, t), np.minimum(b, u))[good]
    high = np.maximum(np.maximum(a, t), np.maximum(b, u))[good]
    alive = np.ones(len(good), dtype=bool)
    taken: list[int] = []
    while alive.any():
        first = int(np.argmax(alive))
        taken.append(int(good[first]))
        alive &= (high < low[first]) | (low > high[first])
    return taken
