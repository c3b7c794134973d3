"""Team-queue strategies behind the generic signature ``(snapshot, profile) -> WaveResult``.

* ``rebalance``: parties sorted by rating and cut into match-sized groups, each split
  by the configured rebalance method (permutation / combination / greedy / auto).
* ``game-queue``: Alman & McKay's imbalance-minimising game queue; ``mode: queue``
  pops the best game (least priority g = f + beta * earliest join) until none is left,
  ``mode: offline`` sorts the wave, cuts it into groups of 2k and splits each optimally.

Both validate the profile and options first (ValueError naming the field) and seed
every random choice from ``snapshot.seed``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.teams.build import build_match, build_result
from matcher.teams.grouping import group_parties
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import Lineup, Party, TeamShape, parties_of, team_shape
from matcher.teams.options import rebalance_config
from matcher.teams.rebalance import choose_method, rebalance


def rebalance_strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close a team wave with the rebalance methods.

    Notes: greedy waves run in O(n log n); combination and permutation cost a bounded
    search per match (see :mod:`matcher.teams.rebalance`).
    """
    shape = team_shape(profile)
    config = rebalance_config(profile.options)
    rng = random.Random(snapshot.seed)
    parties, _ = parties_of(snapshot, shape)

    def split(group: Sequence[Party]) -> Lineup | None:
        return rebalance(group, shape, config.method, rng, config.max_sequences)

    lineups = group_parties(parties, shape, split)
    method = choose_method(config.method, shape, shape.match_max)
    matches = _matches(snapshot, profile, parties, lineups, rng, config.imbalance)
    return build_result("rebalance", snapshot, matches, (("method_" + method, 1.0),))


def _matches(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    parties: Sequence[Party],
    lineups: Sequence[Lineup],
    rng: random.Random,
    params: Imbalance,
    extra: Sequence[Sequence[tuple[str, float]]] = (),
) -> list[Match]:
    matches: list[Match] = []
    for position, lineup in enumerate(lineups):
        figures = extra[position] if position < len(extra) else ()
        match = build_match(
            snapshot, profile, parties, lineup, rng, len(matches) + 1, params, figures
        )
        if match is not None:
            matches.append(match)
    return matches


def _shape_for_game_queue(profile: QueueProfile) -> TeamShape:
    shape = team_shape(profile)
    if shape.team_count != 2:
        raise ValueError(f"team_count: the game queue plays two teams (got {shape.team_count})")
    if not shape.strict:
        raise ValueError("team_size_min: the game queue needs strict team sizes (k vs k)")
    return shape
