"""Audit ``optimal`` against the exact optimum on seeded waves (docs/optimal.md's quality bar).

    .venv/bin/python scripts/audit_duel.py --players 1000,3000 --seeds 1-3
    .venv/bin/python scripts/audit_duel.py --mix worker --players 3000 --seeds 1-5
    .venv/bin/python scripts/audit_duel.py --mix tied_two_ratings --players 401,1000 --seeds 1-5
    .venv/bin/python scripts/audit_duel.py --players 10000 --seeds 1-3 \
        --reference docs/benchmarks/duel-optimum.jsonl

Per seed S the wave is ``bench_duel.wave(n, S * 100003 + n)`` (the benchmark mix) or
``tests.duel.waves.worker_benchmark_mix(n, S)`` (N(1500, 250), 35 / 35 / 30 %, SC2 = BW +
50, nobody has waited), active population 4 n; or, for a ``--mix`` named after one of
``tests/oracle/distributions.py``'s distributions, that distribution's wave as the oracle
suite draws it (``DUEL[name](n, S * 7919 + n)``, its maps, active population 2 n). The
reference is the exact optimum on every legal pair (the small tier's solver: seconds
at 1,000 players, minutes at 3,000), or, with ``--reference FILE``, the figures recorded
for that wave in FILE (JSON lines
``{"mix", "n", "seed", "reference": [pairs, mean, p99]}``; the committed file holds optima
proved against every legal pair). Per seed: ``optimal``'s pairs against the optimum's,
its mean and 99th-percentile |rating difference| against the optimum's, flagged when
under 99.5 % of the pairs, more than 1 point above the mean or 10 points above the
99th percentile; then a summary with ``optimal``'s CPU time (``time.process_time``).
Exits 1 when any seed misses the bar.
``--option KEY=VALUE`` (repeatable) sets a queue profile option of ``optimal``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from allocator_setting import add_allocator_argument, apply_allocator  # noqa: E402
from bench_duel import MAPS, wave  # noqa: E402
from machine import machine_line  # noqa: E402
from quality_bar import seed_range  # noqa: E402

from matcher.duel.model import (  # noqa: E402
    OPTIMAL_DEFAULTS,
    DuelConfig,
    DuelPair,
    DuelPlayer,
    parse_config,
)
from matcher.duel.optimal import optimal_pairs  # noqa: E402
from matcher.duel.small import exact_pairs as exact_index_pairs  # noqa: E402
from tests.duel.waves import arrays_of, worker_benchmark_mix  # noqa: E402
from tests.oracle.distributions import DUEL  # noqa: E402
from tests.oracle.distributions import MAPS as ORACLE_MAPS  # noqa: E402

PAIRS_TARGET = 0.995
MEAN_POINTS = 1.0
P99_POINTS = 10.0

Figures = tuple[int, float, float]
Recorded = dict[tuple[str, int, int], Figures]


def players_of(mix: str, n: int, seed: int) -> list[DuelPlayer]:
    if mix in DUEL:
        return DUEL[mix](n, seed * 7919 + n)
    return wave(n, seed * 100003 + n) if mix == "benchmark" else worker_benchmark_mix(n, seed)


def maps_and_population(mix: str, n: int) -> tuple[tuple[str, ...], int]:
    """The wave's maps and active population: the oracle suite's for its distributions."""
    return (ORACLE_MAPS, 2 * n) if mix in DUEL else (MAPS, 4 * n)


def optimum(mix: str, players: list[DuelPlayer], config: DuelConfig) -> list[DuelPair]:
    """The exact optimum on every legal pair (most pairs, then least summed score), on
    the arrays ``optimal`` builds for the mix's wave."""
    maps, population = maps_and_population(mix, len(players))
    arrays = arrays_of(players, population, config, maps)
    return [DuelPair(players[a], players[b]) for a, b in exact_index_pairs(arrays)]


def figures(pairs: Sequence[DuelPair]) -> Figures:
    """(pairs, mean |diff|, 99th-percentile |diff|)."""
    diffs = np.array([pair.diff for pair in pairs], dtype=np.float64)
    if not len(diffs):
        return 0, 0.0, 0.0
    return len(diffs), float(diffs.mean()), float(np.percentile(diffs, 99))


def misses(found: Figures, best: Figures) -> bool:
    return (
        found[0] < PAIRS_TARGET * best[0]
        or found[1] > best[1] + MEAN_POINTS
        or found[2] > best[2] + P99_POINTS
    )


def audit(
    mix: str,
    n: int,
    seeds: range,
    config: DuelConfig,
    recorded: Recorded,
) -> tuple[str, int]:
    """Print one line per seed; return the size's summary line and how many seeds missed
    the bar."""
    missed = 0
    worst = [1.0, 0.0, 0.0]
    times: list[float] = []
    for seed in seeds:
        players = players_of(mix, n, seed)
        maps, population = maps_and_population(mix, n)
        start = time.process_time()
        outcome = optimal_pairs(players, population, maps, config)
        times.append((time.process_time() - start) * 1000)
        best = recorded.get((mix, n, seed)) or figures(optimum(mix, players, config))
        found = figures(outcome.pairs)
        ratio = found[0] / best[0] if best[0] else 1.0
        worst = [
            min(worst[0], ratio),
            max(worst[1], found[1] - best[1]),
            max(worst[2], found[2] - best[2]),
        ]
        miss = misses(found, best)
        missed += miss
        flag = "  MISSES THE BAR" if miss else ""
        print(
            f"seed {seed}: pairs {found[0]}/{best[0]}, mean |diff| {found[1]:.2f} vs "
            f"{best[1]:.2f}, p99 {found[2]:.1f} vs {best[2]:.1f}{flag}",
            flush=True,
        )
    summary = (
        f"{mix} mix, {n} players, {len(seeds)} seeds: {missed} missing the bar; worst "
        f"pairs {100 * worst[0]:.2f} % of the optimum's, mean +{worst[1]:.2f}, p99 "
        f"+{worst[2]:.1f}; optimal median {statistics.median(times):.0f} ms, worst "
        f"{max(times):.0f} ms"
    )
    print(summary, flush=True)
    return summary, missed


def read_reference(path: Path | None) -> Recorded:
    if path is None:
        return {}
    found: Recorded = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        pairs, mean, p99 = row["reference"]
        found[(row["mix"], row["n"], row["seed"])] = (int(pairs), float(mean), float(p99))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mix", choices=("benchmark", "worker", *DUEL), default="benchmark")
    parser.add_argument("--players", default="1000", metavar="N[,N...]")
    parser.add_argument("--seeds", default="1-10")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--reference", type=Path, metavar="FILE")
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
    try:
        recorded = read_reference(args.reference)
    except (OSError, ValueError, KeyError) as error:
        parser.error(f"--reference: {error}")
    audited = [audit(args.mix, n, seed_range(args.seeds), config, recorded) for n in sizes]
    if len(audited) > 1:
        print("\n".join(["", *(summary for summary, _ in audited)]))
    # An audit that finds a miss fails, so a script or CI job can act on it.
    return 1 if any(missed for _, missed in audited) else 0


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
    raise SystemExit(main())
