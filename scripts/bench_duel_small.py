"""CPU time of both duel strategies at 30 players, per benchmark seed (issue 2's 1 ms / 0.1 ms).

    .venv/bin/python scripts/bench_duel_small.py [--seeds 1-10] [--tree TREE]
    .venv/bin/python scripts/bench_duel_small.py --spread --players 100 --seeds 1-100

Per seed S the wave is ``bench_duel.wave(30, S * 100003 + 30)`` (active population 120).
Prints, per seed, milliseconds per call (``time.process_time``): the fastest and the
median of 5 rounds of 50 calls of ``optimal_pairs`` and ``ladder_pairs`` (stages 1-6, as
bench_duel) and of the whole strategies (``optimal_strategy`` / ``ladder_strategy``:
snapshot in, result with placement out). ``--tree`` times another checkout (a copy from
before a change); run both alternately on a shared machine.

``--spread`` times only ``optimal_pairs`` on waves of ``--players`` players (active
population 4 n), the fastest of 3 rounds of 10 calls per seed, and prints the median,
90th percentile and worst over the seeds, and the seeds above 1 ms.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--seeds", default="1-10")
parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
parser.add_argument("--spread", action="store_true")
parser.add_argument("--players", type=int, default=30)
args = parser.parse_args()
sys.path[:0] = [str(args.tree), str(args.tree / "scripts")]

from bench_duel import MAPS, wave  # noqa: E402
from machine import machine_line  # noqa: E402
from quality_bar import seed_range  # noqa: E402

from matcher.core import QueueProfile, WaveSnapshot  # noqa: E402
from matcher.duel.ladder import ladder_pairs  # noqa: E402
from matcher.duel.model import LADDER_DEFAULTS, OPTIMAL_DEFAULTS  # noqa: E402
from matcher.duel.optimal import optimal_pairs  # noqa: E402
from matcher.duel.strategies import ladder_strategy, optimal_strategy  # noqa: E402
from tests.duel.waves import snapshot_of  # noqa: E402


def per_call_ms(call: Callable[[], object], rounds: int, calls: int) -> list[float]:
    """Milliseconds per call in each of ``rounds`` rounds of ``calls`` calls."""
    per_call = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            call()
        per_call.append((time.process_time() - start) / calls * 1000)
    return per_call


def timed(call: Callable[[], object], rounds: int = 5, calls: int = 50) -> str:
    per_call = per_call_ms(call, rounds, calls)
    return f"{min(per_call):.3f} / {statistics.median(per_call):.3f}"


def each_wave_anew(
    strategy: Callable[[WaveSnapshot, QueueProfile], object],
    snapshot: WaveSnapshot,
    profile: QueueProfile,
) -> Callable[[], object]:
    """A call of ``strategy`` on a snapshot other than the last call's (two equal copies
    in turn): a worker hands every wave a new one, so what a close derives once a wave
    (matcher/wave_memo.py) is timed as a worker pays it, not as a repeat's."""
    copies = itertools.cycle((snapshot, dataclasses.replace(snapshot)))
    return lambda: strategy(next(copies), profile)


def spread(seeds: range) -> None:
    n = args.players
    times = {}
    for seed in seeds:
        players = wave(n, seed * 100003 + n)
        call = partial(optimal_pairs, players, 4 * n, MAPS, OPTIMAL_DEFAULTS)
        times[seed] = min(per_call_ms(call, rounds=3, calls=10))
    ranked = sorted(times.values())
    ninetieth = ranked[min(len(ranked) - 1, int(0.9 * len(ranked)))]
    slow = [f"{seed} ({ms:.2f})" for seed, ms in times.items() if ms > 1.0]
    print(
        f"{n} players, {len(ranked)} seeds: median {statistics.median(ranked):.3f} ms, "
        f"90th percentile {ninetieth:.3f} ms, worst {ranked[-1]:.2f} ms; "
        f"over 1 ms: {len(slow)} {', '.join(slow)}"
    )


def main() -> None:
    print(machine_line(), flush=True)
    if args.spread:
        spread(seed_range(args.seeds))
        return
    print("| seed | optimal_pairs | optimal_strategy | ladder_pairs | ladder_strategy |")
    print("|---|---|---|---|---|")
    best = QueueProfile("1v1", "optimal", MAPS)
    ladder = QueueProfile("1v1", "ladder-v2.1", MAPS)
    for seed in seed_range(args.seeds):
        players = wave(30, seed * 100003 + 30)
        snapshot = snapshot_of(players, seed=seed, active_population=120)
        cells = [
            timed(partial(optimal_pairs, players, 120, MAPS, OPTIMAL_DEFAULTS)),
            timed(each_wave_anew(optimal_strategy, snapshot, best)),
            timed(partial(ladder_pairs, players, 120, MAPS, LADDER_DEFAULTS)),
            timed(each_wave_anew(ladder_strategy, snapshot, ladder)),
        ]
        print(f"| {seed} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
