"""The splitters choose the best-balanced split that keeps the per-team rules: a group
whose best-balanced split puts both healers in one team is split the next-best way,
not refused and broken up."""

from __future__ import annotations

import pytest

from matcher.checks import wave_result_problems
from matcher.core import Player, QueueProfile
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import run_wave
from tests.teams.factories import snapshot, ticket

RULES = {
    "rating": "mmr",
    "max_spread": 400,
    "checks": [
        {
            "name": "healer",
            "kind": "count",
            "attribute": "class",
            "value": "healer",
            "min": 1,
            "per": "team",
        },
    ],
}


def _solo(number: int, rating: int, cls: str) -> Player:
    return Player(f"p{number}", (("mmr", rating),), attributes=(("class", cls),))


@pytest.mark.parametrize("strategy", ["rebalance", "game-queue"])
def test_a_group_is_split_the_best_way_its_team_rules_allow(strategy: str) -> None:
    # Two 2v2 groups 300 apart; within each, healers at both ends of the ratings, so
    # the best-balanced split (gap 0) seats both healers together. The only legal
    # lineups seat one healer per team (gap 50 / 10); the spread limit keeps the two
    # groups from mixing, so refusing a group's split leaves its players unmatched.
    specs = [(1000, "healer"), (1050, "damage"), (1150, "damage"), (1200, "healer")]
    specs += [(1500, "damage"), (1510, "damage"), (1520, "healer"), (1530, "healer")]
    players = [_solo(n, rating, cls) for n, (rating, cls) in enumerate(specs)]
    wave = snapshot([ticket(f"t{p.player_id}", [p], joined_at_ms=999_000) for p in players])
    profile = QueueProfile("5v5", strategy, ("m",), team_size=2, rules=RULES)
    result = run_wave(wave, profile)
    rated = rated_snapshot(wave, profile.ruleset)
    assert wave_rule_problems(rated, profile, result) == []
    assert wave_result_problems(rated, profile, result) == []
    lineups = sorted(
        sorted(tuple(sorted(seat.player_id for seat in team.seats)) for team in match.teams)
        for match in result.matches
    )
    assert lineups == [
        [("p0", "p2"), ("p1", "p3")],
        [("p4", "p7"), ("p5", "p6")],
    ]
