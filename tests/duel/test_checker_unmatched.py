"""The duel checker's maximality search builds the arrays of the unmatched players only:
it must find exactly the legal pairs the whole wave's arrays give among them."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveResult, WaveSnapshot
from matcher.duel.checks import duel_result_problems, duel_rules
from matcher.duel.limits import duel_limits
from matcher.duel.near import legal_between
from matcher.duel.optimal import wave_arrays
from matcher.strategies import run_wave

MAPS = ("m1", "m2")
#: A mirror queue with skill and latency limits that grow with the wait.
RULES = {
    "rating": "mmr",
    "max_distance": {"base": 40, "growth_per_s": 4, "cap": 300},
    "max_latency_ms": {"base": 60, "growth_per_s": 1, "cap": 120},
}


def _wave(seed: int, mirror: bool) -> WaveSnapshot:
    rng = random.Random(seed)
    tickets = []
    for i in range(60):
        if mirror:
            ratings: tuple[tuple[str, int], ...] = (("mmr", rng.randint(1000, 1600)),)
        else:
            races = rng.choice((("bw",), ("sc2",), ("bw", "sc2")))
            ratings = tuple((race, rng.randint(1000, 1600)) for race in races)
        player = Player(f"p{i}", ratings, latency_ms=(("eu", rng.randint(10, 140)),))
        ticket = Ticket(f"t{i}", "1v1", "eu", (player,), rng.randint(0, 60_000))
        tickets.append(WaitingTicket(ticket, rng.randint(0, 6)))
    return WaveSnapshot("1v1", "eu", "w1", 1, seed, 60_000, tuple(tickets), 200)


def _dropped(result: WaveResult) -> WaveResult:
    """The result with its last third of matches undone (their tickets back unmatched):
    the others keep their derived ids and channels, so only completeness is at fault."""
    keep = len(result.matches) * 2 // 3
    freed = tuple(t for m in result.matches[keep:] for t in m.ticket_ids())
    return replace(result, matches=result.matches[:keep], unmatched=result.unmatched + freed)


def _whole_wave_pairs(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> int:
    """The legal pairs among the unmatched by the whole wave's arrays (the reference)."""
    rules = duel_rules(snapshot, profile, result.strategy)
    players = list(rules.players)
    unmatched = set(result.unmatched)
    loose = np.array([i for i, p in enumerate(players) if p.ticket_id in unmatched], dtype=np.int64)
    limits = duel_limits(players, snapshot, profile.ruleset)
    arrays = wave_arrays(players, profile.maps, rules.window, rules.config, limits)
    bw, sc2 = legal_between(arrays, loose, loose)
    return len(np.unique(np.minimum(bw, sc2) * len(players) + np.maximum(bw, sc2)))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "profile",
    [
        QueueProfile("1v1", "optimal", MAPS, rules=RULES),
        QueueProfile("1v1", "optimal", MAPS, options={"window_rule": "lead"}),
        QueueProfile("1v1", "optimal", MAPS, options={"window_rule": "longer"}),
    ],
    ids=["mirror-rules", "lead", "longer"],
)
def test_the_unmatched_players_pairs_are_those_of_the_whole_wave(
    seed: int, profile: QueueProfile
) -> None:
    snapshot = _wave(seed, mirror=profile.rules is not None and bool(profile.rules))
    result = _dropped(run_wave(snapshot, profile))
    expected = _whole_wave_pairs(snapshot, profile, result)
    problems = duel_result_problems(snapshot, profile, result)
    if expected:
        assert problems and problems[0].startswith(f"not maximal: {expected} legal pairs"), (
            problems,
            expected,
        )
    else:
        assert problems == []
