"""Large waves of ``optimal``: one more pair through a pair whose players change partners.

The adds of :mod:`matcher.duel.augment` and :func:`matcher.duel.rematch.repaired_add`
pair a waiting BW player with a waiting SC2 player. When every waiting player can play
one side only, no such add exists, yet the optimum may still have more pairs: on
10,000 players (benchmark mix, seed 7) five SC2-only players rated 1,933 waited while a
pair nearby held a "both" player who could play BW against one of them, and whose
partner could play the other.

:func:`flipped_adds` finds the cheapest such move, an augmenting path of three edges:
waiting ``f`` takes over pair member ``y``, and ``y``'s partner ``x`` takes waiting
``g``; each new pair may take either side choice its players allow. One more pair
always wins (the objective counts pairs first), so the cheapest legal move is taken,
then the next, until none is left. The rating-order passes of
:mod:`matcher.duel.optimal` then re-pair around the moves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from matcher.duel.graph import DuelArrays, Ints, cost, expand_ranges, legal

#: Waiting players beyond which the search is skipped, which bounds its tables (waiting
#: players x pairs within their reach). The benchmarks' large waves leave 2-30.
MAX_WAITING = 64

_NONE = np.iinfo(np.int64).max // 4


@dataclass(frozen=True, slots=True)
class Flipped:
    """Pairs ``(bw[i], sc2[i])`` after the moves (unordered); how many pairs were added."""

    bw: Ints
    sc2: Ints
    added: int


def flipped_adds(arrays: DuelArrays, bw: Ints, sc2: Ints, waiting: Ints) -> Flipped:
    """Add pairs by three-edge augmenting paths through one pair, cheapest first.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("y", 1500, 1540), DuelPlayer("x", 1545, None),
    ...            DuelPlayer("f", None, 1500), DuelPlayer("g", None, 1550)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> out = flipped_adds(arrays, np.array([1]), np.array([0]), np.array([2, 3]))
    >>> sorted(zip(out.bw.tolist(), out.sc2.tolist())), out.added
    ([(0, 2), (1, 3)], 1)

    Both waiting players play SC2 only; "y" changes side to play BW against "f", and
    its partner "x" takes "g".

    Notes: O(m log m + w r) to price w waiting players against the r of the m pairs
    within their reach, then O(w r) NumPy work per move; nothing is tried for more than
    :data:`MAX_WAITING` waiting players. 3-11 ms at 10,000 players.
    """
    if not 2 <= len(waiting) <= MAX_WAITING or not len(bw):
        return Flipped(bw, sc2, 0)
    tables = _Tables(arrays, bw, sc2, waiting)
    while (move := tables.cheapest_move()) is not None:
        tables.apply(*move)
    count = len(tables.bw) - len(bw)
    return Flipped(np.array(tables.bw, dtype=np.int64), np.array(tables.sc2, dtype=np.int64), count)


class _Tables:
    """The waiting players priced against both players of the pairs within their reach,
    kept current as moves change one pair and add another.

    ``with_bw[c, f]``: the cheaper legal side choice of ``waiting[f]`` with the BW player
    of pair ``pairs[c]`` (``_NONE`` if neither is legal); ``with_sc2`` likewise. A pair
    that not both of its players can reach from some waiting player never carries a
    path, so it gets no row; waiting players only leave, and only the pairs a move
    changes or adds change players, so it never becomes one that can.
    """

    def __init__(self, arrays: DuelArrays, bw: Ints, sc2: Ints, waiting: Ints) -> None:
        self.arrays = arrays
        self.bw, self.sc2 = bw.tolist(), sc2.tolist()
        self.waiting = waiting
        self.live = np.ones(len(waiting), dtype=bool)
        by_bw, by_sc2 = _legal_entries(arrays, waiting, bw), _legal_entries(arrays, waiting, sc2)
        reached = np.zeros(len(bw), dtype=bool)
        reached[np.concatenate([member for member, _, _ in by_bw])] = True
        reached_sc2 = np.zeros(len(bw), dtype=bool)
        reached_sc2[np.concatenate([member for member, _, _ in by_sc2])] = True
        reached &= reached_sc2
        self.pairs = np.flatnonzero(reached)
        # Only the reached pairs get a row: a few hundred of the thousands.
        row_of = np.full(len(bw), -1, dtype=np.int64)
        row_of[self.pairs] = np.arange(len(self.pairs))
        self.with_bw = _cheaper_table(by_bw, row_of, len(self.pairs), len(waiting))
        self.with_sc2 = _cheaper_table(by_sc2, row_of, len(self.pairs), len(waiting))
        self.current = cost(arrays, bw[reached], sc2[reached])

    def cheapest_move(self) -> tuple[int, int, int, bool] | None:
        """(pair, f, g, whether f takes the pair's BW player) of the cheapest path, as
        row indices of ``waiting``; None if no path is legal.

        Per pair, the cheapest path takes the cheapest f for one player and the cheapest
        g for the other, unless both are the same waiting player: then the better of
        first-and-second and second-and-first.
        """
        rows = np.flatnonzero(self.live)
        if len(rows) < 2 or not len(self.pairs):
            return None
        with_bw, with_sc2 = self.with_bw[:, rows], self.with_sc2[:, rows]
        columns = np.arange(len(self.pairs))
        best: tuple[int, int, int, bool] | None = None
        best_delta = _NONE
        for f_takes_bw, mine, theirs in ((True, with_bw, with_sc2), (False, with_sc2, with_bw)):
            f_first, f_second = _two_cheapest(mine)
            g_first, g_second = _two_cheapest(theirs)
            clash = f_first == g_first
            second_f = mine[columns, f_second] + theirs[columns, g_first]
            second_g = mine[columns, f_first] + theirs[columns, g_second]
            take_second_f = clash & (second_f < second_g)
            f_at = np.where(take_second_f, f_second, f_first)
            g_at = np.where(clash & ~take_second_f, g_second, g_first)
            f_price, g_price = mine[columns, f_at], theirs[columns, g_at]
            delta = np.where(
                (f_price < _NONE) & (g_price < _NONE), f_price + g_price - self.current, _NONE
            )
            column = int(np.argmin(delta))
            if delta[column] < best_delta:
                best_delta = int(delta[column])
                pair = int(self.pairs[column])
                best = (pair, int(rows[f_at[column]]), int(rows[g_at[column]]), f_takes_bw)
        return best

    def apply(self, pair: int, f_row: int, g_row: int, f_takes_bw_player: bool) -> None:
        """Pair ``f`` with one player of ``pair`` and its partner with ``g``."""
        arrays, f, g = self.arrays, int(self.waiting[f_row]), int(self.waiting[g_row])
        y, x = (self.bw[pair], self.sc2[pair])
        if not f_takes_bw_player:
            y, x = x, y
        self.bw[pair], self.sc2[pair] = _oriented(arrays, f, y)
        second = _oriented(arrays, x, g)
        self.bw.append(second[0])
        self.sc2.append(second[1])
        self.live[[f_row, g_row]] = False
        # The changed pair keeps its column (``pairs`` stays sorted); the new one is last.
        self.pairs = np.append(self.pairs, len(self.bw) - 1)
        changed = np.array([int(np.searchsorted(self.pairs, pair)), len(self.pairs) - 1])
        new_bw = np.array([self.bw[pair], second[0]], dtype=np.int64)
        new_sc2 = np.array([self.sc2[pair], second[1]], dtype=np.int64)
        self.current = np.append(self.current, 0)
        self.current[changed] = cost(arrays, new_bw, new_sc2)
        grown = np.zeros((1, len(self.waiting)), dtype=np.int64)
        self.with_bw = np.append(self.with_bw, grown, axis=0)
        self.with_bw[changed] = _best_costs(arrays, self.waiting, new_bw)
        self.with_sc2 = np.append(self.with_sc2, grown, axis=0)
        self.with_sc2[changed] = _best_costs(arrays, self.waiting, new_sc2)


def _two_cheapest(table: Ints) -> tuple[Ints, Ints]:
    """Per row, the columns of the cheapest and the second cheapest entry."""
    rows = np.arange(table.shape[0])
    first = np.argmin(table, axis=1)
    rest = table.copy()
    rest[rows, first] = _NONE + 1  # above any legal entry and _NONE: never second
    return first, np.argmin(rest, axis=1)


def _best_costs(arrays: DuelArrays, waiting: Ints, members: Ints) -> Ints:
    """``[i, f]``: the cheaper legal side choice of ``waiting[f]`` with ``members[i]``."""
    rows = np.arange(len(members), dtype=np.int64)
    entries = _legal_entries(arrays, waiting, members)
    return _cheaper_table(entries, rows, len(members), len(waiting))


#: Per side choice (waiting player on BW, then on SC2): member index, waiting index and
#: score of every legal pair of a waiting player with a member.
Entries = list[tuple[Ints, Ints, Ints]]


def _legal_entries(arrays: DuelArrays, waiting: Ints, members: Ints) -> Entries:
    """The legal pairs of ``waiting`` players with ``members``, per side choice.

    Only members rated within the widest window of a waiting player can pair with it: a
    few hundred of the thousands, found by binary search in rating order.
    """
    reach = arrays.max_radius()
    found = []
    for own, other, waiting_plays_bw in (
        (arrays.bw, arrays.sc2, True),
        (arrays.sc2, arrays.bw, False),
    ):
        rated = np.flatnonzero(other[members] >= 0)
        by_rating = rated[np.argsort(other[members][rated], kind="stable")]
        ratings = other[members][by_rating]
        plays = np.flatnonzero(own[waiting] >= 0)
        low = np.searchsorted(ratings, own[waiting][plays] - reach, "left")
        high = np.searchsorted(ratings, own[waiting][plays] + reach, "right")
        owners, at = expand_ranges(low, high)
        rows, columns = plays[owners], by_rating[at]
        f, m = waiting[rows], members[columns]
        u, v = (f, m) if waiting_plays_bw else (m, f)
        ok = legal(arrays, u, v)
        found.append((columns[ok], rows[ok], cost(arrays, u[ok], v[ok])))
    return found


def _cheaper_table(entries: Entries, row_of: Ints, rows: int, columns: int) -> Ints:
    """``[row_of[member], f]``: the cheaper side choice of each entry, ``_NONE`` where
    there is none; entries of members without a row (``row_of`` -1) are left out."""
    best = np.full(rows * columns, _NONE, dtype=np.int64)
    for member, waiting_at, price in entries:
        row = row_of[member]
        kept = row >= 0
        at = row[kept] * columns + waiting_at[kept]
        best[at] = np.minimum(best[at], price[kept])
    table: Ints = best.reshape(rows, columns)
    return table


def _oriented(arrays: DuelArrays, a: int, b: int) -> tuple[int, int]:
    """(BW player, SC2 player) of a legal pair: the cheaper side choice; on a tie the lower
    index plays BW, as in ``graph.undirected`` and ``symmetric._oriented``."""
    u, v = np.array([a, b]), np.array([b, a])
    ok, price = legal(arrays, u, v), cost(arrays, u, v)
    cheaper = price[0] < price[1] or (price[0] == price[1] and a < b)
    if ok[0] and (not ok[1] or cheaper):
        return a, b
    return b, a
