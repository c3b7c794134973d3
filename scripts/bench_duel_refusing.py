"""CPU of ``optimal`` under rules refusing pairs whatever their ratings (a latency limit),
A/B across checkouts, with a hash of each tree's decisions.

    .venv/bin/python scripts/bench_duel_refusing.py --players 1000,2000 --seeds 1
    .venv/bin/python scripts/bench_duel_refusing.py --baseline /tmp/old --players 2000,5000 \\
        --distributions tied,all_equal --rounds 3

The waves are those of ``tests/oracle/test_refusing_rules_oracle.py`` (``tied``: integer
ratings N(1500, 300) in steps of 25; ``all_equal``; ``uniform`` 900-1400; ``bimodal``),
under its rules: ``max_distance`` 100 and latencies of 10-140 ms to a limit of 50 ms
growing to 120 ms. Each round runs every tree once, in turn order rotated, each in its own
process on its own ``matcher``; a process closes each wave once (``run_wave``, the
strategy as the worker runs it) after an untimed close of the smallest (imports), and
reports its CPU seconds (``time.process_time``), its pairs and a hash of its pairs.
Prints per wave each tree's median CPU over the rounds, the ratio to the baseline's and
whether the trees decided alike. Make a baseline with ``git worktree add /tmp/NAME COMMIT``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from machine import machine_line  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another tree to compare (A/B)")
    parser.add_argument("--players", default="1000,2000", metavar="N[,N...]")
    parser.add_argument("--seeds", default="1", help="a range such as 1-3")
    parser.add_argument("--distributions", default="tied,all_equal,uniform,bimodal")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--exact-limit", type=int, default=400, help="optimal_exact_limit")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    try:
        sizes = [int(text) for text in args.players.split(",")]
        # Not quality_bar.seed_range: importing it imports this checkout's matcher before
        # a child has put its own tree first on the path.
        first, _, last = args.seeds.partition("-")
        seeds = list(range(int(first), int(last or first) + 1))
    except ValueError:
        parser.error("--players takes sizes such as 1000,2000 and --seeds a range such as 1-3")
    names = args.distributions.split(",")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.child is not None:
        print(json.dumps(closes(args.child, names, sizes, seeds, args.exact_limit)))
        return 0
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    print(machine_line(), flush=True)
    runs: dict[str, list[dict[str, list[float | int | str]]]] = {name: [] for name in trees}
    for index in range(args.rounds):
        turn = list(trees.items())
        turn = turn[index % len(turn) :] + turn[: index % len(turn)]
        for name, tree in turn:
            command = [sys.executable, __file__, "--child", str(tree), "--players", args.players]
            command += ["--seeds", args.seeds, "--distributions", args.distributions]
            command += ["--exact-limit", str(args.exact_limit)]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            runs[name].append(json.loads(done.stdout))
    print("wave | " + " | ".join(f"{name} CPU s (pairs)" for name in trees) + " | ratio | same")
    for wave in runs["this"][0]:
        medians = {name: statistics.median(r[wave][0] for r in runs[name]) for name in trees}
        cells = [f"{medians[name]:.2f} ({runs[name][0][wave][1]})" for name in trees]
        ratio = same = ""
        if "baseline" in trees:
            ratio = f"x{medians['this'] / max(medians['baseline'], 1e-9):.2f}"
            same = "yes" if runs["this"][0][wave][2] == runs["baseline"][0][wave][2] else "NO"
        print(f"{wave} | " + " | ".join(cells) + f" | {ratio} | {same}", flush=True)
    return 0


def closes(
    tree: Path, names: list[str], sizes: list[int], seeds: list[int], exact_limit: int
) -> dict[str, list[float | int | str]]:
    """Per wave ``"distribution n seed"``: CPU seconds, pairs and a hash of the pairs, from
    ``tree``'s ``matcher`` (and its copy of the tests' waves and rules)."""
    sys.path[:0] = [str(tree)]
    from matcher.core import QueueProfile
    from matcher.strategies import run_wave
    from tests.oracle.test_refusing_rules_oracle import RULES, wave

    options = {"optimal_exact_limit": exact_limit}
    profile = QueueProfile("1v1", "optimal", ("m",), rules=RULES, options=options)
    run_wave(wave(names[0], min(sizes), seeds[0], False), profile)  # imports, untimed
    found: dict[str, list[float | int | str]] = {}
    for name in names:
        for n in sizes:
            for seed in seeds:
                snapshot = wave(name, n, seed, False)
                start = time.process_time()
                result = run_wave(snapshot, profile)
                spent = time.process_time() - start
                pairs = sorted(
                    tuple(seat.ticket_id for team in match.teams for seat in team.seats)
                    for match in result.matches
                )
                digest = hashlib.sha256(repr(pairs).encode()).hexdigest()[:12]
                found[f"{name} {n} {seed}"] = [spent, len(pairs), digest]
    return found


if __name__ == "__main__":
    raise SystemExit(main())
