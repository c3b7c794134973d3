"""The live checker's exact test of ``optimal``'s objective on small waves, under the
options that move it (the virtual rating, ADR 0179; priced rematches, ADR 0180; the
queue's soft ``sort``, ADR 0195).

A result is judged by the same score the strategy minimises (the pair's squared
(virtual) diff, minus the wait bonus, plus a priced rematch), summed over its matches,
against the optimum of a dynamic programme over subsets of the wave's players: most
pairs, then least summed score. Independent of the blossom the strategy runs, and cheap
up to :data:`CHECKED_LIMIT` players (``2**n * n`` steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from matcher.core import QueueProfile, WaveResult, WaveSnapshot
from matcher.duel.graph import cost_table, duel_arrays, legal_table
from matcher.duel.limits import duel_limits
from matcher.duel.model import DuelConfig, DuelPlayer, Window
from matcher.duel.rematch_cost import pair_rules, rematch_penalty, wave_priced

#: The largest wave whose objective the checker proves (4,096 subsets).
CHECKED_LIMIT = 12


def optimal_options_on(config: DuelConfig) -> bool:
    """Whether an option that moves ``optimal``'s objective is on."""
    return bool(config.virtual_rating_half_life_ms or config.rematch_cost)


def objective_problems(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    result: WaveResult,
    paired: Sequence[DuelPlayer],
    wave: tuple[DuelConfig, Window, bool],
) -> list[str]:
    """A problem when a wave of at most :data:`CHECKED_LIMIT` duel players was paired
    with fewer pairs, or a higher summed score, than the optimum (empty otherwise).

    ``paired``: the wave's players as the strategy paired them (virtual ratings when
    on); ``wave``: the recomputed config, window and whether the lead side is BW.

    Notes: O(2**n * n) for n players, nothing above the limit.
    """
    players = list(paired)
    if len(players) > CHECKED_LIMIT or len(players) < 2:
        return []
    config, window, lead_is_bw = wave
    priced = wave_priced(profile, config, len(players))
    penalty = None
    if priced:
        penalty = rematch_penalty(players, snapshot, profile.ruleset, config.rematch_cost)
    limits = duel_limits(players, snapshot, pair_rules(profile, priced))
    arrays = duel_arrays(players, profile.maps, window, config, lead_is_bw, limits, penalty=penalty)
    everyone = np.arange(len(players), dtype=np.int64)
    legal = legal_table(arrays, everyone)
    score = cost_table(arrays, everyone)
    at = {player.ticket_id: i for i, player in enumerate(players)}
    found, total = 0, 0
    for match in result.matches:
        a, b = at[match.teams[0].seats[0].ticket_id], at[match.teams[1].seats[0].ticket_id]
        found, total = found + 1, total + int(score[a, b])
    most, least = _optimum(legal.tolist(), score.tolist())
    if (found, -total) < (most, -least):
        return [
            f"not optimal: {found} pairs at summed score {total}, the optimum "
            f"{most} pairs at {least}"
        ]
    return []


def _optimum(legal: list[list[bool]], score: list[list[int]]) -> tuple[int, int]:
    """Most pairs, then least summed score, over every matching (either side each)."""
    n = len(legal)

    @cache
    def best(mask: int) -> tuple[int, int]:
        if mask.bit_count() < 2:
            return 0, 0
        i = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << i)
        pairs, cost = best(rest)
        value = (pairs, -cost)
        for j in range(i + 1, n):
            if not rest >> j & 1:
                continue
            sides = [score[u][v] for u, v in ((i, j), (j, i)) if legal[u][v]]
            if sides:
                more, spent = best(rest & ~(1 << j))
                option = (more + 1, -(spent + min(sides)))
                value = max(value, option)
        return value[0], -value[1]

    return best((1 << n) - 1)
