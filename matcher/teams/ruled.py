"""A team queue's rules applied to lineups: the splitter wrapper and the final filter
every team strategy uses, so that no lineup breaking a rule becomes a match."""

from __future__ import annotations

from collections.abc import Sequence

from matcher.rules.check import group_problem, lineup_problem, waited_s
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
    seated = [player for party in members for player in party.players]
    return lineup_problem(rules, team_ratings(parties, lineup), waited, latencies, seated)


def group_rule_problem(
    rules: QueueRuleSet,
    group: Sequence[Party],
    closed_at_ms: int,
    region: str,
    *,
    split_free_ratings: bool,
) -> str | None:
    """What ``group`` breaks whatever its split; ``split_free_ratings``: the parties'
    ratings are their seat ratings (a queue without roles), so the spread is judged too."""
    players = [player for party in group for player in party.players]
    latencies = [player.latency_to(region) for player in players]
    ratings = [r for party in group for r in party.ratings] if split_free_ratings else []
    waited = waited_s(closed_at_ms, [party.joined_at_ms for party in group])
    return group_problem(rules, waited, latencies, players, ratings)


def ruled_splitter(
    split: Splitter, rules: QueueRuleSet, closed_at_ms: int, region: str, *, roles: bool
) -> Splitter:
    """``split`` that answers None (no lineup) for a group whose lineup breaks a rule:
    the grouping then tries the next parties, as for roles it cannot fill. A group that
    breaks a rule whatever its split is refused before any split is tried."""
    if rules.empty:
        return split

    def ruled(group: Sequence[Party]) -> Lineup | None:
        if group_rule_problem(rules, group, closed_at_ms, region, split_free_ratings=not roles):
            return None
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
