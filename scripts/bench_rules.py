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
        [--before TREE] [--instructions]

``--ab`` runs, in rotated order each round, one process per variant: BASE_TREE (an older
checkout, ``git worktree add /tmp/NAME COMMIT``) under today's rules, this tree under
today's rules, and this tree under the full set (and ``--before TREE`` under both: the
same rules on a tree before a change); each process closes the wave once
untimed (imports) and takes the lower CPU time of two more closes, the garbage collector
held during each as the worker holds it over a wave's fold; it prints each
variant's median over the rounds, its ratio to the base tree's and a hash of its
decisions (the same hash: the same matches and unmatched tickets), then the full set's
ratio to this tree's today (issue 35's floor). Only those ratios are evidence on a
shared machine. The machine is printed first.

``--ab BASE_TREE --instructions``: the same variants counted instead of timed, each once
under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``: the user-space
instructions of one close after an untimed one, the collector held (callgrind counts only inside
``functools.reduce``, as scripts/count_instructions.py does). A count does not move with
the machine's load (two counts of one close differ by under 0.1 %), so it tells a change
of a few per cent that the timed rounds of a shared machine cannot; valgrind runs the
close about 50 times slower (a minute a variant).

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

import argparse
import contextlib
import dataclasses
import functools
import gc
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
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
        with collector_held():
            started = time.process_time()
            # A new snapshot each close, as a worker's waves: none of the last close's
            # answers (matcher/wave_memo.py) is reused.
            result = run_wave(dataclasses.replace(snapshot), profile)
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
        "decisions": decisions_digest(result),
    }


@contextlib.contextmanager
def collector_held() -> Iterator[None]:
    """The cyclic garbage collector collected, then held, as the worker holds it over a
    wave's fold (``streams.worker.folding.paused_gc``): a close is measured as it runs
    there, not with the collections of a process that never pauses it."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def decisions_digest(result: Any) -> str:
    """A short hash of a close's decisions: every match's teams of (ticket, rating) seats
    in order, and the unmatched tickets; two trees that decide alike print the same."""
    seats = [
        [[(seat.ticket_id, seat.rating) for seat in team.seats] for team in match.teams]
        for match in result.matches
    ]
    text = repr((seats, sorted(result.unmatched)))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


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


def counted(tree: str, strategy: str, variant: str, players: int) -> None:
    """One close inside ``functools.reduce``, the only code callgrind counts, after an
    uncounted one (imports, caches); prints the decisions' hash."""
    sys.path.insert(0, tree)
    from matcher.core import QueueProfile
    from matcher.strategies import run_wave

    numbers = "numbers" in Path(tree, "matcher", "core.py").read_text()
    snapshot = wave(players, numbers)
    profile = QueueProfile("q", strategy, ("m",), team_size=5, rules=VARIANTS[variant])
    run_wave(snapshot, profile)
    wave_again = dataclasses.replace(snapshot)  # a new snapshot, as a worker's next wave
    with collector_held():
        result = functools.reduce(lambda _, __: run_wave(wave_again, profile), range(1), None)
    print(json.dumps({"decisions": decisions_digest(result)}))


def ab_instructions(base: str, players: int, before: str | None = None) -> None:
    from callgrind import counted_run  # a sibling script: this directory is on the path

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        sys.exit("bench_rules.py: --instructions needs valgrind (Debian: apt-get install valgrind)")
    runs = _variants(base, before)
    for strategy in STRATEGIES:
        counts: dict[str, int] = {}
        for tree, variant, label in runs:
            counts[label], out = counted_run(
                valgrind,
                [__file__, "--counted", tree, strategy, variant, str(players)],
                tree,
                cwd=tree,
                env={**os.environ, "PYTHONHASHSEED": "0"},  # the same set orders in every run
            )
            decisions = json.loads(out.strip().splitlines()[-1])["decisions"]
            print(
                f"{strategy:10s} {label:10s} players={players} close "
                f"{counts[label] / 1e6:9,.1f} M instructions  "
                f"x{counts[label] / counts['base today']:.3f} of base today  decisions {decisions}",
                flush=True,
            )
        full = counts["this full"] / counts["this today"]
        print(f"{strategy:10s} full set x{full:.3f} of this tree's today, in instructions")


def _variants(base: str, before: str | None) -> list[tuple[str, str, str]]:
    """The A/B's (tree, rule set, label) runs."""
    return [
        (base, "today", "base today"),
        (str(HERE), "today", "this today"),
        (str(HERE), "full", "this full"),
        *([(before, "today", "prev today"), (before, "full", "prev full")] if before else []),
    ]


