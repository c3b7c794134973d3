"""Strategy ``optimal``: the most pairs inside their windows, then the least total score.

The exact problem is a max-cardinality min-cost matching on a general graph ("both"
players may take either side).

- Waves of at most ``optimal_exact_limit`` players (docs/adr/0011, amended): the LP
  relaxation as one dense symmetric assignment on *every* legal pair
  (:mod:`matcher.duel.symmetric`), branching on odd cycles for a few solves. Without
  an odd cycle longer than 1 it is proven optimal on the whole wave. Otherwise the
  blossom finishes that assignment on every legal pair (docs/adr/0065), or, if its
  start does not check out, the certified blossom of :mod:`matcher.duel.exact` solves
  the wave (both proved optimal on every legal pair).
- Mid-size waves, up to ``optimal_proof_limit`` players (docs/adr/0066): the relaxation
  on the k-nearest graph finished by the warm-started blossom (:mod:`matcher.duel.warm`),
  its duals checked against every legal pair, so the pairs are proven optimal.
- Up to ``optimal_whole_limit`` players otherwise (docs/adr/0016): branch and bound of
  the same relaxation on the k-nearest graph (:mod:`matcher.duel.nearest`); if it does
  not finish within ``optimal_branch_solves`` sparse assignments, one band.
- Waves of more than ``optimal_whole_limit`` and at most ``optimal_warm_limit`` players
  (docs/adr/0017): the relaxation's pairs and duals on the k-nearest graph, finished by
  the blossom from that warm start (:mod:`matcher.duel.warm`): optimal on the candidate
  graph; the banded path below if it cannot finish.
- Waves of more than ``optimal_prepair_limit`` players (docs/adr/0016) first pair equal
  ratings in dense rating ranges (:mod:`matcher.duel.prepair`); the rest as below. A wave
  within ``optimal_warm_limit`` or ``optimal_proof_limit`` does not (docs/adr/0068):
  raising either limit is a thorough setting, the warm blossom on the whole wave (proved
  optimal with the second).
- Larger waves (and larger pre-pass remainders, docs/adr/0018): one LP relaxation of the
  whole wave on the k-nearest graph, odd cycles rounded (:mod:`matcher.duel.relaxed`);
  for waves of at most ``optimal_parity_limit`` players, an odd number of odd cycles
  first buys one more sit-out chosen over the whole wave (docs/adr/0064).
  With ``optimal_relax_cap`` 0 (docs/adr/0015): :func:`matcher.duel.bands.band_pairs` solves the
  relaxation exactly on overlapping rating bands, on every legal pair of the band,
  and stitches them (one band for the whole wave up to ``optimal_whole_limit``
  players); near-optimal, measured in docs/benchmarks/duel.md.
- Every result not proven optimal is then re-paired by rating order where that is legal
  and cheaper (:mod:`matcher.duel.rematch`), and improved by adding waiting players and
  swapping them in along that order (:mod:`matcher.duel.augment`, docs/adr/0066).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from matcher.duel.augment import shifted_pairs
from matcher.duel.bands import band_pairs
from matcher.duel.exact import exact_matching
from matcher.duel.exchange import exchanged_pairs
from matcher.duel.flips import flipped_adds
from matcher.duel.graph import DuelArrays, Ints, by_rating, duel_arrays, subset
from matcher.duel.model import DuelConfig, DuelPair, DuelPlayer, Window
from matcher.duel.nearest import nearest_pairs
from matcher.duel.prepair import equal_rating_pairs
from matcher.duel.relaxed import relaxed_pairs
from matcher.duel.rematch import repaired_add, sorted_rematch
from matcher.duel.symmetric import symmetric_pairs
from matcher.duel.warm import warm_pairs
from matcher.duel.windows import pressure, tier_window
from matcher.fastbuild import builder


@dataclass(frozen=True, slots=True)
class OptimalOutcome:
    """The pairs of one wave (sorted by BW player rating) and how they were found.

    ``exact`` is True when the pairs are proven optimal: a symmetric assignment on every
    legal pair (branch and bound on odd cycles) was integral, or the blossom solved it.
    ``odd_cycles``: fractional odd cycles of the first assignment (small waves) or rounded
    (banded path);
    ``band_steps``: dense assignments solved by the banded path, sparse ones by the
    mid-size branch and bound, candidate graphs solved by the warm-started blossom, or 1
    for the one relaxation of a large wave (0 for small waves).
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
    bw = np.array([a for a, _ in pairs], dtype=np.int64)
    order = by_rating(arrays.bw[bw], bw, arrays.size).tolist()  # by BW rating, then player
    return OptimalOutcome(
        tuple([_make_pair(players[pairs[i][0]], players[pairs[i][1]]) for i in order]),
        wave_pressure,
        window,
        exact,
        odd,
        steps,
    )


