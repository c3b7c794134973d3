"""Builders of duel waves for the tests: the benchmark's distribution, seeded."""

from __future__ import annotations

import random

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.duel.graph import DuelArrays
from matcher.duel.model import DuelConfig, DuelPlayer
from matcher.duel.optimal import wave_arrays
from matcher.duel.windows import pressure, tier_window

MAPS = ("fighting spirit", "circuit breaker", "polypoid", "eclipse")


def synthetic_players(n: int, seed: int, veto_rate: float = 0.1) -> list[DuelPlayer]:
    """The issue's distribution: MMR ~ N(1500, 300) in 0-3000; 30/30/40 bw/sc2/both."""
    rng = random.Random(seed)
    players = []
    for i in range(n):
        bw = min(3000, max(0, round(rng.gauss(1500, 300))))
        kind = rng.random()
        sc2 = min(3000, max(0, round(bw + rng.gauss(0, 150))))
        wait = 0
        while rng.random() < 0.4:
            wait += 1
        vetoes = tuple(m for m in MAPS if rng.random() < veto_rate)
        players.append(
            DuelPlayer(
                player_id=f"p{i}",
                bw_mmr=bw if kind >= 0.3 or kind < 0.0 else None,
                sc2_mmr=sc2 if kind < 0.3 or kind >= 0.6 else None,
                wait_cycles=wait,
                region=rng.choice(("eu", "na")),
                vetoed_maps=vetoes,
                ticket_id=f"t{i}",
            )
        )
    return players


def worker_mix_ratings(n: int, seed: int) -> list[tuple[int | None, int | None]]:
    """``(bw_mmr, sc2_mmr)`` of the worker benchmark's player mix (scripts/bench_wave_close.py
    draws its joins from here): N(1500, 250), 35 % BW only, 35 % SC2 only, 30 % "both"
    with SC2 = BW + 50."""
    rng = random.Random(seed)
    ratings: list[tuple[int | None, int | None]] = []
    for _ in range(n):
        mmr = max(0, int(rng.gauss(1500, 250)))
        side = rng.random()
        ratings.append(
            (mmr, None) if side < 0.35 else ((None, mmr) if side < 0.7 else (mmr, mmr + 50))
        )
    return ratings


def worker_benchmark_mix(n: int, seed: int) -> list[DuelPlayer]:
    """The worker benchmark's players (:func:`worker_mix_ratings`); nobody has waited."""
    return [
        DuelPlayer(f"p{i}", bw, sc2, 0) for i, (bw, sc2) in enumerate(worker_mix_ratings(n, seed))
    ]


def snapshot_of(
    players: list[DuelPlayer], seed: int = 7, active_population: int = 0, wave_id: str = "w1"
) -> WaveSnapshot:
    """A WaveSnapshot holding one single-player ticket per duel player."""
    tickets = []
    for p in players:
        ratings = tuple(
            (race, mmr) for race, mmr in (("bw", p.bw_mmr), ("sc2", p.sc2_mmr)) if mmr is not None
        )
        player = Player(p.player_id, ratings, vetoed_maps=p.vetoed_maps)
        ticket = Ticket(p.ticket_id or p.player_id, "1v1", p.region, (player,), 0)
        tickets.append(WaitingTicket(ticket, p.wait_cycles))
    return WaveSnapshot("1v1", "eu", wave_id, 1, seed, 0, tuple(tickets), active_population)


def profile_of(strategy: str, **options: object) -> QueueProfile:
    return QueueProfile("1v1", strategy, MAPS, options=dict(options))


def arrays_of(
    players: list[DuelPlayer], population: int, config: DuelConfig, maps: tuple[str, ...] = MAPS
) -> DuelArrays:
    """The arrays ``optimal`` builds for a wave of ``players`` among ``population`` active."""
    window = tier_window(pressure(len(players), population, config), config)
    return wave_arrays(players, maps, window, config)