def ab(base: str, rounds: int, players: int, before: str | None = None) -> None:
    sys.path.insert(0, str(HERE))
    from scripts.machine import machine_line

    print(machine_line())
    runs = _variants(base, before)
    for strategy in STRATEGIES:
        times: dict[str, list[float]] = {label: [] for _, _, label in runs}
        matches: dict[str, float] = {}
        decisions: dict[str, str] = {}
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
                decisions[label] = got["decisions"]
        reference = statistics.median(times["base today"])
        for _, _, label in runs:
            median = statistics.median(times[label])
            print(
                f"{strategy:10s} {label:10s} players={players} rounds={rounds} strategy median "
                f"{median:6.0f} ms CPU  x{median / reference:.2f} of base today  "
                f"matches {matches[label]:.0f} decisions {decisions[label]}"
            )
        full = statistics.median(times["this full"]) / statistics.median(times["this today"])
        print(f"{strategy:10s} full set x{full:.2f} of this tree's today (issue 35's floor: x1.2)")


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


def duel_wave(players: int, side: str) -> Any:
    from matcher.core import Player, Ticket, WaitingTicket, WaveSnapshot

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
    from matcher.checks import wave_result_problems
    from matcher.core import QueueProfile
    from matcher.rules.check import rated_snapshot, wave_rule_problems
    from matcher.strategies import run_wave

    snapshot = duel_wave(players, side)
    profile = QueueProfile("q", "optimal", ("m",), rules=DUEL_RULES[side])
    times, matches = [], 0
    for _ in range(repeats + 1):  # the first one warms the imports and caches up
        wave = dataclasses.replace(snapshot)  # a new snapshot each close, as a worker's
        with collector_held():
            started = time.perf_counter()
            result = run_wave(wave, profile)
            rated = rated_snapshot(wave, profile.ruleset)
            problems = wave_rule_problems(rated, profile, result)
            problems += wave_result_problems(rated, profile, result)
            times.append((time.perf_counter() - started) * 1e3)
        matches = len(result.matches)
        assert not problems, problems[:3]
    return {"ms": statistics.median(times[1:]), "matches": matches}


def duel_ab(base: Path, players: int, rounds: int) -> None:
    sys.path.insert(0, str(HERE))
    from scripts.machine import machine_line

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


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Cost of queue rules on a 10,000-player 5v5 wave (see the module text)."
    )
    parser.add_argument("players", nargs="?", type=int, default=10_000)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--ab", metavar="BASE_TREE", help="A/B against an older checkout")
    mode.add_argument("--duel-ab", metavar="BASE_TREE", help="the 1v1 floor's A/B")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", dest="players_option", type=int)
    parser.add_argument("--before", help="--ab: a tree to close both rule sets on too")
    parser.add_argument(
        "--instructions", action="store_true", help="--ab: count instructions under callgrind"
    )
    # The A/B's own processes, one per variant and tree.
    mode.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    mode.add_argument("--duel-one", nargs=2, help=argparse.SUPPRESS)
    mode.add_argument("--counted", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.players_option is not None:
        args.players = args.players_option
    for name in ("players", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: must be at least 1, got {getattr(args, name)}")
    for name in ("ab", "duel_ab", "before"):
        tree = getattr(args, name)
        if tree is not None and not Path(tree, "matcher").is_dir():
            parser.error(f"--{name.replace('_', '-')}: {tree} is not a wavematch checkout")
    if args.before and not args.ab:
        parser.error("--before: only with --ab")
    if args.instructions and not args.ab:
        parser.error("--instructions: only with --ab")
    return args


if __name__ == "__main__":
    args = parse_args(sys.argv[1:])
    if args.duel_one:
        import matcher

        assert Path(matcher.__file__).resolve().is_relative_to(Path.cwd().resolve()), (
            matcher.__file__
        )
        side, players = args.duel_one
        print(json.dumps(duel_close(int(players), side, repeats=3)))
    elif args.duel_ab:
        duel_ab(Path(args.duel_ab), args.players, args.rounds)
    elif args.child:
        tree, strategy, variant, players = args.child
        child(tree, strategy, variant, int(players))
    elif args.counted:
        tree, strategy, variant, players = args.counted
        counted(tree, strategy, variant, int(players))
    elif args.ab and args.instructions:
        ab_instructions(args.ab, args.players, args.before)
    elif args.ab:
        ab(args.ab, args.rounds, args.players, args.before)
    else:
        sys.path.insert(0, str(HERE))
        main(args.players)
