"""Priority tickets first in a multifactor wave (a queue's ``priority`` rule, ADR 0195).

The pool selects tickets by waves waited and the search only rearranges them, so a
priority ticket can be left out while a lower one plays. After the search, its rule
check and the completion, the team strategies' swap pass (docs/adr/0162,
:mod:`matcher.teams.priority`) mends the plans: each left-out party, highest
priority first, takes the seats of a lower-priority party of its size when the match
keeps every rule (the same seats first, else the group re-split by ``rebalance``'s
exhaustive split), and the completion runs again on the parties it displaced. A swap
keeps the number of matches, so priority never costs one. A plan the pass changed is
seated through a pool of its own tickets, as the completion's are.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from matcher.core import QueueProfile, WaveSnapshot
from matcher.multifactor.complete import Plan, _hostable, _plan
from matcher.multifactor.config import MultifactorConfig
from matcher.ruleset import QueueRuleSet
from matcher.teams.complete import complete
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import Lineup, Party, TeamShape, parties_of
from matcher.teams.priority import prioritized
from matcher.teams.rebalance import rebalance
from matcher.teams.ruled import group_admission, lineup_rule_problem, ruled_splitter


def prioritized_plans(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    config: MultifactorConfig,
    rules: QueueRuleSet,
    plans: Sequence[Plan],
    met: Mapping[str, frozenset[str]],
) -> list[Plan]:
    """``plans`` after every priority swap the rules allow (unchanged plans kept as they
    are, in order; changed and added ones after them).

    Notes: as :func:`matcher.teams.priority.prioritized`, O(parties) without two
    priorities among the wave's parties.
    """
    shape = TeamShape(2, profile.team_size, profile.team_size)
    parties, _ = parties_of(snapshot, shape)
    if len({party.priority for party in parties}) < 2:
        return list(plans)
    at = {party.ticket_id: i for i, party in enumerate(parties)}
    roles = (("",) * profile.team_size,) * 2
    lineups = [_lineup(plan, at, roles) for plan in plans]
    closed, region = snapshot.closed_at_ms, snapshot.region

    def accept(group: Sequence[Party], lineup: Lineup) -> bool:
        problem = lineup_rule_problem(rules, group, lineup, closed, region, met)
        return problem is None and _hostable(group, config)

    admit, hopeless = group_admission(
        rules,
        closed,
        region,
        split_free_ratings=True,
        met=met,
        also=lambda group: _hostable(group, config),
    )

    # Exhaustive over the splits (no draw), so the seed is only a formality.
    rng = random.Random(snapshot.seed)
    split = ruled_splitter(
        lambda group: rebalance(group, shape, "permutation", rng),
        rules,
        closed,
        region,
        roles=False,
        met=met,
    )
    more = lambda found: complete(  # noqa: E731
        parties, found, shape, Imbalance(), accept, admit, hopeless=hopeless
    )
    mended = prioritized(parties, lineups, split, accept, more)
    before = dict(zip(lineups, plans, strict=True))
    kept = [before[lineup] for lineup in mended if lineup in before]
    for lineup in mended:
        if lineup not in before and (plan := _plan(snapshot, profile, config, parties, lineup)):
            kept.append(plan)
    return kept


def _lineup(plan: Plan, at: Mapping[str, int], roles: tuple[tuple[str, ...], ...]) -> Lineup:
    """The plan's two teams as indices into the wave's parties."""
    pool, ticket_of = plan.pool, plan.ticket_of
    teams = tuple(
        tuple(dict.fromkeys(at[pool.tickets[ticket_of[p]].ticket_id] for p in seats))
        for seats in (plan.team1, plan.team2)
    )
    return Lineup(teams, roles)
