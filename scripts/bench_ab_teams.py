"""A/B of a 10,000-ticket 5v5 team wave across checkouts, in interleaved rounds.

    .venv/bin/python scripts/bench_ab_teams.py TREE [TREE ...] [--rounds 5] [--tickets 10000]

Each round runs every tree once, in a rotated order, each in its own process (its own
``matcher``), so that all trees see the same load on a shared machine; only the ratios
between trees in the same rounds are evidence. Per tree and round: the CPU of one
``run_wave`` of ``bench_teams.py``'s workload (80% solos, 20% parties of 2-3, ratings
N(1500, 300)) under ``rebalance`` (auto) and ``game-queue`` (offline), both without and
with a full rule set (max_spread, max_team_gap, max_latency_ms are not in the workload,
so: spread and gap). A tree whose settings know ``team_steps`` is also timed with
``team_steps = [{after_s = 30, team_size = 4}]`` on the same wave (every ticket has
waited 60 s), the cost a queue pays for the steps it uses.

Prints each figure's median over the rounds, and its ratio to the first tree's.
Make a tree of an older commit with ``git worktree add /tmp/NAME COMMIT``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
RULES = {"max_spread": {"base": 400, "growth_per_s": 10, "cap": 1200}, "max_team_gap": 100}
VARIANTS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("rebalance", "rebalance", {}),
    ("rebalance + rules", "rebalance", RULES),
    ("game-queue offline", "game-queue", {}),
    ("game-queue offline + rules", "game-queue", RULES),
)
STEPS = ({"after_s": 30, "team_size": 4},)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tickets", type=int, default=10_000)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.tickets)))
        return 0
    sys.path.insert(0, str(HERE.parent))
    from machine import machine_line

    print(machine_line())
    trees = [tree.resolve() for tree in args.trees] or [HERE.parents[1]]
    figures: dict[Path, dict[str, list[float]]] = {tree: {} for tree in trees}
    for number in range(args.rounds):
        turn = trees[number % len(trees) :] + trees[: number % len(trees)]
        for tree in turn:
            command = [sys.executable, str(HERE), "--child", str(tree)]
            command += ["--tickets", str(args.tickets)]
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            for name, value in json.loads(out).items():
                figures[tree].setdefault(name, []).append(value)
        print(f"round {number + 1}/{args.rounds} done", file=sys.stderr)
    first = trees[0]
    for name in figures[trees[-1]]:
        print(f"\n{name} (CPU ms, median of {args.rounds})")
        base = statistics.median(figures[first][name]) if name in figures[first] else None
        for tree in trees:
            if name not in figures[tree]:
                continue
            value = statistics.median(figures[tree][name])
            ratio = f" ({value / base:.3f}x)" if base else ""
            print(f"  {tree}: {value:.0f}{ratio}")
    return 0


def child(tree: Path, tickets: int) -> dict[str, float]:
    """One round of one tree: its packages first on the path."""
    sys.path.insert(0, str(tree))
    teams = _load("bench_teams", HERE.with_name("bench_teams.py"))
    from dataclasses import replace

    import matcher.core as core
    from matcher.strategies import run_wave

    wave = teams.workload(tickets, 0)
    # Every ticket waited 60 s at the close: a rule limit or a step in force is exercised.
    wave = replace(
        wave,
        closed_at_ms=60_000,
        tickets=tuple(replace(w, ticket=replace(w.ticket, joined_at_ms=0)) for w in wave.tickets),
    )
    stepped = hasattr(core.QueueProfile, "__dataclass_fields__") and (
        "team_steps" in core.QueueProfile.__dataclass_fields__
    )
    found: dict[str, float] = {}
    # Every tree times the same variants in the same order first; the steps come after,
    # so that they leave the compared figures' heap and caches alone.
    for label, strategy, rules in VARIANTS:
        profile = core.QueueProfile("q", strategy, ("m",), team_size=5, rules=rules)
        found[label] = _cpu_ms(run_wave, wave, profile)
    for label, strategy, rules in VARIANTS if stepped else ():
        from matcher.teams.step_config import parse_team_steps

        steps = parse_team_steps(list(STEPS), 2, 5)
        profile = core.QueueProfile("q", strategy, ("m",), team_size=5, rules=rules)
        with_steps = replace(profile, team_steps=steps)
        found[f"{label} with a team step"] = _cpu_ms(run_wave, wave, with_steps)
    return found


def _cpu_ms(run: Any, wave: Any, profile: Any) -> float:
    """The faster of two runs: the first also pays for imports and warm caches."""
    best = float("inf")
    for _ in range(2):
        gc.collect()
        start = time.process_time()
        # A new snapshot each run, as a worker's waves (matcher/wave_memo.py).
        run(dataclasses.replace(wave), profile)
        best = min(best, time.process_time() - start)
    return best * 1e3


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    raise SystemExit(main())
