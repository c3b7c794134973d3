"""Cost of queue rules on a 10,000-player 5v5 team wave: strategy and live-checker times
with no rules, today's rules and the full rule set (compound, collection and numeric rules
and a soft sort), and how many matches each makes.

Workload: solo players, ratings ~ N(1500, 300) keyed "mmr", latency to the region
uniform in 10-150 ms, one of three languages, a class (tank, healer, sniper or damage),
a level uniform in 1-60, waits uniform in 0-120 s. Today's rules: rating "mmr";
max_spread 200 + 5/s up to 800; max_team_gap 50 + 2/s up to 200; max_latency_ms 80 + 1/s
up to 150; language equal, relaxed after 60 s. The full set adds (FULL_CHECKS): latency
at most 60 ms or one language (optional after 90 s); at most two snipers and at least one
healer per team; the levels of a match within 20 (optional after 60 s); and a soft sort
on the level.

    .venv/bin/python scripts/bench_rules.py [players]
    .venv/bin/python scripts/bench_rules.py --ab BASE_TREE [--rounds 5] [--players 10000]

``--ab`` runs, in rotated order each round, one process per variant: BASE_TREE (an older
checkout, ``git worktree add /tmp/NAME COMMIT``) under today's rules, this tree under
today's rules, and this tree under the full set; each process closes the wave once
untimed (imports) and takes the lower CPU time of two more closes; it prints each
variant's median over the rounds and its ratio to the base tree's. Only those ratios are
evidence on a shared machine. The machine is printed first.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
RULES: dict[str, Any] = {
    "rating": "mmr",
    "max_spread": {"base": 200, "growth_per_s": 5, "cap": 800},
    "max_team_gap": {"base": 50, "growth_per_s": 2, "cap": 200},
    "max_latency_ms": {"base": 80, "growth_per_s": 1, "cap": 150},
    "attributes": [{"name": "language", "relax_after_s": 60}],
}
FULL_CHECKS: list[dict[str, Any]] = [
    {
        "name": "near-or-same-language",
        "kind": "any",
        "optional_after_s": 90,
        "rules": [{"kind": "latency", "max_ms": 60}, {"kind": "equal", "attribute": "language"}],
    },
    {
        "name": "snipers",
        "kind": "count",
        "attribute": "class",
        "value": "sniper",
        "max": 2,
        "per": "team",
    },
    {
        "name": "healer",
        "kind": "count",
        "attribute": "class",
        "value": "healer",
        "min": 1,
        "per": "team",
    },
    {
        "name": "level",
        "kind": "number",
        "attribute": "level",
        "max_spread": 20,
        "optional_after_s": 60,
    },
]
FULL = {**RULES, "checks": FULL_CHECKS, "sort": [{"number": "level", "weight": 5}]}
VARIANTS = {"none": {}, "today": RULES, "full": FULL}
CLOSED_AT_MS = 10_000_000
STRATEGIES = ("rebalance", "game-queue")


def wave(players: int, numbers: bool) -> Any:
    """The wave; ``numbers`` False for a tree whose players carry no numeric attributes
    (the same players otherwise, so the two trees close the same wave)."""
    from matcher.core import Player, Ticket, WaitingTicket, WaveSnapshot

    rng = random.Random(1)
    tickets = []
    for i in range(players):
        rating, latency = int(rng.gauss(1500, 300)), rng.randint(10, 150)
        language = rng.choice(["de", "fr", "en"])
        cls = rng.choice(["tank", "healer", "sniper", "damage", "damage"])
        drawn = float(rng.randint(1, 60))  # drawn on both trees: the same wave follows
        level = {"numbers": (("level", drawn),)} if numbers else {}
        player = Player(
            f"p{i}",
            (("mmr", rating),),
            latency_ms=(("eu", latency),),
            attributes=(("class", cls), ("language", language)),
            **level,
        )
        joined = CLOSED_AT_MS - rng.randint(0, 120_000)
        tickets.append(
            WaitingTicket(Ticket(f"t{i}", "q", "eu", (player,), joined), rng.randint(0, 10))
        )
    return WaveSnapshot("q", "eu", "w", 1, 5, CLOSED_AT_MS, tuple(tickets))


def timed(strategy: str, variant: str, players: int, numbers: bool) -> dict[str, float]:
    from matcher.checks import wave_result_problems
    from matcher.core import QueueProfile
    from matcher.rules.check import rated_snapshot, wave_rule_problems
    from matcher.strategies import run_wave

    snapshot = wave(players, numbers)
    profile = QueueProfile("q", strategy, ("m",), team_size=5, rules=VARIANTS[variant])
    result = run_wave(snapshot, profile)  # untimed: the strategy's imports happen here
    cpu = []
    for _ in range(2):
        started = time.process_time()
        result = run_wave(snapshot, profile)
        cpu.append((time.process_time() - started) * 1e3)
    strategy_ms = min(cpu)
    rated = rated_snapshot(snapshot, profile.ruleset)
    started = time.perf_counter()
    problems = wave_rule_problems(rated, profile, result)
    rules_ms = (time.perf_counter() - started) * 1e3
    problems += wave_result_problems(rated, profile, result)
    return {
        "strategy_ms": strategy_ms,
        "rules_check_ms": rules_ms,
        "matches": len(result.matches),
        "problems": len(problems),
    }


def main(players: int) -> None:
    from scripts.machine import machine_line

    print(machine_line())
    for strategy in STRATEGIES:
        for variant in VARIANTS:
            got = timed(strategy, variant, players, numbers=True)
            print(
                f"{strategy:10s} {variant:5s} players={players} strategy "
                f"{got['strategy_ms']:6.0f} ms  rules check {got['rules_check_ms']:5.1f} ms"
                f"  matches {got['matches']:.0f}  problems {got['problems']:.0f}"
            )


def child(tree: str, strategy: str, variant: str, players: int) -> None:
    sys.path.insert(0, tree)
    numbers = "numbers" in Path(tree, "matcher", "core.py").read_text()
    print(json.dumps(timed(strategy, variant, players, numbers)))


def ab(base: str, rounds: int, players: int) -> None:
    sys.path.insert(0, str(HERE))
    from scripts.machine import machine_line

    print(machine_line())
    runs = [
        (base, "today", "base today"),
        (str(HERE), "today", "this today"),
        (str(HERE), "full", "this full"),
    ]
    for strategy in STRATEGIES:
        times: dict[str, list[float]] = {label: [] for _, _, label in runs}
        matches: dict[str, float] = {}
        for round_number in range(rounds):
            shift = round_number % len(runs)
            for tree, variant, label in runs[shift:] + runs[:shift]:
                command = [
                    sys.executable,
                    __file__,
                    "--child",
                    tree,
                    strategy,
                    variant,
                    str(players),
                ]
                out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=tree)
                got = json.loads(out.stdout.strip().splitlines()[-1])
                assert got["problems"] == 0, (label, got)
                times[label].append(got["strategy_ms"])
                matches[label] = got["matches"]
        reference = statistics.median(times["base today"])
        for _, _, label in runs:
            median = statistics.median(times[label])
            print(
                f"{strategy:10s} {label:10s} players={players} rounds={rounds} strategy median "
                f"{median:6.0f} ms CPU  x{median / reference:.2f} of base today  "
                f"matches {matches[label]:.0f}"
            )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--ab":
        parser = argparse.ArgumentParser()
        parser.add_argument("--ab", required=True)
        parser.add_argument("--rounds", type=int, default=5)
        parser.add_argument("--players", type=int, default=10_000)
        args = parser.parse_args()
        ab(args.ab, args.rounds, args.players)
    else:
        sys.path.insert(0, str(HERE))
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
