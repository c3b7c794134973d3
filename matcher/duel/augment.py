"""Large waves of ``optimal``: more pairs and cheaper ones by shifting the rating order.

Once the matched players' sides are fixed, pairing the i-th lowest BW rating with the
i-th lowest SC2 rating is the cheapest pairing (:mod:`matcher.duel.rematch`). In that
order, adding one BW player and one SC2 player who sit out shifts every pair between
their two ratings by one place; where ratings are dense each shifted pair changes by
an MMR or two, so two players far apart in rating can both be matched cheaply through
the players between them. The relaxation of :mod:`matcher.duel.relaxed` cannot see those
chains once the pre-pass (:mod:`matcher.duel.prepair`) has settled the dense middle.

:func:`shifted_pairs` starts from pairs in rating order and repeats, while one applies:

1. *add*: legal insertions of one waiting BW player and one waiting SC2 player, cheapest
   first (one more pair always wins: the objective counts pairs first); several per
   round when the index ranges they shift do not meet, since they then do not interact;
2. *swap*: replacing one matched player by a waiting one on the same side, shifting
   the pairs between, when every new pair is legal and the total score drops.

Each candidate is priced in O(1) from prefix sums of the current pairs, of each BW
player against the next SC2 player and of each against the previous one, so a round
costs O(m + waiting^2) NumPy work (all adds priced as one waiting x waiting table);
rounds are few (each adds a pair or strictly lowers the score). Near-optimal, measured
in docs/benchmarks/duel.md (ADR 0066).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from matcher.duel.graph import Bools, DuelArrays, Ints, legal


@dataclass(frozen=True, slots=True)
class Shifted:
    """Pairs ``(bw[i], sc2[i])`` after the moves; how many pairs were added, swaps made."""

    bw: Ints
    sc2: Ints
    added: int
    swapped: int


def shifted_pairs(
    arrays: DuelArrays, bw: Ints, sc2: Ints, waiting: Ints, max_rounds: int = 64
) -> Shifted:
    """Add and swap players along the rating order (see module notes).

    ``bw``/``sc2``: legal pairs, ``bw`` in rating order (ties by player) and ``sc2``
    aligned with it; ``waiting``: the players who sit out.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, None), DuelPlayer("b", None, 1502),
    ...            DuelPlayer("c", 1560, None), DuelPlayer("d", None, 1600)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> out = shifted_pairs(arrays, np.array([0]), np.array([1]), np.array([2, 3]))
    >>> out.bw.tolist(), out.sc2.tolist(), out.added
    ([0, 2], [1, 3], 1)

    Notes: O(max_rounds * (m + waiting^2)) for m pairs.
    """
    state = State(arrays, bw.copy(), sc2.copy(), waiting.copy())
    added = swapped = 0
    for _ in range(max_rounds):
        prices = Prices(state)
        adds = prices.best_adds()
        if adds:
            # Highest first: each add only moves indices at or above its own range.
            for add in sorted(adds, key=lambda a: -min(a[2], a[3])):
                state.add(*add)
            added += len(adds)
            continue
        swaps = prices.best_swaps()
        if not swaps:
            break
        for swap in swaps:
            state.swap(*swap)
        swapped += len(swaps)
    return Shifted(state.bw, state.sc2, added, swapped)


class State:
    """Pairs by index (``bw`` in rating order) and the waiting players."""

    def __init__(self, arrays: DuelArrays, bw: Ints, sc2: Ints, waiting: Ints) -> None:
        self.arrays = arrays
        self.bw, self.sc2, self.waiting = bw, sc2, waiting

    def bw_slot(self, player: int) -> int:
        """Index at which ``player``'s BW point enters the rating order."""
        ratings = self.arrays.bw[self.bw]
        rating = int(self.arrays.bw[player])
        low = int(np.searchsorted(ratings, rating, "left"))
        high = int(np.searchsorted(ratings, rating, "right"))
        return low + int(np.searchsorted(self.bw[low:high], player))

    def add(self, bw_player: int, sc2_player: int, p: int, q: int) -> None:
        self.bw = np.insert(self.bw, p, bw_player)
        self.sc2 = np.insert(self.sc2, q, sc2_player)
        self.waiting = self.waiting[(self.waiting != bw_player) & (self.waiting != sc2_player)]

    def swap(self, side: str, out: int, player: int, slot: int) -> None:
        """Replace the player at index ``out`` of ``side`` by ``player`` entering at ``slot``
        (an index of the sequence before removal)."""
        line = self.bw if side == "bw" else self.sc2
        leaving = int(line[out])
        line = np.insert(line, slot, player)
        line = np.delete(line, out + (slot <= out))
        if side == "bw":
            self.bw = line
        else:
            self.sc2 = line
        self.waiting = np.append(self.waiting[self.waiting != player], leaving)


