"""Strategy ``optimal``: the most pairs inside their windows, then the least total score.

The exact problem is a max-cardinality min-cost matching on a general graph ("both"
players may take either side).

- Waves of at most ``optimal_exact_limit`` players (docs/adr/0011, amended): the LP
  relaxation as one dense symmetric assignment on *every* legal pair
  (:mod:`matcher.duel.symmetric`), branching on odd cycles for a few solves. Without
  an odd cycle longer than 1 it is proven optimal on the whole wave. Otherwise the
  certified blossom of :mod:`matcher.duel.exact` solves the wave (proved optimal on
  every legal pair).
- Larger waves (docs/adr/0015): :func:`matcher.duel.bands.band_pairs` solves the
  relaxation exactly on overlapping rating bands, on every legal pair of the band,
  and stitches them (one band for the whole wave up to ``optimal_whole_limit``
  players); near-optimal, measured in docs/benchmarks/duel.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matcher.duel.bands import band_pairs
from matcher.duel.exact import exact_matching
from matcher.duel.graph import DuelArrays, duel_arrays
from matcher.duel.model import DuelConfig, DuelPair, DuelPlayer, Window
from matcher.duel.symmetric import symmetric_pairs
from matcher.duel.windows import pressure, tier_window


@dataclass(frozen=True, slots=True)
class OptimalOutcome:
    """The pairs of one wave (sorted by BW player rating) and how they were found.

    ``exact`` is True when the pairs are proven optimal: a symmetric assignment on every
    legal pair (branch and bound on odd cycles) was integral, or the blossom solved it.
    ``odd_cycles``: fractional odd cycles of the first assignment (small waves) or rounded
    (banded path);
    ``band_steps``: dense assignments solved by the banded path (0 for small waves).
    """

    pairs: tuple[DuelPair, ...]
    pressure: float
    window: Window
    exact: bool
    odd_cycles: int
    band_steps: int


def optimal_pairs(
    players: Sequence[DuelPlayer],
    active_population: int,
    maps: tuple[str, ...],
    config: DuelConfig,
) -> OptimalOutcome:
    """Pair the valid players of a wave: most pairs first, then least summed score.

    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390)]
    >>> outcome = optimal_pairs(players, 100, ("m",), DuelConfig(window_rule="longer"))
    >>> [(p.bw.player_id, p.sc2.player_id, p.diff) for p in outcome.pairs]
    [('b', 'a', 50)]

    Notes: small waves: O(n^2) for the table plus one dense assignment, the exact
    blossom (cubic) only when the relaxation is fractional. Larger waves: about
    O(n * band^2) (dense assignments of O(band) players, see :mod:`matcher.duel.bands`).
    """
    wave_pressure = pressure(len(players), active_population, config)
    window = tier_window(wave_pressure, config)
    arrays = duel_arrays(players, maps, window, config)
    pairs, exact, odd, steps = _solve(arrays, config)
    pairs.sort(key=lambda pair: (int(arrays.bw[pair[0]]), pair[0]))
    return OptimalOutcome(
        tuple(DuelPair(players[a], players[b]) for a, b in pairs),
        wave_pressure,
        window,
        exact,
        odd,
        steps,
    )


def _solve(arrays: DuelArrays, config: DuelConfig) -> tuple[list[tuple[int, int]], bool, int, int]:
    if arrays.size > config.optimal_exact_limit:
        # One band holding every rating point: a single relaxation on every legal pair.
        whole = 2 * arrays.size if arrays.size <= config.optimal_whole_limit else 0
        band = max(config.optimal_band, whole)
        polish = config.optimal_polish > 0 and not whole  # one band: nothing left to polish
        banded = band_pairs(arrays, band, config.optimal_ahead, polish)
        return list(banded.pairs), False, banded.rounded_odd_cycles, banded.steps
    relaxed = symmetric_pairs(arrays)
    if relaxed.pairs is not None:
        return list(relaxed.pairs), True, relaxed.odd_cycles, 0
    return list(exact_matching(arrays).pairs), True, relaxed.odd_cycles, 0
