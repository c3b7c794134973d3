"""The live checker's part for ``optimal_choice = "weighted"`` (:mod:`matcher.duel.choice`).

It draws the wave's perturbation again from the snapshot's seed and solves the small tier
once more: a result passes when it has as many pairs as a maximum matching of the wave
and as large a perturbed gain as the seeded draw's optimum. A result that ignores the
option (the least-cost matching) or gives up a pair fails; a tie in the perturbed gain
passes, whichever of the tied matchings it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.duel.choice import PairNoise
from matcher.duel.graph import DuelArrays, cost
from matcher.duel.limits import duel_limits
from matcher.duel.model import DuelConfig, DuelPlayer, Window
from matcher.duel.optimal import choice_noise, wave_arrays
from matcher.duel.small import exact_pairs


def weighted_choice_problems(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    result: WaveResult,
    players: Sequence[DuelPlayer],
    window: Window,
    config: DuelConfig,
) -> list[str]:
    """Every way ``result`` falls short of the seeded weighted choice (empty when none).

    ``players`` (wave order), ``window`` and ``config``: the wave's, as the duel checks
    recomputed them from the snapshot and the profile.
    Waves above ``optimal_exact_limit`` players are paired as by default and judged by
    the default's checks only.

    Notes: one blossom on every legal pair of the wave, as the strategy's own small tier
    (O(n^3) at worst); only under the option.
    """
    limits = duel_limits(players, snapshot, profile.ruleset)
    arrays = wave_arrays(players, profile.maps, window, config, limits)
    if arrays.size > config.optimal_exact_limit:
        return []
    noise = choice_noise(config, snapshot.seed, arrays.size)
    if noise is None:
        return []
    best = exact_pairs(arrays, noise)
    position = {player.ticket_id: index for index, player in enumerate(players)}
    made = [_pair(match, position) for match in result.matches]
    if len(made) < len(best):
        return [f"weighted choice: {len(made)} pairs, a maximum matching has {len(best)}"]
    got, drawn = _gain(arrays, made, noise), _gain(arrays, best, noise)
    if got < drawn:
        return [
            f"weighted choice: perturbed gain {got} below the seeded draw's {drawn} "
            f"(seed {snapshot.seed}): not the wave's seeded choice"
        ]
    return []


def _pair(match: Match, position: dict[str, int]) -> tuple[int, int]:
    """``(bw, sc2)`` wave positions of a match the duel checks have found well formed."""
    return position[match.teams[0].seats[0].ticket_id], position[match.teams[1].seats[0].ticket_id]


def _gain(arrays: DuelArrays, pairs: list[tuple[int, int]], noise: PairNoise) -> int:
    if not pairs:
        return 0
    bw = np.array([a for a, _ in pairs], dtype=np.int64)
    sc2 = np.array([b for _, b in pairs], dtype=np.int64)
    return int((noise(bw, sc2) - cost(arrays, bw, sc2)).sum())
