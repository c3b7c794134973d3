"""Strategy ``optimal``: the most pairs inside their windows, then the least summed score.

The tier table (docs/optimal.md):

============================  ==================================================  ========
players                       solver                                              result
============================  ==================================================  ========
up to ``optimal_exact_limit``  rustworkx's blossom on every legal pair            proved
                              (:mod:`matcher.duel.small`)                          optimum
above it                      one LP relaxation on the candidate graph, odd        quality
                              cycles rounded (:mod:`matcher.duel.large`), then     bar of
                              re-paired by rating order                            the doc
                              (:mod:`matcher.duel.large_rematch`)
above ``optimal_prepair_limit``  equal ratings paired first                        same
                              (:mod:`matcher.duel.large_prepair`), the rest as
                              above
============================  ==================================================  ========
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from matcher.duel.choice import PairNoise, pair_noise
from matcher.duel.graph import DuelArrays, by_rating, duel_arrays, subset
from matcher.duel.ladder import lead_side
from matcher.duel.large import relaxed_pairs
from matcher.duel.large_complete import completed_pairs
from matcher.duel.large_prepair import equal_rating_pairs
from matcher.duel.large_rematch import sorted_rematch, twin_rematch
from matcher.duel.large_twins import neighbour_pairs
from matcher.duel.limits import DuelLimits
from matcher.duel.model import BW, DuelConfig, DuelPair, DuelPlayer, Window
from matcher.duel.rematch_cost import RematchPenalty
from matcher.duel.small import exact_pairs
from matcher.duel.windows import pressure, tier_window
from matcher.fastbuild import builder

#: Pre-paired ratings need at least this many rating points within 10 MMR.
_PREPAIR_DENSITY = 40
#: Up to this size the relaxation, when it has an odd number of odd cycles, is solved
#: again with one more free sit-out chosen over the whole wave (:mod:`matcher.duel.large`).
_PARITY_LIMIT = 5000
# Built 5,000 times a 10,000-player wave: fastbuild matters (docs/adr/0190).
_make_pair = builder(DuelPair)


@dataclass(frozen=True, slots=True)
class OptimalOutcome:
    """The pairs of one wave (sorted by BW player rating) and how they were found.

    ``exact``: the pairs are the proved optimum (the small tier); ``odd_cycles``: odd
    cycles of the large tier's relaxation, rounded (0 for the small tier);
    ``pair_bound``: no legal matching of the wave has more pairs (the small tier's count
    itself; the large tier's from :mod:`matcher.duel.bound`). ``weighted``: the pairs
    are the seeded weighted choice of ``optimal_choice = "weighted"`` (small tier only).
    """

    pairs: tuple[DuelPair, ...]
    pressure: float
    window: Window
    exact: bool
    odd_cycles: int
    pair_bound: int
    weighted: bool = False


def optimal_pairs(
    players: Sequence[DuelPlayer],
    active_population: int,
    maps: tuple[str, ...],
    config: DuelConfig,
    limits: DuelLimits | None = None,
    penalty: RematchPenalty | None = None,
    seed: int = 0,
) -> OptimalOutcome:
    """Pair the valid players of a wave: most pairs first, then least summed score.

    ``limits``: the queue's rules, a hard filter on which pairs are legal. ``penalty``:
    priced rematches added to the score, for waves of the exact tier, whose cost table
    alone reads them (ADR 0180). ``seed``: the wave's, read only under
    ``optimal_choice = "weighted"`` (:func:`choice_noise`).

    >>> players = [DuelPlayer("a", 1500, 1400), DuelPlayer("b", 1450, None),
    ...            DuelPlayer("c", None, 1390)]
    >>> outcome = optimal_pairs(players, 100, ("m",), DuelConfig(window_rule="longer"))
    >>> [(p.bw.player_id, p.sc2.player_id, p.diff) for p in outcome.pairs]
    [('b', 'a', 50)]

    Notes: small tier O(n^2) edges and the blossom (O(n^3) at worst); large tier one
    sparse assignment on O(n k) edges.
    """
    wave_pressure = pressure(len(players), active_population, config)
    window = tier_window(wave_pressure, config)
    arrays = wave_arrays(players, maps, window, config, limits, penalty)
    exact = arrays.size <= config.optimal_exact_limit
    noise = choice_noise(config, seed, arrays.size) if exact else None
    if exact:  # the exact tier's count is proved
        pairs = exact_pairs(arrays, noise)
        odd, bound = 0, len(pairs)
    else:
        pairs, odd, bound = _large(arrays, config)
    bw = np.array([a for a, _ in pairs], dtype=np.int64)
    order = by_rating(arrays.bw[bw], bw, arrays.size).tolist()  # by BW rating, then player
    made = [_make_pair(players[pairs[i][0]], players[pairs[i][1]]) for i in order]
    weighted = noise is not None
    return OptimalOutcome(tuple(made), wave_pressure, window, exact, odd, bound, weighted)


def choice_noise(config: DuelConfig, seed: int, size: int) -> PairNoise | None:
    """The small tier's seeded perturbation under ``optimal_choice = "weighted"``; None
    under ``"best"``. The large tier's rating-order steps assume 1-D costs, which the
    perturbation breaks, so waves above ``optimal_exact_limit`` are paired as by default
    (docs/adr/0181)."""
    if config.optimal_choice != "weighted":
        return None
    return pair_noise(seed, config.optimal_choice_scale, size)


def wave_arrays(
    players: Sequence[DuelPlayer],
    maps: tuple[str, ...],
    window: Window,
    config: DuelConfig,
    limits: DuelLimits | None = None,
    penalty: RematchPenalty | None = None,
) -> DuelArrays:
    """The wave's arrays; under the ``lead`` rule the lead side is ``ladder-v2.1``'s, so
    every pair the ladder may form is legal here (docs/adr/0013)."""
    lead_is_bw = config.window_rule != "lead" or lead_side(players, config) == BW
    return duel_arrays(players, maps, window, config, lead_is_bw, limits, penalty=penalty)


def _large(arrays: DuelArrays, config: DuelConfig) -> tuple[list[tuple[int, int]], int, int]:
    """The large tier: pre-pass above ``optimal_prepair_limit``, one relaxation of the
    rest, the players it left out paired (:mod:`matcher.duel.large_complete`), then every
    pair re-paired by rating order where legal and cheaper. Returns the pairs, the
    relaxation's odd cycles and the completion's pair bound (the re-pairing keeps the
    count)."""
    parity = arrays.size <= _PARITY_LIMIT
    k, cap = config.optimal_neighbours, config.optimal_relax_cap
    # Under rules refusing pairs by the players' traits, the nearest ratings' pairs are no
    # guide to the optimum's: the relaxation then takes every legal pair.
    every = arrays.limits is not None and arrays.limits.refuses_by_traits()
    if arrays.size > config.optimal_prepair_limit:
        early = equal_rating_pairs(arrays, _PREPAIR_DENSITY)
        late = relaxed_pairs(subset(arrays, early.rest), k, cap, parity, every)
        rest = early.rest
        bw = np.concatenate([early.bw, rest[[a for a, _ in late.pairs]]])
        sc2 = np.concatenate([early.sc2, rest[[b for _, b in late.pairs]]])
    else:
        late = relaxed_pairs(arrays, k, cap, parity, every)
        bw = np.array([a for a, _ in late.pairs], dtype=np.int64)
        sc2 = np.array([b for _, b in late.pairs], dtype=np.int64)
    bw, sc2, bound = completed_pairs(arrays, bw, sc2, k, cap)
    bw, sc2 = twin_rematch(arrays, *sorted_rematch(arrays, bw, sc2))
    bw, sc2 = neighbour_pairs(arrays, bw, sc2)
    return list(zip(bw.tolist(), sc2.tolist(), strict=True)), late.odd_cycles, bound