#: 5,000 pairs at n = 10,000: the dataclass ``__init__`` cost ~13 ms of the wave's ~90.
_make_pair = builder(DuelPair)


def _solve(arrays: DuelArrays, config: DuelConfig) -> tuple[list[tuple[int, int]], bool, int, int]:
    pairs, exact, odd, steps = _solve_wave(arrays, config)
    if exact or config.optimal_shift_rounds == 0 or len(pairs) == 0:
        return pairs, exact, odd, steps
    trade_rounds = config.optimal_exchange_budget // len(pairs)
    along = _along_rating_order(arrays, pairs, config.optimal_shift_rounds, trade_rounds)
    return along, exact, odd, steps


def _along_rating_order(
    arrays: DuelArrays, pairs: list[tuple[int, int]], rounds: int, trade_rounds: int
) -> list[tuple[int, int]]:
    """Re-pair by rating order, add and swap players along it, exchange the sides of
    "both" players (first pass only), and re-pair again: the moves keep the order only
    near each change (ADR 0066, 0067)."""
    bw = np.array([a for a, _ in pairs], dtype=np.int64)
    sc2 = np.array([b for _, b in pairs], dtype=np.int64)
    grown = 0
    for number in range(_PASSES):
        bw, sc2 = sorted_rematch(arrays, bw, sc2)
        order = by_rating(arrays.bw[bw], bw, arrays.size)
        shifted = shifted_pairs(arrays, bw[order], sc2[order], _waiting(arrays, bw, sc2), rounds)
        # The second pass trades sides again only when the first one added pairs.
        traded = exchanged_pairs(
            arrays, shifted.bw, shifted.sc2, trade_rounds if not number or grown else 0
        )
        bw, sc2 = traded.bw, traded.sc2
        while not number and trade_rounds and grown < _REPAIRED_ADDS:
            more = repaired_add(arrays, bw, sc2, _waiting(arrays, bw, sc2), _REPAIR_TRIES)
            if more is None:
                break
            bw, sc2 = more
            grown += 1
        # Waiting players who all play one side: a "both" player in a pair changes side.
        flipped = flipped_adds(arrays, bw, sc2, _waiting(arrays, bw, sc2))
        bw, sc2 = flipped.bw, flipped.sc2
        if not number:
            grown += flipped.added  # the second pass trades sides around them too
        moved = shifted.added + shifted.swapped + traded.exchanges + flipped.added
        if not moved + (grown if not number else 0):
            break
    else:
        bw, sc2 = sorted_rematch(arrays, bw, sc2)
    return list(zip(bw.tolist(), sc2.tolist(), strict=True))


def _waiting(arrays: DuelArrays, bw: Ints, sc2: Ints) -> Ints:
    """The players in no pair."""
    waiting = np.ones(arrays.size, dtype=bool)
    waiting[bw] = waiting[sc2] = False
    found: Ints = np.flatnonzero(waiting)
    return found


