"""Cost of queue rules on a 10,000-player 5v5 team wave: strategy and live-checker times
with and without a full rules table, and how many matches each makes.

Workload: solo players, ratings ~ N(1500, 300) keyed "mmr", latency to the region
uniform in 10-150 ms, one of three languages, waits uniform in 0-120 s. Rules: rating
"mmr"; max_spread 200 + 5/s up to 800; max_team_gap 50 + 2/s up to 200; max_latency_ms
80 + 1/s up to 150; language equal, relaxed after 60 s.

    .venv/bin/python scripts/bench_rules.py [players]

Timings are wall-clock on whatever machine runs it (printed first).
"""

from __future__ import annotations

import random
import sys
import time

from matcher.checks import wave_result_problems
from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import run_wave
from scripts.machine import machine_line

RULES = {
    "rating": "mmr",
    "max_spread": {"base": 200, "growth_per_s": 5, "cap": 800},
    "max_team_gap": {"base": 50, "growth_per_s": 2, "cap": 200},
    "max_latency_ms": {"base": 80, "growth_per_s": 1, "cap": 150},
    "attributes": [{"name": "language", "relax_after_s": 60}],
}
CLOSED_AT_MS = 10_000_000


def wave(players: int) -> WaveSnapshot:
    rng = random.Random(1)
    tickets = []
    for i in range(players):
        player = Player(
            f"p{i}",
            (("mmr", int(rng.gauss(1500, 300))),),
            latency_ms=(("eu", rng.randint(10, 150)),),
            attributes=(("language", rng.choice(["de", "fr", "en"])),),
        )
        joined = CLOSED_AT_MS - rng.randint(0, 120_000)
        ticket = Ticket(f"t{i}", "q", "eu", (player,), joined)
        tickets.append(WaitingTicket(ticket, rng.randint(0, 10)))
    return WaveSnapshot("q", "eu", "w", 1, 5, CLOSED_AT_MS, tuple(tickets))


def main(players: int) -> None:
    print(machine_line())
    snapshot = wave(players)
    for strategy in ("rebalance", "game-queue"):
        for label, rules in (("no rules", {}), ("rules", RULES)):
            profile = QueueProfile("q", strategy, ("m",), team_size=5, rules=rules)
            started = time.perf_counter()
            result = run_wave(snapshot, profile)
            strategy_ms = (time.perf_counter() - started) * 1e3
            rated = rated_snapshot(snapshot, profile.ruleset)
            started = time.perf_counter()
            problems = wave_rule_problems(rated, profile, result)
            rules_ms = (time.perf_counter() - started) * 1e3
            started = time.perf_counter()
            problems += wave_result_problems(rated, profile, result)
            common_ms = (time.perf_counter() - started) * 1e3
            print(
                f"{strategy:10s} {label:8s} players={players} strategy {strategy_ms:6.0f} ms"
                f"  rules check {rules_ms:5.1f} ms  common check {common_ms:5.1f} ms"
                f"  matches {len(result.matches)}  problems {len(problems)}"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
