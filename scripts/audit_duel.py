"""Audit ``optimal`` against the proved optimum over many seeds (issue 2's quality targets).

    .venv/bin/python scripts/audit_duel.py --mix benchmark --players 1000 --seeds 1-30
    .venv/bin/python scripts/audit_duel.py --mix worker --players 3000 --seeds 1-5
    .venv/bin/python scripts/audit_duel.py --players 3750 --seeds 1-3 \
        --option optimal_warm_limit=5000     # the thorough setting (ADR 0068)
    .venv/bin/python scripts/audit_duel.py --players 1500,2000,2500,3000,3750,4000,5000

Per seed S the wave is ``bench_duel.wave(n, S * 100003 + n)`` (the issue's benchmark mix)
or ``tests.duel.waves.worker_benchmark_mix(n, S)`` (the mix of ``bench_wave_close.py``:
N(1500, 250), 35 / 35 / 30 %, SC2 = BW + 50, nobody has waited); active population 4 n.
The reference is the warm blossom with its duals checked against every legal pair
(``bench_duel.proved_pairs``, up to 8 rounds); a wave it cannot prove is skipped and
named. Per seed: ``optimal``'s pairs and summed squared diff against the reference's,
flagged when under 99.5 % of its pairs or over 1.02x its squared diff; then a summary
with ``optimal``'s CPU time (one call per seed, ``time.process_time``). The reference
takes seconds per wave above 2,000 players. The process keeps freed memory as a worker
does (ADR 0072) unless ``--glibc-defaults``. ``--option KEY=VALUE`` (repeatable) sets a
queue profile option of ``optimal``, checked as a profile's are. ``--players`` takes a
comma-separated list; the run ends with one summary line per size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from allocator_setting import add_allocator_argument, apply_allocator  # noqa: E402
from bench_duel import MAPS, proved_pairs, seed_range, wave  # noqa: E402
from deep_stack import run_with_deep_stack  # noqa: E402
from machine import machine_line  # noqa: E402

from matcher.duel.model import OPTIMAL_DEFAULTS, DuelConfig, DuelPlayer, parse_config  # noqa: E402
from matcher.duel.optimal import optimal_pairs  # noqa: E402
from tests.duel.waves import worker_benchmark_mix  # noqa: E402

PAIRS_TARGET = 0.995
SQUARED_TARGET = 1.02


def players_of(mix: str, n: int, seed: int) -> list[DuelPlayer]:
    return wave(n, seed * 100003 + n) if mix == "benchmark" else worker_benchmark_mix(n, seed)


def audit(mix: str, n: int, seeds: range, config: DuelConfig = OPTIMAL_DEFAULTS) -> str:
    """Print one line per seed; return the size's summary line."""
    short = missed = 0
    worst = 0.0
    times: list[float] = []
    for seed in seeds:
        players = players_of(mix, n, seed)
        start = time.process_time()
        outcome = optimal_pairs(players, 4 * n, MAPS, config)
        times.append((time.process_time() - start) * 1000)
        reference = proved_pairs(players)
        if reference is None:
            print(f"seed {seed}: the reference did not prove an optimum; skipped", flush=True)
            continue
        pairs, best = len(outcome.pairs), len(reference)
        squared = sum(p.diff**2 for p in outcome.pairs)
        best_squared = sum(p.diff**2 for p in reference)
        ratio = squared / best_squared if best_squared else 1.0
        short += pairs < best
        worst = max(worst, ratio)
        miss = pairs < PAIRS_TARGET * best or ratio > SQUARED_TARGET
        missed += miss
        flag = "  MISSES A TARGET" if miss else ""
        print(f"seed {seed}: pairs {pairs}/{best}, squared diff {ratio:.3f}x{flag}", flush=True)
    summary = (
        f"{mix} mix, {n} players, {len(seeds)} seeds: {short} short of the optimum's pairs, "
        f"{missed} missing a target (largest squared diff {worst:.3f}x); optimal median "
        f"{statistics.median(times):.0f} ms, worst {max(times):.0f} ms"
    )
    print(summary, flush=True)
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mix", choices=("benchmark", "worker"), default="benchmark")
    parser.add_argument("--players", default="1000", metavar="N[,N...]")
    parser.add_argument("--seeds", default="1-10")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    add_allocator_argument(parser)
    args = parser.parse_args()
    print(apply_allocator(args), machine_line(), sep="\n", flush=True)
    try:
        config = parse_config(dict(_option(text) for text in args.option), OPTIMAL_DEFAULTS)
    except ValueError as error:
        parser.error(str(error))
    try:
        sizes = [int(text) for text in args.players.split(",")]
    except ValueError:
        parser.error(f"--players: {args.players!r} is not a comma-separated list of sizes")
    summaries = [audit(args.mix, n, seed_range(args.seeds), config) for n in sizes]
    if len(summaries) > 1:
        print("\n".join(["", *summaries]))
    return 0


def _option(text: str) -> tuple[str, object]:
    key, _, value = text.partition("=")
    try:
        return key, int(value)
    except ValueError:
        try:
            return key, float(value)
        except ValueError:
            return key, value


if __name__ == "__main__":
    run_with_deep_stack(main)
