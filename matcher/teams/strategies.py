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
from collections.abc import Callable, Mapping, Sequence

from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.rules.check import met_recently
from matcher.ruleset import QueueRuleSet
from matcher.teams.acceptance import acceptor, balanced, reseater
from matcher.teams.asymmetric import asymmetric_split
from matcher.teams.build import build_match, build_result
from matcher.teams.complete import Admit, Hopeless, complete
from matcher.teams.gamequeue import GameQueue
from matcher.teams.games import Unit
from matcher.teams.grouping import Splitter, group_parties
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import (
    Lineup,
    Party,
    TeamShape,
    parties_of,
    seat_rating,
)
from matcher.teams.offline import optimal_split, partition_wave
from matcher.teams.options import (
    GameQueueConfig,
    game_queue_settings,
    rebalance_settings,
)
from matcher.teams.priority import prioritized
from matcher.teams.rebalance import choose_method, rebalance
from matcher.teams.role_parties import interval_games
from matcher.teams.roles import shortest_role_interval, split_representatives
from matcher.teams.ruled import (
    allowed_lineups,
    group_admission,
    grouped_by_class,
    playable_now,
    preference_key,
    rule_fits,
    ruled_splitter,
    team_rule_keeper,
)
from matcher.teams.skill import (
    Vectors,
    lineup_vectors,
    skill_imbalance,
    skill_split,
    skilled_snapshot,
)
from matcher.teams.steps import close_with_steps

#: Whom each queued player may not meet: met too recently (rematch) or blocked (block_lists).
Met = Mapping[str, frozenset[str]]


def rebalance_strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close a team wave with the rebalance methods, then at each of its team steps."""
    return close_with_steps(_rebalance_wave, snapshot, profile)


def _rebalance_wave(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close a team wave with the rebalance methods at the profile's shape.

    Notes: greedy waves run in O(n log n); combination and permutation cost a bounded
    search per match (see :mod:`matcher.teams.rebalance`).
    """
    shape, config = rebalance_settings(profile)
    rules = profile.ruleset.counting()
    rng = random.Random(snapshot.seed)
    parties, _ = parties_of(snapshot, shape)
    keeps = team_rule_keeper(rules, snapshot.closed_at_ms, snapshot.region)

    def split(group: Sequence[Party]) -> Lineup | None:
        if shape.sizes:  # asymmetric teams: each team its own size and roles
            return asymmetric_split(group, shape)
        return rebalance(group, shape, config.method, rng, config.max_sequences, keeps)

    met = met_recently(snapshot, rules)
    closed, region, roles = snapshot.closed_at_ms, snapshot.region, shape.role_rated
    count = shape.team_count
    ruled = ruled_splitter(split, rules, closed, region, roles=roles, met=met, team_count=count)
    size = shape.match_max
    fits = rule_fits(rules, closed, region, roles=roles, met=met, team_count=count, match_size=size)
    fitted = ruled_splitter(
        split, rules, closed, region, roles=roles, met=met, team_count=count, fitted=size
    )
    candidates = playable_now(rules, parties, closed, region)
    lineups = grouped_by_class(
        rules,
        parties,
        candidates,
        lambda group: group_parties(group, shape, fitted, fits, preference_key(rules)),
        closed,
    )
    admit, hopeless = _admission(snapshot, rules, shape, met)
    accept = acceptor(snapshot, rules, met)
    reseat = reseater(snapshot, rules, met, shape.role_rated and rules.limits_ratings)
    lineups = complete(
        parties, lineups, shape, config.imbalance, accept, admit, hopeless=hopeless, reseat=reseat
    )
    if rules.priority:
        more = lambda found: complete(  # noqa: E731
            parties, found, shape, config.imbalance, accept, admit, hopeless=hopeless, reseat=reseat
        )
        lineups = prioritized(parties, lineups, ruled, accept, more)
    method = choose_method(config.method, shape, shape.match_max)
    matches = _matches(snapshot, profile, parties, lineups, rng, config.imbalance)
    stats = (("method_" + method, 1.0), *rules.tally_stats())
    return build_result("rebalance", snapshot, matches, stats)


