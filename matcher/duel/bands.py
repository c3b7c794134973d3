"""Large waves of ``optimal``: exact relaxations on overlapping rating bands, stitched.

Costs are 1-D (a rating difference squared), so an optimal pair joins players close
in rating and pairs of far-apart bands do not interact. :func:`band_pairs` walks the
players' rating points (a "both" player has two) in order, ``band`` points at a time
(docs/adr/0015). Each step solves, with a dense assignment (C, ``scipy``), the LP
relaxation of the max-cardinality min-cost matching of

- the *pool*: unsettled players with a point in this band or carried from before,
- the *look-ahead*: players whose lowest point is in the next band,

on *every* legal pair among them (no candidate pruning). Pairs inside the pool are
settled; a pool player paired into the look-ahead, left out, or in an odd (fractional)
cycle is carried to the next step while some unseen player may still be in its window.
The look-ahead lets a pool player wait for a better partner just above the band;
carrying lets an odd cycle become integral once new players arrive. Odd cycles that
can wait no longer are rounded, adjacent ones together through a linking pair (the
relaxation is indifferent between them and one integral matching of both). A final
polishing pass re-solves wider windows over the result and keeps strict improvements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from matcher.duel.graph import DuelArrays, Ints, cost, cost_table, legal_table, unique_sorted

Floats = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class BandOutcome:
    """Pairs ``(bw_player, sc2_player)``; steps solved, odd cycles rounded, windows polished."""

    pairs: tuple[tuple[int, int], ...]
    steps: int
    rounded_odd_cycles: int
    polished: int


def band_pairs(
    arrays: DuelArrays,
    band: int,
    ahead_points: int,
    polish: bool = True,
) -> BandOutcome:
    """Pair the players of a wave band by band (near-optimal, see module notes).

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390), DuelPlayer("d", None, 1452)]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> band_pairs(arrays, 2, 2).pairs
    ((0, 3), (1, 2))

    Notes: O(n / band) dense assignments of O(band) players each, so about
    O(n * band^2) in practice (the assignment is cubic in the worst case).
    """
    order_players, chunk_lo = _points(arrays, band)
    if not len(order_players):
        return BandOutcome((), 0, 0, 0)
    n = arrays.size
    top = np.maximum(arrays.bw, arrays.sc2)
    reach = arrays.max_radius()
    spread = reach**2 + 2 * arrays.bonus * int(arrays.wait.max(initial=0)) + 1
    settled = np.zeros(n, dtype=bool)
    seen = np.zeros(n, dtype=bool)
    carry = np.zeros(0, dtype=np.int64)
    pairs: list[tuple[int, int]] = []
    rounded = 0
    chunks = len(chunk_lo)
    for k in range(chunks):
        pool = unique_sorted(np.concatenate([carry, order_players[k * band : (k + 1) * band]]))
        pool = pool[~settled[pool]]
        ahead = unique_sorted(order_players[(k + 1) * band : (k + 1) * band + ahead_points])
        seen[pool] = True
        ahead = ahead[~settled[ahead] & ~seen[ahead]]
        seen[pool] = False
        next_lo = int(chunk_lo[k + 1]) if k + 1 < chunks else None
        dead = np.ones(len(pool), dtype=bool) if next_lo is None else top[pool] + reach < next_lo
        step = _Step(arrays, pool, ahead, dead, spread)
        rounded += step.settle(pairs, settled)
        carry = pool[~settled[pool] & (~dead | step.held)]
    improved = _polish(arrays, pairs, order_players, band, spread) if polish else 0
    pairs.sort()
    return BandOutcome(tuple(pairs), chunks, rounded, improved)


def _polish(
    arrays: DuelArrays, pairs: list[tuple[int, int]], order: Ints, band: int, spread: int
) -> int:
    """Second pass: re-solve windows of ``4 * band`` points (stride ``2 * band``).

    A window's members are its unmatched players and the pairs lying wholly inside it,
    so the current pairs are a feasible answer of the window's relaxation. An integral
    relaxation (no odd cycle) is then an optimum of the window and replaces the current
    pairs when strictly better; the wave's matching never gets worse. Returns the number
    of windows improved.
    """
    mate = np.full(arrays.size, -1, dtype=np.int64)
    for a, b in pairs:
        mate[a], mate[b] = b, a
    bw_of = {a: b for a, b in pairs}
    inside = np.zeros(arrays.size, dtype=bool)
    improved = 0
    for start in range(0, max(len(order) - 2 * band, 1), 2 * band):
        window = unique_sorted(order[start : start + 4 * band])
        inside[window] = True
        partner = mate[window]
        members = window[(partner < 0) | inside[np.maximum(partner, 0)]]
        inside[window] = False
        if len(members) < 3:
            continue
        step = _Step(arrays, members, members[:0], np.ones(len(members), dtype=bool), spread)
        better = step.integral_pairs()
        if better is None:
            continue
        now = [(a, bw_of[a]) for a in members.tolist() if a in bw_of]
        if _value(arrays, better, spread) >= _value(arrays, now, spread):
            continue
        improved += 1
        for a, b in now:
            mate[a] = mate[b] = -1
            del bw_of[a]
        for a, b in better:
            mate[a], mate[b] = b, a
            bw_of[a] = b
    pairs[:] = sorted(bw_of.items())
    return improved


def _value(arrays: DuelArrays, pairs: list[tuple[int, int]], spread: int) -> int:
    """Lexicographic (most pairs, least cost) as one number: cost minus a bonus per pair."""
    u = np.array([a for a, _ in pairs], dtype=np.int64)
    v = np.array([b for _, b in pairs], dtype=np.int64)
    return int(cost(arrays, u, v).sum()) - len(pairs) * spread * (arrays.size + 1)


def _points(arrays: DuelArrays, band: int) -> tuple[Ints, Ints]:
    """Players of all rating points in (rating, player) order; each band's lowest rating."""
    players = np.concatenate([arrays.bw_order, arrays.sc2_order])
    ratings = np.concatenate([arrays.bw_sorted, arrays.sc2_sorted])
    order = np.lexsort((players, ratings))
    sorted_players: Ints = players[order]
    lows: Ints = ratings[order][::band]
    return sorted_players, lows


