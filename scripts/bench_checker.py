"""CPU time of the live checker on one big duel wave: the common rules alone and the
strategy's checker (common rules, sides, windows), as the worker runs it per wave.

    .venv/bin/python scripts/bench_checker.py [--players 10000] [--seeds 1-3] [--repeat 5]
        [--mix benchmark|tied]

Per seed S the wave is ``bench_duel.wave(n, S * 100003 + n)`` (active population 4 n),
or with ``--mix tied`` issue 30's same-game ladder (tests/oracle/distributions.py
``tied``, one ``mmr`` rating per player, a queue with ``rating = "mmr"``, active
population 2 n), closed by ``optimal``; prints the median of ``--repeat`` calls
(``time.process_time``) of each checker and of the strategy itself, per seed. The
strategy's checker includes, for ``optimal``, the search for a legal pair left among the
unmatched (docs/adr/0122).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_duel import wave  # noqa: E402
from machine import machine_line  # noqa: E402
from quality_bar import seed_range  # noqa: E402

from matcher.checks import wave_result_problems  # noqa: E402
from matcher.core import Player, WaveSnapshot  # noqa: E402
from matcher.strategies import result_problems, run_wave  # noqa: E402
from tests.duel.waves import profile_of, snapshot_of  # noqa: E402
from tests.oracle.distributions import tied  # noqa: E402


def median_ms(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def wave_snapshot(mix: str, n: int, seed: int) -> WaveSnapshot:
    if mix == "benchmark":
        return snapshot_of(wave(n, seed * 100003 + n), seed=seed, active_population=4 * n)
    ladder = snapshot_of(tied(n, seed * 100003 + n), seed=seed, active_population=2 * n)
    # One "mmr" rating per player: the queue's rules.rating makes it either side.
    tickets = tuple(
        replace(w, ticket=replace(w.ticket, players=tuple(_mmr(p) for p in w.ticket.players)))
        for w in ladder.tickets
    )
    return replace(ladder, tickets=tickets)


def _mmr(player: Player) -> Player:
    return replace(player, ratings=(("mmr", player.ratings[0][1]),))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--seeds", default="1-3")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mix", choices=("benchmark", "tied"), default="benchmark")
    args = parser.parse_args()
    if args.players < 2 or args.repeat < 1:
        parser.error("--players must be >= 2 and --repeat >= 1")
    print(machine_line())
    print("| seed | players | matches | strategy ms | common rules ms | strategy's checker ms |")
    print("|---|---|---|---|---|---|")
    profile = profile_of("optimal", window_rule="longer")
    if args.mix == "tied":
        profile = replace(profile, rules={"rating": "mmr"})
    for seed in seed_range(args.seeds):
        n = args.players
        snapshot = wave_snapshot(args.mix, n, seed)
        result = run_wave(snapshot, profile)
        assert not result_problems(snapshot, profile, result)
        cells = [
            median_ms(partial(run_wave, snapshot, profile), args.repeat),
            median_ms(partial(wave_result_problems, snapshot, profile, result), args.repeat),
            median_ms(partial(result_problems, snapshot, profile, result), args.repeat),
        ]
        figures = " | ".join(f"{value:.1f}" for value in cells)
        print(f"| {seed} | {n} | {len(result.matches)} | {figures} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
