"""The grouping reaches the parties a group lacks: once the room left is all for healers
(or a group's language is its rule's only way to hold), the parties that cannot join
are jumped over, not judged and counted against the group's refusals; once the healers
left are fewer than a match holds, the grouping stops."""

from __future__ import annotations

import random

import pytest

import matcher.teams.ruled as ruled
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


@pytest.mark.parametrize("strategy", ["rebalance", "game-queue"])
@pytest.mark.parametrize("seed", range(4))
def test_the_grouping_stops_when_too_few_healers_are_left_deciding_the_same(
    strategy: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Oracle: the same wave grouped without the stop (``least_carriers`` says nothing)
    makes the very same matches; with it, ``fits`` is asked fewer times."""
    rng = random.Random(seed)
    classes = ["healer"] + ["damage"] * rng.randint(5, 9)  # healers run out first
    players = [
        _solo(n, rng.randint(1300, 1700), rng.choice(classes), rng.choice(["de", "fr"]))
        for n in range(rng.randint(150, 300))
    ]
    wave = snapshot(
        [
            ticket(f"t{p.player_id}", [p], joined_at_ms=rng.randint(900_000, 999_000))
            for p in players
        ]
    )
    profile = QueueProfile("5v5", strategy, ("m",), team_size=5, rules=RULES)
    asked = {"with": 0, "without": 0}
    calls = ruled._RunningFits.__call__

    def counted(label: str):  # type: ignore[no-untyped-def]
        def call(self, members, candidate):  # type: ignore[no-untyped-def]
            asked[label] += 1
            return calls(self, members, candidate)

        return call

    with monkeypatch.context() as patched:
        patched.setattr(ruled._RunningFits, "__call__", counted("with"))
        stopped = run_wave(wave, profile)
    with monkeypatch.context() as patched:
        patched.setattr(ruled._RunningFits, "__call__", counted("without"))
        patched.setattr(ruled._RunningFits, "least_carriers", lambda self: ())
        unstopped = run_wave(wave, profile)
    assert stopped.matches == unstopped.matches and stopped.unmatched == unstopped.unmatched
    assert stopped.matches, "no match: a weak workload"
    assert asked["with"] < asked["without"], asked