def _admission(
    snapshot: WaveSnapshot, rules: QueueRuleSet, shape: TeamShape, met: Met
) -> tuple[Admit, Hopeless]:
    """Whether a group of parties can make a match under the rules, before any split;
    whether none can that starts with given parties (completion's two questions)."""
    closed, region, fixed = snapshot.closed_at_ms, snapshot.region, not shape.role_rated
    return group_admission(rules, closed, region, split_free_ratings=fixed, met=met)


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


def game_queue_strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close a team wave with the game queue, then at each of its team steps."""
    return close_with_steps(_game_queue_wave, snapshot, profile)


def _game_queue_wave(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close a team wave with Alman & McKay's imbalance-minimising game queue (k vs k).

    ``mode: offline`` (default) sorts the wave, cuts it into groups of 2k players and
    splits each group with the least imbalance f. ``mode: queue`` loads the wave into
    the game queue and pops the game of least priority g = f + beta * earliest join
    (seconds before the wave's close, negative) until none is left; with roles, solo
    players are matched by the shortest-role-interval approximation and the rest
    (parties, leftovers) by the offline grouping, or with ``role_parties = "interval"``
    parties too by the role intervals (:mod:`matcher.teams.role_parties`).
    ``max_imbalance`` drops games whose f exceeds it (their tickets stay queued).
    ``skill_dimensions`` seats players on their composite rating and splits by the
    vector imbalance F (:mod:`matcher.teams.skill`).

    Notes: offline O(n log n); queue O(n W) window searches for W = window(k), each
    O(1) for fixed k but costly (docs/teams.md).
    """
    shape, config = game_queue_settings(profile)
    truncated = False
    whole, vectors = snapshot, None
    if config.skill_dimensions:
        snapshot, vectors = skilled_snapshot(snapshot, config.skill_dimensions)
    rng = random.Random(snapshot.seed)
    parties, _ = parties_of(snapshot, shape)
    params = config.imbalance
    by_skill = None if vectors is None else _skill_splitter(shape, config, vectors)
    rules = profile.ruleset.counting()
    met = met_recently(snapshot, rules)
    closed, region, roles = snapshot.closed_at_ms, snapshot.region, bool(shape.roles)
    keeps = team_rule_keeper(rules, closed, region)

    def wrap(split: Splitter, fitted: int = 0) -> Splitter:
        count = shape.team_count
        return ruled_splitter(
            split, rules, closed, region, roles=roles, met=met, team_count=count, fitted=fitted
        )

    if config.mode == "offline":
        count, size = shape.team_count, shape.match_max
        fits = rule_fits(
            rules, closed, region, roles=roles, met=met, team_count=count, match_size=size
        )
        candidates = playable_now(rules, parties, closed, region)
        fitted = lambda split: wrap(split, size)  # noqa: E731
        lineups = grouped_by_class(
            rules,
            parties,
            candidates,
            lambda group: partition_wave(
                group, shape, params, fitted, fits, preference_key(rules), by_skill, keeps
            ),
            closed,
        )
    elif shape.roles and config.role_parties == "interval":
        lineups, truncated = _interval_queue(parties, shape, config)
    elif shape.roles:
        lineups = _role_queue(parties, shape, config)
    else:
        lineups = _game_queue(snapshot, parties, shape, config, rng.getrandbits(32))
    if config.mode != "offline":  # the offline grouping's splitter judged each lineup
        lineups = allowed_lineups(lineups, parties, rules, closed, region, met)
    within = balanced(params, config.max_imbalance)
    lineups = [lineup for lineup in lineups if within(parties, lineup)]
    accept = acceptor(snapshot, rules, met, params, config.max_imbalance)
    admit, hopeless = _admission(snapshot, rules, shape, met)
    value = None if vectors is None else _skill_value(config, vectors)
    limited = rules.limits_ratings or config.max_imbalance is not None
    reseat = reseater(snapshot, rules, met, shape.role_rated and limited)
    lineups = complete(
        parties, lineups, shape, params, accept, admit, value, hopeless=hopeless, reseat=reseat
    )
    if rules.priority:
        resplit = wrap(by_skill or (lambda group: optimal_split(group, shape, params, keeps)))
        more = lambda found: complete(  # noqa: E731
            parties, found, shape, params, accept, admit, value, hopeless=hopeless, reseat=reseat
        )
        lineups = prioritized(parties, lineups, resplit, accept, more)
    extra = [] if value is None else [(("skill_imbalance", value(parties, x)),) for x in lineups]
    matches = _matches(snapshot, profile, parties, lineups, rng, params, extra)
    stats = (("mode_" + config.mode, 1.0), *rules.tally_stats())
    if truncated:
        stats = (*stats, ("role_interval_truncated", 1.0))
    return build_result("game-queue", whole, matches, stats)


