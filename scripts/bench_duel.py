"""Benchmark of the duel strategies on the issue's seeded synthetic waves.

Usage: ``python scripts/bench_duel.py [--sizes 30,300,1000,3750,10000] [--exact-up-to 1000]
[--out docs/benchmarks/duel.md]``. Prints a Markdown report (and writes it with --out).

Waves: MMR ~ N(1500, 300) clipped to 0-3000; 30% bw-only, 30% sc2-only, 40% both with
sc2 = bw + N(0, 150); wait_cycles geometric (p = 0.6); active population = 4 n.
The reference is the exact optimum on every legal pair (:func:`exact_pairs`, rustworkx's
blossom, as ``optimal``'s small tier; it agrees with networkx in tests/duel/test_properties.py),
up to --exact-up-to players (it takes seconds above 1,000).
Times are medians of several runs of the pure pipeline (stages 1-6, no placement) on a
shared 2-core machine: noisy. The process keeps freed memory as a ``wavematch`` worker
does (streams/allocator.py, ADR 0072); ``--glibc-defaults`` measures without that.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from allocator_setting import add_allocator_argument, apply_allocator
from machine import machine_line

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matcher.duel.graph import DuelArrays
from matcher.duel.ladder import ladder_pairs
from matcher.duel.model import (
    LADDER_DEFAULTS,
    OPTIMAL_DEFAULTS,
    DuelConfig,
    DuelPair,
    DuelPlayer,
)
from matcher.duel.optimal import optimal_pairs
from matcher.duel.optimal import wave_arrays as optimal_arrays
from matcher.duel.small import exact_pairs as exact_index_pairs
from matcher.duel.windows import pressure, tier_window

MAPS = ("Fighting Spirit", "Circuit Breaker", "Polypoid", "Eclipse")


def wave(n: int, seed: int) -> list[DuelPlayer]:
    rng = random.Random(seed)
    players = []
    for i in range(n):
        bw = min(3000, max(0, round(rng.gauss(1500, 300))))
        sc2 = min(3000, max(0, round(bw + rng.gauss(0, 150))))
        kind = rng.random()
        wait = 0
        while rng.random() < 0.4:
            wait += 1
        vetoes = tuple(m for m in MAPS if rng.random() < 0.1)
        players.append(
            DuelPlayer(
                f"p{i}",
                bw if kind >= 0.3 else None,
                sc2 if kind < 0.3 or kind >= 0.6 else None,
                wait,
                "eu",
                vetoes,
                f"p{i}",
            )
        )
    return players


def timed(call: Callable[[], object], repeats: int) -> tuple[object, float]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - start)
    return out, statistics.median(times) * 1000


def describe(pairs: Sequence[DuelPair]) -> tuple[int, float, int, int]:
    diffs = [p.diff for p in pairs]
    mean = sum(diffs) / len(diffs) if diffs else 0.0
    return len(diffs), mean, max(diffs, default=0), sum(d * d for d in diffs)


def wave_arrays(players: list[DuelPlayer], config: DuelConfig) -> DuelArrays:
    """The arrays `optimal` builds for the wave (active population 4 n, as every run here)."""
    window = tier_window(pressure(len(players), 4 * len(players), config), config)
    return optimal_arrays(players, MAPS, window, config)


def exact_pairs(players: list[DuelPlayer], config: DuelConfig = OPTIMAL_DEFAULTS) -> list[DuelPair]:
    """The exact optimum on every legal pair (most pairs, then least summed score)."""
    arrays = wave_arrays(players, config)
    return [DuelPair(players[a], players[b]) for a, b in exact_index_pairs(arrays)]


def repeats_for(n: int) -> int:
    return 200 if n <= 30 else 20 if n <= 300 else 9 if n <= 1000 else 5


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="30,300,1000,3750,10000")
    parser.add_argument("--exact-up-to", type=int, default=1000)
    parser.add_argument("--ladder-up-to", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    add_allocator_argument(parser)
    args = parser.parse_args(argv)
    rows = [
        apply_allocator(args),
        machine_line(),
        "",
        "| n | strategy | matches | mean diff | max diff | sum diff^2 | "
        "matches / ref | sum diff^2 / ref | reference | median ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n in [int(s) for s in args.sizes.split(",")]:
        players = wave(n, args.seed * 100_003 + n)
        reps = repeats_for(n)
        results: list[tuple[str, Sequence[DuelPair], float]] = []
        if n <= args.ladder_up_to:
            out, ms = timed(partial(ladder_pairs, players, 4 * n, MAPS, LADDER_DEFAULTS), reps)
            results.append(("ladder-v2.1", out.pairs, ms))  # type: ignore[attr-defined]
        out, ms = timed(partial(optimal_pairs, players, 4 * n, MAPS, OPTIMAL_DEFAULTS), reps)
        results.append(("optimal", out.pairs, ms))  # type: ignore[attr-defined]
        ref_pairs, ref_name = results[-1][1], "none (optimal itself)"
        if n <= args.exact_up_to:
            ref_pairs, ms = timed(partial(exact_pairs, players, OPTIMAL_DEFAULTS), 1)
            results.append(("exact (rustworkx blossom, every legal pair)", ref_pairs, ms))
            ref_name = "exact"
        ref_count, _, _, ref_sq = describe(ref_pairs)
        for name, pairs, ms in results:
            count, mean, worst, sq = describe(pairs)
            rows.append(
                f"| {n} | {name} | {count} | {mean:.1f} | {worst} | {sq} | "
                f"{count / max(ref_count, 1):.4f} | {sq / max(ref_sq, 1):.3f} | {ref_name} | "
                f"{ms:.2f} |"
            )
        print(rows[-1], file=sys.stderr, flush=True)
    report = "\n".join(rows) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
