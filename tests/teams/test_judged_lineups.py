"""A group the grouping's ``fits`` judged whole has only what its split decides judged
again after the split (``group_judged``): the same matches, unmatched tickets and rule
tallies as judging it all again, under rules of every kind (oracle: the full re-judge)."""

from __future__ import annotations

import random

import pytest

import matcher.teams.ruled as ruled
from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.strategies import run_wave
from tests.teams.test_running_totals import RULES

CLOSED = 1_000_000


def _wave(seed: int) -> WaveSnapshot:
    rng = random.Random(seed)
    tickets = []
    for n in range(rng.randint(120, 240)):
        attributes = {
            "class": rng.choice(["tank", "healer", "sniper", "damage", "sniper,damage"]),
            "language": rng.choice(["de", "fr", "en"]),
            "main": rng.choice("abcdefghijkl"),
            "platform": rng.choice(["pc", "pc,xbox", "xbox"]),
        }
        player = Player(
            f"p{n}",
            (("mmr", rng.randint(1300, 1700)),),
            latency_ms=(("eu", rng.randint(10, 140)),),
            attributes=tuple(sorted(attributes.items())),
            numbers=(("level", float(rng.randint(1, 60))),),
        )
        joined = CLOSED - rng.randint(0, 150_000)
        tickets.append(WaitingTicket(Ticket(f"t{n}", "5v5", "eu", (player,), joined), n % 3))
    return WaveSnapshot("5v5", "eu", "w", 1, seed, CLOSED, tuple(tickets))


@pytest.mark.parametrize("strategy", ["rebalance", "game-queue"])
@pytest.mark.parametrize("raw", RULES, ids=["growing-limits", "sets-and-compounds"])
@pytest.mark.parametrize("seed", range(3))
def test_a_judged_group_decides_and_counts_as_a_full_rejudge(
    strategy: str, raw: dict[str, object], seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    wave = _wave(seed)
    profile = QueueProfile("5v5", strategy, ("m",), team_size=5, rules=raw)
    plain = ruled.lineup_rule_problem
    shortcuts = []

    def counted(*args, group_judged=False, **kwargs):  # type: ignore[no-untyped-def]
        shortcuts.append(group_judged)
        return plain(*args, group_judged=group_judged, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(ruled, "lineup_rule_problem", counted)
        judged = run_wave(wave, profile)
    assert any(shortcuts), "no group was judged whole by fits: the shortcut went untried"

    def rejudged(*args, group_judged=False, **kwargs):  # type: ignore[no-untyped-def]
        return plain(*args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(ruled, "lineup_rule_problem", rejudged)
        full = run_wave(wave, profile)
    assert judged == full
    assert judged.matches, "no match: a weak workload"
    assert any(name.startswith("rule_") for name, _ in judged.stats), judged.stats