#: Quantile edges (each side) in the unproven warm path's candidate graph (ADR 0066, 0067):
#: on the worker benchmark's mix at 1,000 players the 6-nearest graph alone left 1-3 pairs
#: of the optimum out on 4 of 10 seeds; with 4 edges each way, 1,000 players seed 25 of
#: the benchmark mix stayed at 1.195x the optimum's squared diff, with 8 at 1.002x (30 of
#: 30 seeds within 2 %, median 75 -> 77 ms).
_ALIGNED = 8

#: Adds with repaired shifted pairs after the exchanges (ADR 0067), and the insertions
#: tried for each (those shifting the fewest pairs): 3,750 players seed 1 and 2,000 seed 2
#: reach the optimum's pair count.
_REPAIRED_ADDS = 4
_REPAIR_TRIES = 4

#: Re-pairing passes: a second one re-sorts around the first one's moves (10,000 players
#: seed 3: 18,886 -> 16,830 summed squared diff); a third changed none of nine benchmark
#: waves of 2,000-10,000 players.
_PASSES = 2


def _solve_wave(
    arrays: DuelArrays, config: DuelConfig
) -> tuple[list[tuple[int, int]], bool, int, int]:
    # The parity step's second assignment fits the time budget up to this size (ADR 0064).
    parity = arrays.size <= config.optimal_parity_limit
    # A wave the warm blossom takes whole skips the pre-pass: pre-pairing pins the sides of
    # "both" players the blossom would choose better (ADR 0068, the thorough settings).
    whole = max(config.optimal_warm_limit, config.optimal_proof_limit)
    if arrays.size > max(config.optimal_prepair_limit, whole):
        # Dense ratings pair up at equal MMR first; the rest is a smaller wave (ADR 0016).
        early = equal_rating_pairs(arrays, config.optimal_prepair_density)
        late, _, odd, steps = _solve_rest(subset(arrays, early.rest), config, parity)
        rest = early.rest.tolist()
        pairs = list(zip(early.bw.tolist(), early.sc2.tolist(), strict=True))
        return pairs + [(rest[a], rest[b]) for a, b in late], False, odd, steps
    return _solve_rest(arrays, config, parity)


def _solve_rest(
    arrays: DuelArrays, config: DuelConfig, parity: bool = False
) -> tuple[list[tuple[int, int]], bool, int, int]:
    if config.optimal_exact_limit < arrays.size <= config.optimal_proof_limit:
        # Mid-size: the warm blossom with its duals checked on every legal pair (ADR 0066).
        proved = warm_pairs(arrays, config.optimal_neighbours, prove=True)
        if proved is not None:
            return list(proved.pairs), proved.proven, proved.odd_cycles, proved.rounds
    mid = config.optimal_exact_limit < arrays.size <= config.optimal_whole_limit
    if mid and config.optimal_branch_solves > 0:
        # Mid-size: branch and bound on the k-nearest graph (ADR 0016), else one band.
        near = nearest_pairs(arrays, max_solves=config.optimal_branch_solves)
        if near.pairs is not None:
            return list(near.pairs), False, near.odd_cycles, near.solves
    warm_sized = config.optimal_whole_limit < arrays.size <= config.optimal_warm_limit
    if warm_sized and arrays.size > config.optimal_exact_limit:
        warm = warm_pairs(arrays, config.optimal_neighbours, prove=False, aligned=_ALIGNED)
        if warm is not None:
            return list(warm.pairs), False, warm.odd_cycles, warm.rounds
    if arrays.size > max(config.optimal_warm_limit, config.optimal_whole_limit) and (
        config.optimal_relax_cap > 0
    ):
        # One relaxation of the whole wave: sides of "both" players chosen globally (ADR 0018).
        # Its assignment is numbered by rating: 6-11 ms faster on a 10,000-player wave's
        # pre-pass remainder (ADR 0070, 0071).
        one = relaxed_pairs(arrays, config.optimal_neighbours, config.optimal_relax_cap, parity)
        return list(one.pairs), False, one.odd_cycles, 1
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