def _skill_splitter(shape: TeamShape, config: GameQueueConfig, vectors: Vectors) -> Splitter:
    dimensions, params = config.skill_dimensions, config.imbalance
    return lambda group: skill_split(group, shape.size_max, dimensions, params, vectors)


def _skill_value(
    config: GameQueueConfig, vectors: Vectors
) -> Callable[[Sequence[Party], Lineup], float]:
    dimensions, params = config.skill_dimensions, config.imbalance
    return lambda group, lineup: skill_imbalance(
        lineup_vectors(group, lineup, vectors), dimensions, params
    )


def _game_queue(
    snapshot: WaveSnapshot,
    parties: Sequence[Party],
    shape: TeamShape,
    config: GameQueueConfig,
    seed: int,
) -> list[Lineup]:
    queue = GameQueue(
        shape.size_max,
        config.imbalance,
        config.beta,
        seed,
        max_nodes=config.max_nodes,
        width=config.window,
    )
    queue.extend(
        [
            Unit(i, party.ratings, (party.joined_at_ms - snapshot.closed_at_ms) / 1000.0)
            for i, party in enumerate(parties)
        ]
    )
    lineups: list[Lineup] = []
    while (game := queue.pop_best()) is not None:
        lineups.append(game.lineup())
    return lineups


def _interval_queue(
    parties: Sequence[Party], shape: TeamShape, config: GameQueueConfig
) -> tuple[list[Lineup], bool]:
    """Role intervals over every party (solos too), then the offline grouping of the rest."""
    lineups, truncated = interval_games(parties, shape.roles, config.imbalance)
    taken = {i for lineup in lineups for team in lineup.teams for i in team}
    rest = [i for i in range(len(parties)) if i not in taken]
    for lineup in partition_wave([parties[i] for i in rest], shape, config.imbalance):
        teams = tuple(tuple(rest[i] for i in team) for team in lineup.teams)
        lineups.append(Lineup(teams, lineup.roles))
    return lineups, truncated


def _role_queue(
    parties: Sequence[Party], shape: TeamShape, config: GameQueueConfig
) -> list[Lineup]:
    solos = sorted(
        (i for i, party in enumerate(parties) if party.size == 1),
        key=lambda i: (parties[i].ratings[0], parties[i].order),
    )
    lineups: list[Lineup] = []
    while True:
        players = [parties[i].players[0] for i in solos]
        ratings = [parties[i].ratings[0] for i in solos]
        found = shortest_role_interval(players, ratings, shape.roles)
        if found is None:
            break
        _, _, matched = found
        seat_ratings = [
            seat_rating(players[index], (shape.roles + shape.roles)[slot])
            for slot, index in enumerate(matched)
        ]
        by_player = dict(zip(matched, seat_ratings, strict=True))
        ratings_of = [by_player.get(index, 0) for index in range(len(players))]
        first, second = split_representatives(matched, ratings_of, shape.roles, config.imbalance)
        lineups.append(
            Lineup(
                (tuple(solos[i] for i in first), tuple(solos[i] for i in second)),
                (shape.roles, shape.roles),
            )
        )
        used = set(matched)
        solos = [solo for position, solo in enumerate(solos) if position not in used]
    taken = {i for lineup in lineups for team in lineup.teams for i in team}
    rest = [i for i in range(len(parties)) if i not in taken]
    for lineup in partition_wave([parties[i] for i in rest], shape, config.imbalance):
        teams = tuple(tuple(rest[i] for i in team) for team in lineup.teams)
        lineups.append(Lineup(teams, lineup.roles))
    return lineups
