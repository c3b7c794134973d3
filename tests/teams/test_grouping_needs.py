"""The grouping reaches the parties a group lacks: once the room left is all for healers
(or a group's language is its rule's only way to hold), the parties that cannot join
are jumped over, not judged and counted against the group's refusals."""

from __future__ import annotations

import pytest

from matcher.checks import wave_result_problems
from matcher.core import Player, QueueProfile
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import run_wave
from tests.teams.factories import snapshot, ticket

RULES = {
    "rating": "mmr",
    "checks": [
        {
            "name": "one-language",
            "kind": "all",
            "rules": [{"kind": "equal", "attribute": "language"}],
        },
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


def _solo(number: int, rating: int, cls: str, language: str) -> Player:
    return Player(
        f"p{number}", (("mmr", rating),), attributes=(("class", cls), ("language", language))
    )


@pytest.mark.parametrize("strategy", ["rebalance", "game-queue"])
def test_two_matches_behind_more_refusals_than_a_group_may_spend(strategy: str) -> None:
    # In rating order: 16 German damage players, 50 French ones (no group of a German
    # can take them, and there are more of them than a group's 40 refusals), then the
    # 4 German healers the German groups lack. Two matches are possible (70 players: no
    # surplus ticket is held back).
    players = [_solo(n, 1500 + n, "damage", "de") for n in range(16)]
    players += [_solo(n, 1500 + n, "damage", "fr") for n in range(16, 66)]
    players += [_solo(n, 1600 + n, "healer", "de") for n in range(66, 70)]
    wave = snapshot([ticket(f"t{p.player_id}", [p], joined_at_ms=999_000) for p in players])
    profile = QueueProfile("5v5", strategy, ("m",), team_size=5, rules=RULES)
    result = run_wave(wave, profile)
    rated = rated_snapshot(wave, profile.ruleset)
    assert wave_rule_problems(rated, profile, result) == []
    assert wave_result_problems(rated, profile, result) == []
    assert len(result.matches) == 2
    for match in result.matches:
        for team in match.teams:
            assert sum(seat.player_id in {"p66", "p67", "p68", "p69"} for seat in team.seats) == 1
