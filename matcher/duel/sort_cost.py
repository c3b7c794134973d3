"""A queue's soft ``sort`` (ADR 0150) as a term of ``optimal``'s pair score (ADR 0195).

The team strategies sweep parties by ``rating + weight x number``, so a weight converts
one unit of the numeric attribute into rating points. In a 1v1 the score already prices
the rating gap as ``diff**2``; the sort adds, per key, the squared gap of the two
players' converted values, ``(weight x (number_u - number_v))**2``: a level apart counts
as ``weight`` rating points apart. A player without the number adds nothing for that
key (as the rules never hold a player to an attribute they did not send). It only moves
the score: the pair count still comes first, and nobody is kept out by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from matcher.core import Player
from matcher.ruleset import SortKey

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


@dataclass(frozen=True)
class SortCost:
    """Per player and sort key, ``weight x number`` (nan: the player sent no number)."""

    positions: Floats

    def pairs(self, u: Ints, v: Ints) -> Ints:
        """The term of the pairs ``(u[i], v[i])``, rounded to integers (the score's type).

        Notes: O(len(u) x keys).
        """
        gap = self.positions[u] - self.positions[v]
        added: Ints = np.rint(np.nansum(gap * gap, axis=1)).astype(np.int64)
        return added

    def table(self, members: Ints) -> Ints:
        """``[a, b]``: the term of ``members[a]`` against ``members[b]``."""
        at = self.positions[members]
        gap = at[:, None, :] - at[None, :, :]
        added: Ints = np.rint(np.nansum(gap * gap, axis=2)).astype(np.int64)
        return added

    @property
    def widest(self) -> int:
        """An upper bound of any pair's term in the wave (the span of each key squared)."""
        if not len(self.positions):
            return 0
        with np.errstate(invalid="ignore"):
            span = np.nanmax(self.positions, axis=0, initial=-np.inf) - np.nanmin(
                self.positions, axis=0, initial=np.inf
            )
        span = np.where(np.isfinite(span), span, 0.0)
        return int(np.ceil(float((span * span).sum()))) + 1

    def subset(self, players: Ints) -> SortCost:
        return SortCost(self.positions[players])


def sort_cost(keys: Sequence[SortKey], players: Sequence[Player]) -> SortCost:
    """The term of ``keys`` over ``players`` (one per duel player, in order).

    >>> from matcher.ruleset import SortKey
    >>> players = [Player(p, (), numbers=(("level", n),)) for p, n in (("a", 10), ("b", 13))]
    >>> sort_cost([SortKey("level", 20.0)], players).pairs(np.array([0]), np.array([1]))
    array([3600])

    Notes: O(players x keys).
    """
    positions = np.array(
        [
            [np.nan if (n := p.number(key.number)) is None else key.weight * n for key in keys]
            for p in players
        ],
        dtype=np.float64,
    ).reshape(len(players), len(keys))
    return SortCost(positions)
