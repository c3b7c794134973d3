"""A team queue's rules applied to lineups: the splitter wrapper and the final filter
every team strategy uses, so that no lineup breaking a rule becomes a match."""

from __future__ import annotations

from collections.abc import Sequence

from matcher.rules.check import lineup_problem, waited_s
from matcher.rules.model import QueueRuleSet
from matcher.teams.grouping import Splitter
from matcher.teams.model import Lineup, Party, team_ratings


def lineup_rule_problem(
    rules: QueueRuleSet,
    parties: Sequence[Party],
    lineup: Lineup,
    closed_at_ms: int,
    region: str,
) -> str | None:
    """Why ``lineup`` (indices into ``parties``) breaks ``rules`` at the wave's close.

    Notes: O(seats).
    """
    members = [parties[i] for team in lineup.teams for i in team]
    latencies = [player.latency_to(region) for party in members for player in party.players]
    waited = waited_s(closed_at_ms, [party.joined_at_ms for party in members])
    return lineup_problem(rules, team_ratings(parties, lineup), waited, latencies)


def ruled_splitter(
    split: Splitter, rules: QueueRuleSet, closed_at_ms: int, region: str
) -> Splitter:
    """``split`` that answers None (no lineup) for a group whose lineup breaks a rule:
    the grouping then tries the next parties, as for roles it cannot fill."""
    if rules.empty:
        return split

    def ruled(group: Sequence[Party]) -> Lineup | None:
        lineup = split(group)
        if lineup is None or lineup_rule_problem(rules, group, lineup, closed_at_ms, region):
            return None
        return lineup

    return ruled


def allowed_lineups(
    lineups: Sequence[Lineup],
    parties: Sequence[Party],
    rules: QueueRuleSet,
    closed_at_ms: int,
    region: str,
) -> list[Lineup]:
    """The lineups that respect ``rules``; the others' tickets stay queued."""
    if rules.empty:
        return list(lineups)
    return [
        lineup
        for lineup in lineups
        if lineup_rule_problem(rules, parties, lineup, closed_at_ms, region) is None
    ]
