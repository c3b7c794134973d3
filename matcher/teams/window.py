"""The best game whose lowest unit is a given anchor, among the anchor's next W units.

Alman & McKay show that some optimal game lies within a window of
O((1 + alpha) k^(1 + 1/q)) consecutive players in rating order (docs/adr/0033 has the
bound with our normalisation), so the best game overall is the best of these
per-anchor games. The search is exact: a depth-first choice of units in rating order
with a lower bound on f for every partial choice:

* the game's spread can only grow: ``v_q >= (range / 2) * k^(-1/q)`` (both extremes
  deviate from the mean by at least half the range between them);
* with solos (every later rating >= every chosen one), the least spread a completion
  can reach puts all missing players at the next rating: exact for q = 1, 2, inf,
  and through ``v_q >= v_1`` (power means) for other q.

Units with the same ratings are interchangeable for f, and the earlier one is never
worse for the priority, so at each depth only the first of equal units is tried.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matcher.teams.games import Game, Unit, game_of
from matcher.teams.imbalance import Imbalance, spread

#: Default cap on the search nodes of one window; see :func:`best_game_in_window`.
DEFAULT_MAX_NODES = 2000


def best_game_in_window(
    window: Sequence[Unit],
    k: int,
    params: Imbalance,
    beta: float,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> Game | None:
    """Least-priority game of 2k players that contains ``window[0]`` and no unit outside.

    ``window`` is in rating order (unit keys ascending). Ties keep the first game found
    (units earlier in the window first).

    >>> units = [Unit(i, (r,), 0.0) for i, r in enumerate([10, 11, 30, 31])]
    >>> best_game_in_window(units, 1, Imbalance(alpha=1.0, q=2.0), 0.0).teams
    ((0,), (1,))

    The search starts from the consecutive game (the anchor and the next units that
    fill 2k seats) and bounds at most ``max_nodes`` partial games: the result is exact
    unless that cap is hit, which only parties with widely spread ratings cause (the
    bound is weak there); then it is the best game seen, never worse than the
    consecutive one.

    Notes: exponential in k (C(W, 2k) subsets at worst, W the window) but capped at
    ``max_nodes``, so O(1) for fixed k; the bound prunes almost everything on solos.
    """
    if not window:
        return None
    search = _Search(window, k, params, beta, max_nodes)
    search.run()
    return search.best


class _Search:
    def __init__(
        self, window: Sequence[Unit], k: int, params: Imbalance, beta: float, max_nodes: int
    ) -> None:
        self.window = window
        self.nodes_left = max_nodes
        self.k = k
        self.params = params
        self.beta = beta
        self.best: Game | None = None
        self.root = 1.0 if math.isinf(params.q) else float(k) ** (-1.0 / params.q)
        count = len(window)
        self.low_after = [math.inf] * (count + 1)
        self.join_after = [math.inf] * (count + 1)
        for i in range(count - 1, -1, -1):
            self.low_after[i] = min(self.low_after[i + 1], min(window[i].ratings))
            self.join_after[i] = min(self.join_after[i + 1], window[i].joined_s)
        self.solos = all(unit.size == 1 for unit in window)
        self.bound_q = params.q if params.q in (1.0, 2.0) or math.isinf(params.q) else 1.0

    def run(self) -> None:
        anchor = self.window[0]
        if anchor.size > self.k:
            return
        self._consecutive()
        self._extend([anchor], list(anchor.ratings), anchor.size, 1)

    def _consecutive(self) -> None:
        # A first incumbent, so that the bound prunes from the first node on.
        chosen: list[Unit] = []
        players = 0
        for unit in self.window:
            if players + unit.size <= 2 * self.k:
                chosen.append(unit)
                players += unit.size
            if players == 2 * self.k:
                self._consider(chosen)
                return

    def _extend(self, chosen: list[Unit], ratings: list[int], players: int, start: int) -> None:
        if players == 2 * self.k:
            if (
                spread(ratings, self.params.q) + self.beta * min(unit.joined_s for unit in chosen)
                < self._incumbent()
            ):
                self._consider(chosen)  # the split costs more than the spread: test it first
            return
        previous: tuple[int, ...] | None = None
        for position in range(start, len(self.window)):
            unit = self.window[position]
            if unit.size + players > 2 * self.k or unit.ratings == previous:
                continue
            previous = unit.ratings
            self.nodes_left -= 1
            if self.nodes_left < 0:
                return
            grown = ratings + list(unit.ratings)
            chosen.append(unit)
            if self._bound(chosen, grown, players + unit.size, position + 1) < self._incumbent():
                self._extend(chosen, grown, players + unit.size, position + 1)
            elif self.beta == 0 and self.params.q <= 2 and self._sorted_solos(position):
                chosen.pop()
                # The bound only grows with later (higher) units for q <= 2; for larger q
                # a higher unit can pull the mean up and shrink the largest deviation
                # (1000, 1000, 1074, 1077 beats 1000, 1000, 1027, 1074 at q = inf).
                break
            chosen.pop()

    def _incumbent(self) -> float:
        return math.inf if self.best is None else self.best.priority

    def _sorted_solos(self, position: int) -> bool:
        # Only for windows of solos: a party's members may sit below its key, and a later
        # unit of another size changes the completion, so the bound need not grow.
        return self.solos and self.low_after[position] >= max(self.window[position].ratings)

    def _bound(self, chosen: list[Unit], ratings: list[int], players: int, after: int) -> float:
        """A lower bound on the priority of any game completing ``chosen``."""
        missing = 2 * self.k - players
        if missing and after == len(self.window):
            return math.inf  # nothing left to complete the game with
        earliest = min(unit.joined_s for unit in chosen)
        if missing:
            earliest = min(earliest, self.join_after[after])
        top, bottom = max(ratings), min(ratings)
        bound = (top - bottom) / 2.0 * self.root
        if bound + self.beta * earliest >= self._incumbent():
            return bound + self.beta * earliest  # the cheap bound already prunes
        if missing and self.low_after[after] >= top:
            filled = ratings + [self.low_after[after]] * missing
            bound = max(bound, spread(filled, self.bound_q))
        elif missing and self.params.q >= 2:
            # v_q is convex and symmetric: replacing each later party's players by their
            # mean (>= the next unit's key) cannot raise it, nor can putting all missing
            # players at one rating c >= that key; for q = 2 the best c is the clamped
            # mean, and v_q >= v_2 for q >= 2 (power means).
            floor = self.window[after].key[0]
            centre = max(floor, sum(ratings) / len(ratings))
            bound = max(bound, spread(ratings + [centre] * missing, 2.0))
        elif not missing:
            bound = max(bound, spread(ratings, self.params.q))
        return bound + self.beta * earliest

    def _consider(self, chosen: list[Unit]) -> None:
        game = game_of(chosen, self.k, self.params, self.beta)
        if game is not None and game.priority < self._incumbent():
            self.best = game
