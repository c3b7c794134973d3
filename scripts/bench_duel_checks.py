"""A/B of ``optimal`` under a queue's named ``checks`` (ADR 0194) and soft ``sort`` (ADR 0195)
on a 10,000-player 1v1 wave.

    .venv/bin/python scripts/bench_duel_checks.py BASE_TREE [--rounds 5] [--players 10000]

Variants, each in its own process on its own tree's ``matcher``, in rotated order per
round: ``base`` (BASE_TREE, a checkout before checks were honoured) and ``today`` (this
tree) under today's 1v1 rules (rating, max_distance, max_latency_ms, a language attribute
rule relaxed after 60 s): a queue without checks must cost nothing more; ``checks`` (this
tree) adds three named checks: latency at most 60 ms or one language (optional after
90 s), at most one sniper per match, levels within 20 (optional after 60 s); ``sort``
(this tree) adds instead a soft sort on the level, weight 5. Each process
closes the wave once untimed, then takes the median of three closes of the strategy alone
(``run_wave``), the collector held as the worker holds it. Only the ratios of the medians
over the rounds are evidence on a shared machine. Workload: ratings ~ N(1500, 300),
latency uniform 10-150 ms, one of three languages, a class, a level uniform 1-60, waits
0-120 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
CLOSED_AT_MS = 10_000_000
TODAY: dict[str, Any] = {
    "rating": "mmr",
    "max_distance": {"base": 100, "growth_per_s": 5, "cap": 400},
    "max_latency_ms": {"base": 80, "growth_per_s": 1, "cap": 150},
    "attributes": [{"name": "language", "relax_after_s": 60}],
}
CHECKS: list[dict[str, Any]] = [
    {
        "name": "near-or-same-language",
        "kind": "any",
        "optional_after_s": 90,
        "rules": [{"kind": "latency", "max_ms": 60}, {"kind": "equal", "attribute": "language"}],
    },
    {"name": "snipers", "kind": "count", "attribute": "class", "value": "sniper", "max": 1},
    {
        "name": "level",
        "kind": "number",
        "attribute": "level",
        "max_spread": 20,
        "optional_after_s": 60,
    },
]
RULES = {
    "base": TODAY,
    "today": TODAY,
    "checks": {**TODAY, "checks": CHECKS},
    "sort": {**TODAY, "sort": [{"number": "level", "weight": 5}]},
}


def wave(players: int) -> Any:
    from matcher.core import Player, Ticket, WaitingTicket, WaveSnapshot

    rng = random.Random(1)
    # A base tree from before numeric attributes (8456cde) gets the same players without
    # their level, which its rules do not read.
    numbers = "numbers" in Player.__dataclass_fields__
    tickets = []
    for i in range(players):
        rating, latency = int(rng.gauss(1500, 300)), rng.randint(10, 150)
        attributes = (
            ("class", rng.choice(["tank", "healer", "sniper", "damage", "damage"])),
            ("language", rng.choice(["de", "fr", "en"])),
        )
        drawn = float(rng.randint(1, 60))  # drawn on both trees: the same wave follows
        level = {"numbers": (("level", drawn),)} if numbers else {}
        player = Player(
            f"p{i}",
            (("mmr", rating),),
            latency_ms=(("eu", latency),),
            attributes=attributes,
            **level,
        )
        joined = CLOSED_AT_MS - rng.randint(0, 120_000)
        tickets.append(
            WaitingTicket(Ticket(f"t{i}", "q", "eu", (player,), joined), rng.randint(0, 10))
        )
    return WaveSnapshot("q", "eu", "w", 1, 5, CLOSED_AT_MS, tuple(tickets))


def close(variant: str, players: int) -> dict[str, float]:
    from matcher.core import QueueProfile
    from matcher.strategies import run_wave

    snapshot = wave(players)
    profile = QueueProfile("q", "optimal", ("m",), rules=RULES[variant])
    times, matches = [], 0
    for _ in range(4):  # the first one warms the imports and caches up
        gc.collect()
        gc.disable()
        started = time.process_time()
        # A new snapshot each close, as a worker's waves: none of the last close's
        # answers (matcher/wave_memo.py) is reused.
        result = run_wave(dataclasses.replace(snapshot), profile)
        times.append((time.process_time() - started) * 1e3)
        gc.enable()
        matches = len(result.matches)
    return {"ms": statistics.median(times[1:]), "matches": matches}


def main(base: Path, players: int, rounds: int) -> None:
    sys.path.insert(0, str(HERE))
    from scripts.machine import machine_line

    print(machine_line())
    trees = {"base": base.resolve(), "today": HERE, "checks": HERE, "sort": HERE}
    found: dict[str, list[float]] = {name: [] for name in trees}
    matches: dict[str, float] = {}
    names = list(trees)
    for round_ in range(rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            tree = trees[name]
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--one", name, str(players)],
                cwd=tree,
                env={**os.environ, "PYTHONPATH": str(tree)},
                capture_output=True,
                text=True,
                check=True,
            )
            figures = json.loads(done.stdout.splitlines()[-1])
            found[name].append(figures["ms"])
            matches[name] = figures["matches"]
            print(f"round {round_ + 1} {name:6s} {figures['ms']:8.1f} ms  {figures['matches']:.0f}")
    base_ms = statistics.median(found["base"])
    for name in names:
        ms = statistics.median(found[name])
        print(
            f"{name:6s} median {ms:7.1f} ms  matches {matches[name]:.0f}  "
            f"ratio to base {ms / base_ms:.3f}"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        # The code under test is the tree the process runs in, not an installed copy.
        sys.path.insert(0, os.getcwd())
        print(json.dumps(close(sys.argv[2], int(sys.argv[3]))))
    else:
        parser = argparse.ArgumentParser()
        parser.add_argument("base")
        parser.add_argument("--rounds", type=int, default=5)
        parser.add_argument("--players", type=int, default=10_000)
        arguments = parser.parse_args()
        main(Path(arguments.base), arguments.players, arguments.rounds)
