"""Matches the multifactor search could not make: its selection packs tickets in priority
order and its rules are checked after the search, so a strict wave could end with no match
although one exists. The tickets left over are completed by the team queues' exhaustive
completion (matcher/teams/complete.py) under the same rules, and each match found is
seated through a pool of its own tickets, so it is scored and reported as any other."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

from matcher.core import QueueProfile, WaveSnapshot
from matcher.multifactor.config import MultifactorConfig
from matcher.multifactor.pool import Pool, build_pool
from matcher.peers import reachable_hosts
from matcher.rules.check import met_recently
from matcher.ruleset import QueueRuleSet
from matcher.teams.complete import complete
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import Lineup, Party, TeamShape, parties_of
from matcher.teams.ruled import group_admission, lineup_rule_problem


class Plan(NamedTuple):
    """One match to build: seats (player indices) of each team in ``pool``."""

    pool: Pool
    ticket_of: dict[int, int]
    team1: tuple[int, ...]
    team2: tuple[int, ...]


def ticket_index(pool: Pool) -> dict[int, int]:
    """The pool's ticket index of each of its players."""
    return {p: t for t, members in enumerate(pool.ticket_players) for p in members}


def left_out_matches(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    config: MultifactorConfig,
    rules: QueueRuleSet,
    used: set[str],
) -> list[Plan]:
    """Plans of the matches completion finds among the tickets not in ``used``.

    Notes: bounded by matcher.teams.complete.MAX_SPLITS; a pool per match found.
    """
    rest = tuple(w for w in snapshot.tickets if w.ticket.ticket_id not in used)
    shape = TeamShape(2, profile.team_size, profile.team_size)
    if sum(w.ticket.size for w in rest) < shape.match_max:
        return []
    left = replace(snapshot, tickets=rest)
    parties, _ = parties_of(left, shape)
    met = met_recently(snapshot, rules)

    def accept(group: Sequence[Party], lineup: Lineup) -> bool:
        closed, region = snapshot.closed_at_ms, snapshot.region
        return lineup_rule_problem(rules, group, lineup, closed, region, met) is None

    admit, hopeless = group_admission(
        rules,
        snapshot.closed_at_ms,
        snapshot.region,
        split_free_ratings=True,
        met=met,
        also=lambda group: _hostable(group, config),
    )
    plans = []
    for lineup in complete(parties, [], shape, Imbalance(), accept, admit, hopeless=hopeless):
        plan = _plan(left, profile, config, parties, lineup)
        if plan is not None:
            plans.append(plan)
    return plans


def _hostable(group: Sequence[Party], config: MultifactorConfig) -> bool:
    """A group may play unless ``p2p_host_max_ms`` finds nobody to host it (any split)."""
    if not config.p2p_host_max_ms:
        return True
    return bool(
        reachable_hosts([p for party in group for p in party.players], config.p2p_host_max_ms)
    )


def _plan(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    config: MultifactorConfig,
    parties: Sequence[Party],
    lineup: Lineup,
) -> Plan | None:
    ids = {parties[i].ticket_id for team in lineup.teams for i in team}
    waiting = {w.ticket.ticket_id: w for w in snapshot.tickets}
    # The pool packs its tickets first-fit in priority order; with equal priorities and
    # each team's tickets largest first, that packing is exactly the lineup's two teams
    # (a packing in the wave's priority order can miss it: 1+1, 2, 2 fills no team).
    ordered = [
        replace(waiting[parties[i].ticket_id], wait_cycles=0)
        for team in lineup.teams
        for i in sorted(team, key=lambda i: -len(parties[i].players))
    ]
    pool = build_pool(replace(snapshot, tickets=tuple(ordered)), profile, config)
    if {t.ticket_id for t in pool.tickets} != ids:  # cannot happen for a packable lineup
        return None
    ticket_of = ticket_index(pool)
    by_ticket = {
        t.ticket_id: members for t, members in zip(pool.tickets, pool.ticket_players, strict=True)
    }
    team1, team2 = (
        tuple(p for i in team for p in by_ticket[parties[i].ticket_id]) for team in lineup.teams
    )
    return Plan(pool, ticket_of, team1, team2)
