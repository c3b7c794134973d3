"""The live checker's rules for ``skill_dimensions`` (game-queue's vector imbalance F).

Every match must publish ``skill_imbalance`` equal to F of its seats' dimension ratings,
and no other split of its own parties into the same teams' sizes that the queue's rules
allow may have a smaller F: the offline partition splits each group exactly by F
(matcher/teams/skill.py), so a result split by the scalar rating alone fails here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.rules.check import met_recently
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import Lineup, TeamShape, parties_of
from matcher.teams.ruled import lineup_rule_problem
from matcher.teams.skill import Dimensions, Vectors, lineup_vectors, skill_imbalance
from matcher.teams.split import team_splits

_TOLERANCE = 1e-6


def skill_problems(
    seated: WaveSnapshot,
    profile: QueueProfile,
    result: WaveResult,
    dimensions: Dimensions,
    params: Imbalance,
    vectors: Vectors,
) -> list[str]:
    """Every match of ``result`` whose F is not published or not its parties' least.

    ``seated`` is the wave rated on the composite (:func:`skill.skilled_snapshot`).

    Notes: O(matches x C(2k, k) x dimensions x 2k), plus the rules per split.
    """
    rules = profile.ruleset
    met = met_recently(seated, rules) if profile.rules else {}
    problems: list[str] = []
    for match in result.matches:
        problems.extend(_match_problems(seated, profile, match, dimensions, params, vectors, met))
    return problems


def _match_problems(
    seated: WaveSnapshot,
    profile: QueueProfile,
    match: Match,
    dimensions: Dimensions,
    params: Imbalance,
    vectors: Vectors,
    met: Mapping[str, frozenset[str]],
) -> list[str]:
    where = f"match {match.match_id}"
    missing = [
        seat.player_id
        for team in match.teams
        for seat in team.seats
        if (seat.ticket_id, seat.player_id) not in vectors
    ]
    if missing:
        return [f"{where}: {', '.join(missing)} lack a rating of skill_dimensions"]
    made = skill_imbalance(
        [[vectors[(s.ticket_id, s.player_id)] for s in team.seats] for team in match.teams],
        dimensions,
        params,
    )
    published = match.quality_of("skill_imbalance")
    if published is None:
        return [f"{where}: quality lacks 'skill_imbalance'"]
    if abs(published - made) > _TOLERANCE:
        return [f"{where}: skill_imbalance {published} but the seats give {made}"]
    ids = set(match.ticket_ids())
    wave = replace(seated, tickets=tuple(w for w in seated.tickets if w.ticket.ticket_id in ids))
    k = max(len(team.seats) for team in match.teams)
    parties, _ = parties_of(wave, TeamShape(len(match.teams), k, k))
    rules, closed, region = profile.ruleset, seated.closed_at_ms, seated.region
    for teams in team_splits([p.size for p in parties], len(match.teams), k, k):
        lineup = Lineup(teams, tuple(("",) * sum(parties[i].size for i in t) for t in teams))
        value = skill_imbalance(lineup_vectors(parties, lineup, vectors), dimensions, params)
        if value < made - _TOLERANCE and (
            not profile.rules
            or lineup_rule_problem(rules, parties, lineup, closed, region, met) is None
        ):
            return [f"{where}: skill_imbalance {made:g} but a split of its parties gives {value:g}"]
    return []
