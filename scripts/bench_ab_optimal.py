"""A/B of ``optimal`` alone on big waves whose players have waited, across checkouts.

    .venv/bin/python scripts/bench_ab_optimal.py TREE [TREE ...] [--rounds 5] [--players 10000]

``bench_ab_fold.py``'s wave close queues every player in one go, so nobody has waited;
the sit-out priority (docs/adr/0191) only weighs waits past ``optimal_sit_out_after``.
Here each tree, in its own process and in rotated order per round (only ratios within
the same rounds are evidence on a shared machine), times ``optimal_pairs`` on two seeded
waves with waits: the duel benchmark's mix (``tests/duel/waves.py``
``synthetic_players``, geometric waits) and issue 30's ``long_waits`` ladder
(``tests/oracle/distributions.py``). CPU ms, the fastest of 3 calls after one warm-up,
then the median over the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import sys, time
sys.path.insert(0, ".")
from matcher.duel.model import OPTIMAL_DEFAULTS
from matcher.duel.optimal import optimal_pairs
from tests.duel.waves import MAPS, synthetic_players
from tests.oracle.distributions import DUEL

n = int(sys.argv[1])
for players in (synthetic_players(n, seed=n), DUEL["long_waits"](n, n)):
    optimal_pairs(players, 4 * n, MAPS, OPTIMAL_DEFAULTS)
    times = []
    for _ in range(3):
        start = time.process_time()
        optimal_pairs(players, 4 * n, MAPS, OPTIMAL_DEFAULTS)
        times.append(time.process_time() - start)
    print(min(times) * 1000)
"""
WAVES = ("mix (geometric waits)", "long_waits ladder")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", type=int, default=10_000)
    args = parser.parse_args()
    found: dict[Path, list[list[float]]] = {tree: [[], []] for tree in args.trees}
    for round_ in range(args.rounds):
        shift = round_ % len(args.trees)
        for tree in args.trees[shift:] + args.trees[:shift]:
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(args.players)],
                cwd=tree,
                capture_output=True,
                text=True,
                check=True,
            )
            for figures, value in zip(found[tree], out.stdout.split(), strict=True):
                figures.append(float(value))
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    for wave, name in enumerate(WAVES):
        print(f"optimal_pairs, {args.players} players, {name}, CPU ms:")
        base = statistics.median(found[args.trees[0]][wave])
        for tree in args.trees:
            values = found[tree][wave]
            median = statistics.median(values)
            rounds = [round(v) for v in values]
            print(f"  {tree}: median {median:.1f} ({median / base:.2f}x) {rounds}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
