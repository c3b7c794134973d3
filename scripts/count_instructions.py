"""Instructions per call of a duel strategy, counted by callgrind: a figure no machine changes.

    .venv/bin/python scripts/count_instructions.py --players 10000 --seeds 1-10
    .venv/bin/python scripts/count_instructions.py --strategy ladder-v2.1 --players 30 --calls 100

Milliseconds move with the machine and, on a shared one, from minute to minute
(scripts/machine.py); the user-space instructions of a call do not (two counts of the
same 10,000-player wave differed by 0.05 %), so they compare two revisions on any
machine. Per seed the wave is ``audit_duel.players_of`` of the benchmark mix, active
population 4 n, as in ``bench_duel.py`` and ``audit_duel.py``; the process keeps freed
memory as a worker does (ADR 0072). Each seed runs in its own process under
``valgrind --tool=callgrind``, which counts only inside ``functools.reduce``: the
script calls the strategy once to warm up, then ``--calls`` times inside it.
Valgrind runs the code about 50 times slower: a 10,000-player wave takes a minute or two.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from audit_duel import players_of  # noqa: E402
from bench_duel import MAPS  # noqa: E402
from callgrind import counted_run  # noqa: E402
from quality_bar import seed_range  # noqa: E402

from matcher.duel.ladder import ladder_pairs  # noqa: E402
from matcher.duel.model import LADDER_DEFAULTS, OPTIMAL_DEFAULTS  # noqa: E402
from matcher.duel.optimal import optimal_pairs  # noqa: E402
from streams.allocator import keep_freed_memory  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", choices=("optimal", "ladder-v2.1"), default="optimal")
    parser.add_argument("--players", type=int, default=10000)
    parser.add_argument("--seeds", default="1-10")
    parser.add_argument("--calls", type=int, default=1)
    parser.add_argument("--child-seed", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_seed is not None:
        _run_counted(args.strategy, args.players, args.child_seed, args.calls)
        return 0
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        parser.error("valgrind is not installed (Debian: apt-get install valgrind)")
    print(f"{args.strategy}, {args.players} players: instructions per call (callgrind)")
    for seed in seed_range(args.seeds):
        count = _count(valgrind, args, seed)
        print(f"seed {seed}: {count / args.calls:,.0f}", flush=True)
    return 0


def _count(valgrind: str, args: argparse.Namespace, seed: int) -> int:
    count, _ = counted_run(
        valgrind,
        [
            __file__,
            f"--strategy={args.strategy}",
            f"--players={args.players}",
            f"--calls={args.calls}",
            f"--child-seed={seed}",
        ],
        f"count_instructions.py: seed {seed}",
    )
    return count


def _run_counted(strategy: str, n: int, seed: int, calls: int) -> None:
    keep_freed_memory()
    players = players_of("benchmark", n, seed)
    call: Callable[[], object]
    if strategy == "optimal":
        call = functools.partial(optimal_pairs, players, 4 * n, MAPS, OPTIMAL_DEFAULTS)
    else:
        call = functools.partial(ladder_pairs, players, 4 * n, MAPS, LADDER_DEFAULTS)
    call()

    def counted(done: int, _: int) -> int:
        call()
        return done

    functools.reduce(counted, range(calls), 0)


if __name__ == "__main__":
    sys.exit(main())