class _Step:
    """One band: the relaxation of pool + look-ahead and what it lets us settle."""

    def __init__(
        self,
        arrays: DuelArrays,
        pool: Ints,
        ahead: Ints,
        dead: NDArray[np.bool_],
        spread: int,
    ) -> None:
        self.members = np.concatenate([pool, ahead])
        self.pool_size = len(pool)
        self.dead = dead
        self.held = np.zeros(len(pool), dtype=bool)
        self.directed = dense_costs(arrays, self.members)
        self.table = np.minimum(self.directed, self.directed.T)
        # One more pair (two fewer sit-outs) must outweigh any change in the summed cost.
        np.fill_diagonal(self.table, float((len(self.members) // 2 + 2) * spread))
        _, successor = linear_sum_assignment(self.table)
        self.successor: Ints = successor

    def settle(self, pairs: list[tuple[int, int]], settled: NDArray[np.bool_]) -> int:
        """Append the settled pairs (global ids, BW first); return odd cycles rounded."""
        firsts, longer = split_cycles(self.successor)
        seconds = self.successor[firsts]
        inside = seconds < self.pool_size  # firsts < seconds: both in the pool
        chosen: list[tuple[int, int]] = []
        odd: list[list[int]] = []
        for cycle in longer:
            if max(cycle) >= self.pool_size:
                continue
            if len(cycle) % 2:
                odd.append(cycle)
            else:
                chosen += self._round(cycle)
        rounded = 0
        for group in self._groups(odd):
            if not all(self.dead[i] for cycle in group for i in cycle):
                # Carried whole: a newcomer may pair with a live member, the rest pair up.
                for cycle in group:
                    self.held[cycle] = True
                continue
            rounded += len(group)
            chosen += self._round_group(group)
        # One vectorised orientation for the whole step (most pairs are 2-cycles).
        self._settle(
            np.concatenate([firsts[inside], np.array([c[0] for c in chosen], dtype=np.int64)]),
            np.concatenate([seconds[inside], np.array([c[1] for c in chosen], dtype=np.int64)]),
            pairs,
            settled,
        )
        return rounded

    def integral_pairs(self) -> list[tuple[int, int]] | None:
        """The relaxation's pairs (global ids, BW first), or None if it has an odd cycle."""
        firsts, longer = split_cycles(self.successor)
        chosen: list[tuple[int, int]] = []
        for cycle in longer:
            if len(cycle) % 2:
                return None
            chosen += self._round(cycle)
        a = np.concatenate([firsts, np.array([c[0] for c in chosen], dtype=np.int64)])
        b = np.concatenate(
            [self.successor[firsts], np.array([c[1] for c in chosen], dtype=np.int64)]
        )
        x, y = self._oriented(a, b)
        return list(zip(x.tolist(), y.tolist(), strict=True))

    def _oriented(self, a: Ints, b: Ints) -> tuple[Ints, Ints]:
        """Global ids (BW, SC2) of local pairs: the cheaper orientation; on a tie the lower
        player index plays BW (as in ``undirected``)."""
        ab, ba = self.directed[a, b], self.directed[b, a]
        members = self.members
        a_first = (ab < ba) | ((ab == ba) & (members[a] < members[b]))
        return members[np.where(a_first, a, b)], members[np.where(a_first, b, a)]

    def _settle(
        self, a: Ints, b: Ints, pairs: list[tuple[int, int]], settled: NDArray[np.bool_]
    ) -> None:
        x, y = self._oriented(a, b)
        pairs.extend(zip(x.tolist(), y.tolist(), strict=True))
        settled[x] = settled[y] = True

    def _groups(self, odd: list[list[int]]) -> list[list[list[int]]]:
        """Odd cycles joined by legal pairs: the relaxation is indifferent between two
        adjacent odd cycles and one integral matching of both, so they round together."""
        label = list(range(len(odd)))

        def find(i: int) -> int:
            while label[i] != i:
                i = label[i]
            return i

        for i in range(len(odd)):
            for j in range(i + 1, len(odd)):
                if np.isfinite(self.table[np.ix_(odd[i], odd[j])]).any():
                    label[find(j)] = find(i)
        groups: dict[int, list[list[int]]] = {}
        for i, cycle in enumerate(odd):
            groups.setdefault(find(i), []).append(cycle)
        return list(groups.values())

    def _round_group(self, group: list[list[int]]) -> list[tuple[int, int]]:
        """Pair adjacent odd cycles through their cheapest linking pair; round the rest."""
        chosen: list[tuple[int, int]] = []
        left = list(group)
        while left:
            cycle = left.pop(0)
            best: tuple[float, int, int, int] | None = None
            for index, other in enumerate(left):
                block = self.table[np.ix_(cycle, other)]
                at = int(np.argmin(block))
                if np.isfinite(block.flat[at]) and (best is None or block.flat[at] < best[0]):
                    best = (float(block.flat[at]), index, at // len(other), at % len(other))
            if best is None:
                chosen += self._round(cycle)
                continue
            other = left.pop(best[1])
            x, y = cycle[best[2]], other[best[3]]
            chosen += [(x, y), *_alternate_without(cycle, x), *_alternate_without(other, y)]
        return chosen

    def _round(self, cycle: list[int]) -> list[tuple[int, int]]:
        """The cheaper set of alternate edges (an odd cycle leaves one player out)."""
        k = len(cycle)
        if k == 2:
            return [(cycle[0], cycle[1])]
        # Element reads: most long cycles have 4-6 members, where one fancy-indexed read
        # of the table costs more than these.
        costs = [float(self.table[cycle[i], cycle[(i + 1) % k]]) for i in range(k)]
        if k % 2:
            starts = range(k)
            best = min(
                starts, key=lambda s: (sum(costs[(s + 2 * i) % k] for i in range(k // 2)), s)
            )
        else:
            best = 0 if sum(costs[0::2]) <= sum(costs[1::2]) else 1  # ties: start 0, as before
        return [(cycle[(best + 2 * i) % k], cycle[(best + 2 * i + 1) % k]) for i in range(k // 2)]


def dense_costs(arrays: DuelArrays, members: Ints) -> Floats:
    """Directed pair costs of ``members``: ``[a, b]`` is a playing BW against b (inf: illegal).

    Notes: O(p^2 * map words) for p members.
    """
    table: Floats = np.where(
        legal_table(arrays, members), cost_table(arrays, members), np.inf
    ).astype(np.float64)
    return table


def _alternate_without(cycle: list[int], drop: int) -> list[tuple[int, int]]:
    """The alternate edges of an odd cycle that cover every member but ``drop``."""
    at = cycle.index(drop)
    rest = cycle[at + 1 :] + cycle[:at]
    return [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)]


def split_cycles(successor: Ints) -> tuple[Ints, list[list[int]]]:
    """A permutation's 2-cycles (their smaller members, ascending) and its cycles longer
    than 2 (each from its smallest member, by that member): most cycles of a band are
    2-cycles, found here without a Python loop.

    >>> firsts, longer = split_cycles(np.array([1, 0, 2, 4, 5, 3]))
    >>> firsts.tolist(), longer
    ([0], [[3, 4, 5]])

    Notes: O(n) vectorised, plus O(length) Python per longer cycle.
    """
    index = np.arange(len(successor))
    two = (successor != index) & (successor[successor] == index)
    firsts: Ints = np.flatnonzero(two & (index < successor))
    longer: list[list[int]] = []
    rest = np.flatnonzero((successor != index) & ~two).tolist()
    if rest:
        following = successor.tolist()
        seen: set[int] = set()
        for start in rest:
            if start in seen:
                continue
            cycle = [start]
            at = following[start]
            while at != start:
                cycle.append(at)
                at = following[at]
            seen.update(cycle)
            longer.append(cycle)
    return firsts, longer


def permutation_cycles(successor: list[int]) -> list[list[int]]:
    """The cycles of a permutation, each from its smallest member (deterministic)."""
    seen = [False] * len(successor)
    cycles: list[list[int]] = []
    for start in range(len(successor)):
        if seen[start]:
            continue
        cycle = [start]
        seen[start] = True
        at = successor[start]
        while at != start:
            cycle.append(at)
            seen[at] = True
            at = successor[at]
        cycles.append(cycle)
    return cycles