class Prices:
    """Prefix sums of the current pairs and of their neighbours in the order.

    ``up[j]``: BW ``j`` against SC2 ``j + 1``; ``down[j]``: BW ``j + 1`` against SC2 ``j``.
    """

    def __init__(self, state: State) -> None:
        self.state = state
        arrays = state.arrays
        bw, sc2 = state.bw, state.sc2
        self.bw_rating, self.sc2_rating = arrays.bw[bw], arrays.sc2[sc2]
        self.m = len(bw)
        self.pair = prefix_sums(_squares(self.bw_rating, self.sc2_rating))
        self.up = prefix_sums(_squares(self.bw_rating[:-1], self.sc2_rating[1:]))
        self.down = prefix_sums(_squares(self.bw_rating[1:], self.sc2_rating[:-1]))
        self.up_bad = prefix_sums(~legal(arrays, bw[:-1], sc2[1:]))
        self.down_bad = prefix_sums(~legal(arrays, bw[1:], sc2[:-1]))
        # SC2 insertion slots by rating; the order may be locally repaired, so use ranks.
        self.sc2_sorted = np.sort(self.sc2_rating)

    def best_adds(self) -> list[tuple[int, int, int, int]]:
        """Legal adds ``(bw_player, sc2_player, p, q)``: each waiting BW player's cheapest,
        taken cheapest first while their players are unused and their index ranges
        (``min(p, q)`` to ``max(p, q)``) are apart from those already taken."""
        state, arrays = self.state, self.state.arrays
        waiting = np.sort(state.waiting)
        sc2_waiting = waiting[arrays.sc2[waiting] >= 0]
        bw_waiting = waiting[arrays.bw[waiting] >= 0]
        if not len(sc2_waiting) or not len(bw_waiting):
            return []
        sc2_slots = np.searchsorted(self.sc2_sorted, arrays.sc2[sc2_waiting], "left")
        bw_slots = np.array([state.bw_slot(x) for x in bw_waiting.tolist()], dtype=np.int64)
        delta, ok = self.add_table(bw_waiting, bw_slots, sc2_waiting, sc2_slots)
        ok &= bw_waiting[:, None] != sc2_waiting[None, :]
        score = delta - arrays.bonus * (
            arrays.wait[bw_waiting][:, None] + arrays.wait[sc2_waiting][None, :]
        )
        # Each BW player's first cheapest legal SC2 player, as argmin over its legal ones picks.
        at = np.argmin(np.where(ok, score, np.iinfo(np.int64).max), axis=1)
        rows = np.flatnonzero(ok.any(axis=1))
        candidates = sorted(
            zip(
                score[rows, at[rows]].tolist(),
                bw_waiting[rows].tolist(),
                sc2_waiting[at[rows]].tolist(),
                bw_slots[rows].tolist(),
                sc2_slots[at[rows]].tolist(),
                strict=True,
            )
        )
        return _apart([((x, y), p, q, (x, y, p, q)) for _, x, y, p, q in candidates])

    def add_prices(self, x: int, p: int, ys: Ints, qs: Ints) -> tuple[Ints, Bools]:
        """Change of the summed squared diff, and legality, of adding (x at p, y at q)."""
        delta, ok = self.add_table(np.array([x]), np.array([p]), ys, qs)
        return delta[0], ok[0]

    def add_table(self, xs: Ints, ps: Ints, ys: Ints, qs: Ints) -> tuple[Ints, Bools]:
        """:meth:`add_prices` for every BW player ``xs[i]`` entering at ``ps[i]`` (rows)
        against every SC2 player ``ys[j]`` entering at ``qs[j]`` (columns).

        Notes: O(len(xs) * len(ys)) NumPy work; the per-row and per-column legality
        checks are vectors, only the pair's own check is a table.
        """
        arrays, bw, sc2, m = self.state.arrays, self.state.bw, self.state.sc2, self.m
        p, q = ps[:, None], qs[None, :]
        x_rating, y_rating = arrays.bw[xs][:, None], arrays.sc2[ys][None, :]
        # Indices clipped into range: a clipped entry belongs to a case that is masked out
        # (x entering at the end has no later q, y entering at 0 no earlier one, ...).
        p_at, p_before = np.minimum(ps, m - 1), np.maximum(ps - 1, 0)
        q_at, q_before = np.minimum(qs, m - 1), np.maximum(qs - 1, 0)
        same = p == q
        # Later (q > p): x takes SC2 p, BW p..q-2 move up one, BW q-1 takes y. Earlier
        # (q < p): BW q takes y, BW q+1..p-1 move down one, x takes SC2 p-1.
        later = q > p
        on_own = _squares(x_rating, y_rating)
        if m:
            on_later = (
                _squares(x_rating, self.sc2_rating[p_at][:, None])
                + self.up[q_before][None, :]
                - self.up[p_at][:, None]
                + _squares(self.bw_rating[q_before][None, :], y_rating)
                - (self.pair[q] - self.pair[p])
            )
            on_earlier = (
                _squares(self.bw_rating[q_at][None, :], y_rating)
                + self.down[p_before][:, None]
                - self.down[q_at][None, :]
                + _squares(x_rating, self.sc2_rating[p_before][:, None])
                - (self.pair[p] - self.pair[q])
            )
            ok_later = (
                legal(arrays, xs, sc2[p_at])[:, None]
                & legal(arrays, bw[q_before], ys)[None, :]
                & (self.up_bad[q_before][None, :] == self.up_bad[p_at][:, None])
            )
            ok_earlier = (
                legal(arrays, bw[q_at], ys)[None, :]
                & legal(arrays, xs, sc2[p_before])[:, None]
                & (self.down_bad[p_before][:, None] == self.down_bad[q_at][None, :])
            )
        else:  # no pairs yet: every add is x against y at index 0
            on_later = on_earlier = on_own
            ok_later = ok_earlier = np.zeros(same.shape, dtype=bool)
        own_ok = legal(arrays, np.repeat(xs, len(ys)), np.tile(ys, len(xs))).reshape(
            len(xs), len(ys)
        )
        delta: Ints = np.where(same, on_own, np.where(later, on_later, on_earlier))
        ok: Bools = np.where(same, own_ok, np.where(later, ok_later, ok_earlier))
        return delta, ok

    def best_swaps(self) -> list[tuple[str, int, int, int]]:
        """``(side, out_index, player, slot)`` of the swaps lowering the score, best first,
        each waiting player's best one, taken while their index ranges stay apart (a swap
        moves only the pairs between its removal and its entry)."""
        found = sorted(self._swap_prices("bw") + self._swap_prices("sc2"))
        return _apart([((y,), out, slot, (side, out, y, slot)) for _, side, y, out, slot in found])

    def _swap_prices(self, side: str) -> list[tuple[int, str, int, int, int]]:
        """Each waiting player's best improving swap into ``side``:
        ``(score, side, player, out_index, slot)``.

        The same prices as :meth:`swap_table`, split as ``H[r] + C[y]``: per waiting
        player, the best replaced index is a minimum of ``H`` over the contiguous range
        that no illegal shifted pair interrupts, so a round costs O(m + waiting * range)
        instead of a waiting x m table.
        """
        arrays, m = self.state.arrays, self.m
        lines = self._lines(side)
        if lines is None:
            return []
        ys, slots, line, shift_in, shift_out, bad_in, bad_out = lines
        kept = arrays.bonus * arrays.wait[line]
        below = shift_in[:m] - self.pair[1:] + kept  # H for y entering at or below r
        above = self.pair[:m] - shift_out[:m] + kept  # H for y entering above r
        breaks_in = np.flatnonzero(np.diff(bad_in))  # shifted pairs that are illegal
        breaks_out = np.flatnonzero(np.diff(bad_out))
        at_in, at_out = np.minimum(slots, m - 1), np.maximum(slots - 1, 0)
        own_in, fits_in = self._own(side, ys, at_in)
        own_out, fits_out = self._own(side, ys, at_out)
        found: list[tuple[int, str, int, int, int]] = []  # (score, side, y, out, slot)
        for i, (y, t) in enumerate(zip(ys.tolist(), slots.tolist(), strict=True)):
            gain = arrays.bonus * int(arrays.wait[y])
            options = []
            if t > 0 and fits_out[i]:
                stop = int(np.searchsorted(breaks_out, t - 1)) - 1
                low = int(breaks_out[stop]) + 1 if stop >= 0 else 0
                r = low + int(np.argmin(above[low:t]))
                options.append(
                    (int(above[r]) + int(shift_out[t - 1] + own_out[i] - self.pair[t]) - gain, r)
                )
            if t < m and fits_in[i]:
                after = int(np.searchsorted(breaks_in, t))
                high = int(breaks_in[after]) if after < len(breaks_in) else m - 1
                r = t + int(np.argmin(below[t : high + 1]))
                options.append(
                    (int(below[r]) + int(own_in[i] - shift_in[t] + self.pair[t]) - gain, r)
                )
            best = min(options, default=None)
            if best is not None and best[0] < 0:
                found.append((best[0], side, y, best[1], t))
        return found

    def _lines(self, side: str) -> tuple[Ints, Ints, Ints, Ints, Ints, Ints, Ints] | None:
        """Waiting players for ``side`` (by id), their entry slots, the side's line, and
        the shift prices and illegal counts entering at or below / above a removal."""
        state, arrays = self.state, self.state.arrays
        if not self.m:
            return None
        waiting = np.sort(state.waiting)
        if side == "bw":
            ys = waiting[arrays.bw[waiting] >= 0]
            slots = np.array([state.bw_slot(y) for y in ys.tolist()], dtype=np.int64)
            found = (ys, slots, state.bw, self.up, self.down, self.up_bad, self.down_bad)
        else:
            ys = waiting[arrays.sc2[waiting] >= 0]
            slots = np.searchsorted(self.sc2_sorted, arrays.sc2[ys], "left")
            found = (ys, slots, state.sc2, self.down, self.up, self.down_bad, self.up_bad)
        return found if len(ys) else None

    def swap_table(self, side: str) -> tuple[Ints, Ints, Ints, Bools] | None:
        """Every swap into ``side``: waiting players ``ys`` (rows), their entry ``slots``,
        and per (row, replaced index) the change of the summed score and its legality.

        A player entering at ``slot`` at or below the removed index moves the pairs
        between by one place: on the BW side each BW player there meets the next SC2
        player (``up`` prices), on the SC2 side each SC2 player meets the next BW player
        (``down``); entering above it, the mirror.
        """
        arrays, m = self.state.arrays, self.m
        lines = self._lines(side)
        if lines is None:
            return None
        ys, slots, line, shift_in, shift_out, bad_in, bad_out = lines
        # y's own pair: against the other side's player at ``slot`` (entering at or
        # below the removal) or at ``slot - 1`` (entering above it).
        at_in, at_out = np.minimum(slots, m - 1), np.maximum(slots - 1, 0)
        own_in, fits_in = self._own(side, ys, at_in)
        own_out, fits_out = self._own(side, ys, at_out)
        t = slots[:, None]
        r = np.arange(m)[None, :]
        t_in, t_out = np.minimum(t, m - 1), np.maximum(t - 1, 0)
        below = r >= t
        delta = np.where(
            below,
            own_in[:, None] + shift_in[r] - shift_in[t_in] - (self.pair[r + 1] - self.pair[t]),
            shift_out[t_out] - shift_out[r] + own_out[:, None] - (self.pair[t] - self.pair[r]),
        )
        ok = np.where(
            below,
            fits_in[:, None] & (bad_in[r] == bad_in[t_in]),
            fits_out[:, None] & (bad_out[t_out] == bad_out[r]),
        )
        score = delta - arrays.bonus * (arrays.wait[ys][:, None] - arrays.wait[line][None, :])
        return ys, slots, score, ok

    def _own(self, side: str, ys: Ints, at: Ints) -> tuple[Ints, Bools]:
        """Squared diff and legality of each waiting ``ys[i]`` against the player at index
        ``at[i]`` of the other side."""
        arrays, state = self.state.arrays, self.state
        if side == "bw":
            return _squares(arrays.bw[ys], self.sc2_rating[at]), legal(arrays, ys, state.sc2[at])
        return _squares(self.bw_rating[at], arrays.sc2[ys]), legal(arrays, state.bw[at], ys)


Move = TypeVar("Move")


def _apart(moves: list[tuple[tuple[int, ...], int, int, Move]]) -> list[Move]:
    """``(players, one end, other end, move)`` in order, best first: the moves whose
    players are unused and whose index range does not meet one already taken (such
    moves do not interact)."""
    taken: list[Move] = []
    used: set[int] = set()
    spans: list[tuple[int, int]] = []
    for players, one, other, move in moves:
        low, high = min(one, other), max(one, other)
        if used.intersection(players) or any(low <= b and a <= high for a, b in spans):
            continue
        taken.append(move)
        used.update(players)
        spans.append((low, high))
    return taken


def prefix_sums(values: Ints | Bools) -> Ints:
    """``out[j]`` = sum of ``values[:j]`` (length len(values) + 1)."""
    out: Ints = np.concatenate([[0], np.cumsum(values, dtype=np.int64)])
    return out


def _squares(first: Ints | int, second: Ints | int) -> Ints:
    diff = np.asarray(first, dtype=np.int64) - np.asarray(second, dtype=np.int64)
    squares: Ints = diff * diff
    return squares
