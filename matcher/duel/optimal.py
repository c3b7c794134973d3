"""Strategy ``optimal``: the most pairs inside their windows, then the least total score.

The exact problem is a max-cardinality min-cost matching on a general graph ("both"
players may take either side).

- Waves of at most ``optimal_exact_limit`` players (docs/adr/0011): the LP relaxation
  on the pair graph of every rating's ``optimal_neighbours`` nearest opposite ratings
  (a sparse assignment whose 2-cycles are pairs, fixed points sit out, longer cycles
  are fractional). Integral: optimal on that graph. Otherwise the certified blossom
  of :mod:`matcher.duel.exact` solves the wave (proved optimal on every legal pair).
- Larger waves (docs/adr/0015): :func:`matcher.duel.bands.band_pairs` solves the
  relaxation exactly on overlapping rating bands, on every legal pair of the band,
  and stitches them (one band for the whole wave up to ``optimal_whole_limit``
  players); near-optimal, measured in docs/benchmarks/duel.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

from matcher.duel.bands import band_pairs
from matcher.duel.exact import big_weight, exact_matching
from matcher.duel.graph import DuelArrays, Ints, duel_arrays, nearest_edges, undirected
from matcher.duel.model import DuelConfig, DuelPair, DuelPlayer, Window
from matcher.duel.windows import pressure, tier_window


@dataclass(frozen=True, slots=True)
class OptimalOutcome:
    """The pairs of one wave (sorted by BW player rating) and how they were found.

    ``exact`` is True when the pairs are proven optimal: the relaxation was integral
    (optimal on the candidate graph) or the certified blossom solved the wave.
    ``odd_cycles``: fractional odd cycles met (small waves) or rounded (banded path);
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

    Notes: small waves: O(n k log(n k)) for the graph plus one sparse assignment,
    exact blossom (cubic) when the relaxation is fractional. Larger waves: about
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
    u, v = nearest_edges(arrays, config.optimal_neighbours)
    bw, sc2, c = undirected(arrays, u, v)
    if not len(bw):
        return [], True, 0, 0
    successor = _relaxation(arrays, bw, sc2, c)
    oriented = {(int(a), int(b)): (int(a), int(b)) for a, b in zip(bw, sc2, strict=True)}
    oriented.update({(b, a): pair for (a, b), pair in list(oriented.items())})
    cycles = _cycles(successor)
    long_cycles = [cycle for cycle in cycles if len(cycle) > 2]
    if not long_cycles:
        return [oriented[(cy[0], cy[1])] for cy in cycles if len(cy) == 2], True, 0, 0
    odd = sum(len(cycle) % 2 for cycle in long_cycles)
    return list(exact_matching(arrays).pairs), True, odd, 0


def _relaxation(arrays: DuelArrays, bw: Ints, sc2: Ints, c: Ints) -> Ints:
    """Min-cost perfect assignment of the symmetric pair matrix with sit-out diagonal."""
    n = arrays.size
    weight = big_weight(arrays)
    # Entries must be positive (scipy drops explicit zeros); a uniform shift keeps the optimum.
    shift = 1 - min(int(c.min()), 0)
    diagonal = np.arange(n, dtype=np.int64)
    rows = np.concatenate([bw, sc2, diagonal])
    cols = np.concatenate([sc2, bw, diagonal])
    data = np.concatenate([c, c, np.full(n, weight, dtype=np.int64)]) + shift
    matrix = csr_matrix((data.astype(np.float64), (rows, cols)), shape=(n, n))
    _, successor = min_weight_full_bipartite_matching(matrix)
    result: Ints = successor.astype(np.int64)
    return result


def _cycles(successor: Ints) -> list[list[int]]:
    """The cycles of a permutation, each starting at its smallest member (deterministic)."""
    seen = np.zeros(len(successor), dtype=bool)
    cycles: list[list[int]] = []
    following = successor.tolist()
    for start in range(len(following)):
        if seen[start]:
            continue
        cycle = [start]
        seen[start] = True
        at = following[start]
        while at != start:
            cycle.append(at)
            seen[at] = True
            at = following[at]
        cycles.append(cycle)
    return cycles
