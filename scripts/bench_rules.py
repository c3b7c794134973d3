"""Cost of queue rules on a 10,000-player 5v5 team wave: strategy and live-checker times
with and without a full rules table, and how many matches each makes.

Workload: solo players, ratings ~ N(1500, 300) keyed "mmr", latency to the region
uniform in 10-150 ms, one of three languages, waits uniform in 0-120 s. Rules: rating
"mmr"; max_spread 200 + 5/s up to 800; max_team_gap 50 + 2/s up to 200; max_latency_ms
80 + 1/s up to 150; language equal, relaxed after 60 s.

    .venv/bin/python scripts/bench_rules.py [players]

Timings are wall-clock on whatever machine runs it (printed first).

``--duel-ab BASE_TREE [--rounds N] [players]``: the issue-35 floor, a 10,000-player 1v1
wave (``optimal``) closed (strategy, rules check, common check) under skill, latency,
deviation and block lists in this tree, against skill, latency and rematch in
``BASE_TREE`` (a checkout before them: ``git worktree add /tmp/NAME COMMIT``). Each round
runs both, alternating which goes first, each in its own process on its own tree's
``matcher``, the garbage collector held during each close as the worker holds it;
only the ratio of their medians is evidence on a shared machine. Workload:
ratings ~ N(1500, 300), latency uniform 10-150 ms, waits 0-120 s; every player has 3
recent meetings (rematch) or blocked 3 players (block lists) among the wave, and a
deviation uniform in 0-200.
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from matcher.checks import wave_result_problems
from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import run_wave
from scripts.machine import machine_line

RULES = {
    "rating": "mmr",
    "max_spread": {"base": 200, "growth_per_s": 5, "cap": 800},
    "max_team_gap": {"base": 50, "growth_per_s": 2, "cap": 200},
    "max_latency_ms": {"base": 80, "growth_per_s": 1, "cap": 150},
    "attributes": [{"name": "language", "relax_after_s": 60}],
}
CLOSED_AT_MS = 10_000_000


def wave(players: int) -> WaveSnapshot:
    rng = random.Random(1)
    tickets = []
    for i in range(players):
        player = Player(
            f"p{i}",
            (("mmr", int(rng.gauss(1500, 300))),),
            latency_ms=(("eu", rng.randint(10, 150)),),
            attributes=(("language", rng.choice(["de", "fr", "en"])),),
        )
        joined = CLOSED_AT_MS - rng.randint(0, 120_000)
        ticket = Ticket(f"t{i}", "q", "eu", (player,), joined)
        tickets.append(WaitingTicket(ticket, rng.randint(0, 10)))
    return WaveSnapshot("q", "eu", "w", 1, 5, CLOSED_AT_MS, tuple(tickets))


def main(players: int) -> None:
    print(machine_line())
    snapshot = wave(players)
    for strategy in ("rebalance", "game-queue"):
        for label, rules in (("no rules", {}), ("rules", RULES)):
            profile = QueueProfile("q", strategy, ("m",), team_size=5, rules=rules)
            started = time.perf_counter()
            result = run_wave(snapshot, profile)
            strategy_ms = (time.perf_counter() - started) * 1e3
            rated = rated_snapshot(snapshot, profile.ruleset)
            started = time.perf_counter()
            problems = wave_rule_problems(rated, profile, result)
            rules_ms = (time.perf_counter() - started) * 1e3
            started = time.perf_counter()
            problems += wave_result_problems(rated, profile, result)
            common_ms = (time.perf_counter() - started) * 1e3
            print(
                f"{strategy:10s} {label:8s} players={players} strategy {strategy_ms:6.0f} ms"
                f"  rules check {rules_ms:5.1f} ms  common check {common_ms:5.1f} ms"
                f"  matches {len(result.matches)}  problems {len(problems)}"
            )


#: The 1v1 rules of each side of the A/B (the base tree's: today's rules).
DUEL_RULES = {
    "base": {
        "rating": "mmr",
        "max_distance": {"base": 100, "growth_per_s": 5, "cap": 400},
        "max_latency_ms": {"base": 80, "growth_per_s": 1, "cap": 150},
        "rematch": {"last": 3, "within_s": 900},
    },
    "new": {
        "rating": "mmr",
        "max_distance": {"base": 100, "growth_per_s": 5, "cap": 400},
        "max_latency_ms": {"base": 80, "growth_per_s": 1, "cap": 150},
        "deviation": {"weight": 1, "missing": 200},
        "block_lists": True,
    },
}


def duel_wave(players: int, side: str) -> WaveSnapshot:
    rng = random.Random(1)
    ids = [f"p{i}" for i in range(players)]
    tickets = []
    meetings = []
    for i, pid in enumerate(ids):
        others = tuple(o for o in rng.sample(ids, 4) if o != pid)[:3]
        extra: dict[str, object] = {}
        if side == "new":
            extra = {"blocked": others, "deviation": rng.randint(0, 200)}
        else:
            meetings.append((pid, tuple((CLOSED_AT_MS - 60_000, (o,)) for o in others)))
        player = Player(
            pid,
            (("mmr", int(rng.gauss(1500, 300))),),
            latency_ms=(("eu", rng.randint(10, 150)),),
            **extra,  # type: ignore[arg-type]
        )
        joined = CLOSED_AT_MS - rng.randint(0, 120_000)
        tickets.append(WaitingTicket(Ticket(f"t{i}", "q", "eu", (player,), joined), 0))
    return WaveSnapshot(
        "q", "eu", "w", 1, 5, CLOSED_AT_MS, tuple(tickets), meetings=tuple(meetings)
    )


def duel_close(players: int, side: str, repeats: int) -> dict[str, float]:
    """Median ms of one whole close (strategy, rules check, common check) in this process."""
    snapshot = duel_wave(players, side)
    profile = QueueProfile("q", "optimal", ("m",), rules=DUEL_RULES[side])
    times, matches = [], 0
    for _ in range(repeats + 1):  # the first one warms the imports and caches up
        # The collector held, as the worker holds it over a wave's fold (paused_gc).
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        result = run_wave(snapshot, profile)
        rated = rated_snapshot(snapshot, profile.ruleset)
        problems = wave_rule_problems(rated, profile, result)
        problems += wave_result_problems(rated, profile, result)
        times.append((time.perf_counter() - started) * 1e3)
        gc.enable()
        matches = len(result.matches)
        assert not problems, problems[:3]
    return {"ms": statistics.median(times[1:]), "matches": matches}


def duel_ab(base: Path, players: int, rounds: int) -> None:
    print(machine_line())
    here = Path(__file__).resolve().parents[1]
    sides = {"base": base.resolve(), "new": here}
    found: dict[str, list[float]] = {"base": [], "new": []}
    matches: dict[str, float] = {}
    for round_ in range(rounds):
        order = ("base", "new") if round_ % 2 == 0 else ("new", "base")
        for side in order:
            tree = sides[side]
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--duel-one", side, str(players)],
                cwd=tree,
                env={**os.environ, "PYTHONPATH": str(tree)},
                capture_output=True,
                text=True,
                check=True,
            )
            figures = json.loads(done.stdout.splitlines()[-1])
            found[side].append(figures["ms"])
            matches[side] = figures["matches"]
            print(
                f"round {round_ + 1} {side:4s} {figures['ms']:8.0f} ms"
                f"  matches {figures['matches']}"
            )
    base_ms, new_ms = statistics.median(found["base"]), statistics.median(found["new"])
    print(
        f"median base (skill, latency, rematch) {base_ms:.0f} ms, {matches['base']:.0f} matches; "
        f"new (skill, latency, deviation, block lists) {new_ms:.0f} ms, "
        f"{matches['new']:.0f} matches; ratio new/base {new_ms / base_ms:.2f}"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--duel-one"]:
        import matcher

        assert Path(matcher.__file__).resolve().is_relative_to(Path.cwd().resolve()), (
            matcher.__file__
        )
        print(json.dumps(duel_close(int(sys.argv[3]), sys.argv[2], repeats=3)))
    elif sys.argv[1:2] == ["--duel-ab"]:
        rest = sys.argv[3:]
        rounds = int(rest[rest.index("--rounds") + 1]) if "--rounds" in rest else 5
        numbers = [a for a in rest if a.isdigit() and a != str(rounds)]
        duel_ab(Path(sys.argv[2]), int(numbers[0]) if numbers else 10_000, rounds)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
