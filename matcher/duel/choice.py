"""``optimal_choice = "weighted"``: which maximum matching a wave gets, drawn from its seed.

The default small tier returns the least-cost matching among those with the most pairs,
so the same queue always gives a player the same (closest acceptable) opponent. Under
``"weighted"`` every legal pair's gain ``-score`` gets a perturbation ``scale**2 * G``,
``G`` a standard Gumbel variable drawn from the wave's seed (one per unordered pair of
wave positions), and the blossom returns the maximum-cardinality matching of the
largest perturbed gain. Cardinality still comes first (``max_cardinality``), so the wave
makes as many pairs as before; only which maximum matching it returns changes. A player
choosing among acceptable opponents alone gets opponent ``i`` with probability
proportional to ``exp(-score_i / scale**2)`` (the Gumbel-max trick): for equal waits a
Gaussian kernel of width ``scale`` rating points around the player's own rating
(docs/adr/0181).

The draw is a pure function of the wave (its seed, its players' order): a replay, and
the live checker (:mod:`matcher.duel.choice_check`), draw the same perturbation.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from matcher.duel.graph import Ints

#: Keeps the choice's stream apart from the map and server draws of the same seed.
CHOICE_STREAM = 0x63686F696365
#: Turns the top 53 bits of a raw 64-bit draw into a double in (0, 1).
_UNIT = 2.0**-53

#: Per-edge integer perturbation of unordered pairs ``(low, high)`` of wave positions.
PairNoise = Callable[[Ints, Ints], Ints]


def pair_noise(seed: int, scale: int, size: int) -> PairNoise:
    """The perturbation of a wave of ``size`` players under ``seed`` and ``scale``.

    One draw per unordered pair of positions, in ``numpy.triu_indices`` order, from
    PCG64's raw stream (a bit generator's output is stable across NumPy releases; its
    ``Generator`` methods are not promised to be), rounded to an integer so that the
    blossom's weights stay exact.

    >>> noise = pair_noise(7, 50, 3)
    >>> low, high = np.array([0, 0, 1]), np.array([1, 2, 2])
    >>> bool((noise(low, high) == pair_noise(7, 50, 3)(low, high)).all())
    True

    Notes: O(size^2) draws when made; the returned function O(pairs asked).
    """
    count = size * (size - 1) // 2
    raw = np.random.PCG64([seed, CHOICE_STREAM]).random_raw(count)
    uniform = ((raw >> np.uint64(11)).astype(np.float64) + 0.5) * _UNIT
    gumbel = -np.log(-np.log(uniform))
    table: Ints = np.rint(float(scale) ** 2 * gumbel).astype(np.int64)

    def noise(low: Ints, high: Ints) -> Ints:
        a, b = np.minimum(low, high), np.maximum(low, high)
        at = a * size - a * (a + 1) // 2 + (b - a - 1)
        found: Ints = table[at]
        return found

    return noise
