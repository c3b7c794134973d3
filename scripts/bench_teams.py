"""Benchmark of the team strategies on 5v5 waves: time per wave and match quality.

Workload (issue 7): k = 5, 20% of tickets are parties of 2-3 players, n = 100, 1,000
and 10,000 tickets; ratings ~ N(1500, 300), a party's members within ~100 of their
party's centre; no roles. Each (strategy, n) is timed ``--repeat`` times (median and
spread reported); the quality figures are deterministic (fixed seeds).

    .venv/bin/python scripts/bench_teams.py                 # full run, writes nothing
    .venv/bin/python scripts/bench_teams.py --markdown docs/benchmarks/teams.md
    .venv/bin/python scripts/bench_teams.py --quick         # smoke run (n = 100 only)

Timings are wall-clock on whatever machine runs it (ours: 2 shared cores, noisy).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from matcher.core import (
    Player,
    QueueProfile,
    Ticket,
    WaitingTicket,
    WaveResult,
    WaveSnapshot,
)
from matcher.strategies import run_wave
from matcher.teams.checks import team_result_problems
from matcher.teams.imbalance import Imbalance, imbalance
from matcher.teams.model import parties_of, team_shape
from matcher.teams.split import best_split

K = 5
#: (label, strategy, options, largest n it is run at: the game queue's online mode
#: searches O(W) windows per game and takes minutes beyond a few hundred tickets).
RUNS: tuple[tuple[str, str, dict[str, object], int], ...] = (
    ("rebalance auto (combination)", "rebalance", {}, 10_000),
    ("rebalance greedy", "rebalance", {"method": "greedy"}, 10_000),
    ("game-queue offline", "game-queue", {"mode": "offline"}, 10_000),
    ("game-queue queue", "game-queue", {"mode": "queue"}, 100),
)


def workload(tickets: int, seed: int) -> WaveSnapshot:
    """``tickets`` tickets: 80% solos, 20% parties of 2 or 3 players."""
    rng = random.Random(seed)
    waiting: list[WaitingTicket] = []
    count = 0
    for number in range(tickets):
        size = rng.choice((2, 3)) if rng.random() < 0.2 else 1
        centre = rng.gauss(1500, 300)
        members = tuple(
            Player(f"p{count + j}", (("any", int(rng.gauss(centre, 100 if size > 1 else 0))),))
            for j in range(size)
        )
        count += size
        ticket = Ticket(f"t{number}", "5v5", "eu", members, 1_000 * number)
        waiting.append(WaitingTicket(ticket, rng.randrange(3)))
    return WaveSnapshot("5v5", "eu", f"w{seed}", 1, seed, 1_000 * tickets, tuple(waiting))


def profile(strategy: str, options: dict[str, object]) -> QueueProfile:
    return QueueProfile("5v5", strategy, ("m1", "m2"), team_size=K, options=options)


def figures(result: WaveResult, params: Imbalance) -> dict[str, float]:
    """Means over the wave's matches, and the share of players matched."""
    diffs = [m.quality_of("team_rating_diff") or 0.0 for m in result.matches]
    spreads = [m.quality_of("rating_spread") or 0.0 for m in result.matches]
    imbalances = [
        imbalance([[s.rating for s in team.seats] for team in m.teams], params)
        for m in result.matches
    ]
    mean = statistics.fmean
    return {
        "diff": mean(diffs) if diffs else 0.0,
        "spread": mean(spreads) if spreads else 0.0,
        "f": mean(imbalances) if imbalances else 0.0,
        "share": result.stat("share_matched") or 0.0,
    }


def timed(call: Callable[[], WaveResult], repeat: int) -> tuple[WaveResult, list[float]]:
    times: list[float] = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    assert result is not None
    return result, times


def exact_diff(snapshot: WaveSnapshot, prof: QueueProfile, result: WaveResult) -> float:
    """Brute-force reference: the least team mean difference of each match's own parties.

    Every split of the match's parties into two teams of k is tried; the mean over the
    wave's matches is the best any splitter could reach *on the same games*. No exact
    whole-wave partition finishes even at n = 100, so which parties meet is not covered.
    """
    parties, _ = parties_of(snapshot, team_shape(prof))
    by_id = {party.ticket_id: party for party in parties}
    best: list[float] = []
    for match in result.matches:
        members = [by_id[tid] for tid in match.ticket_ids()]

        def gap(split: tuple[tuple[int, ...], ...], members: list = members) -> float:  # type: ignore[type-arg]
            means = [
                sum(r for i in team for r in members[i].ratings)
                / sum(members[i].size for i in team)
                for team in split
            ]
            return abs(means[0] - means[1])

        found = best_split([m.size for m in members], 2, K, K, gap)
        assert found is not None
        best.append(found[1])
    return statistics.fmean(best) if best else 0.0


def _row(n: int, label: str, times: list[float], got: dict[str, float], exact: float) -> str:
    median = statistics.median(times)
    return (
        f"| {n:,} | {label} | {median * 1000:,.1f} | {min(times) * 1000:,.1f}-"
        f"{max(times) * 1000:,.1f} | {got['diff']:.2f} | {exact:.2f} | {got['spread']:.1f} |"
        f" {got['f']:.1f} | {got['share']:.3f} |"
    )


HEADER = (
    "| tickets | strategy | median ms/wave | min-max ms | mean team diff |"
    " exact diff (same games) | mean in-game spread | mean f | share matched |\n"
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"
)


def _markdown(
    rows: list[tuple[int, str, list[float], dict[str, float], float]], repeat: int
) -> str:
    lines = [_row(*row) for row in rows]
    return (
        f"Median of {repeat} runs; Python {platform.python_version()} on {platform.machine()}.\n\n"
        + HEADER
        + "\n".join(lines)
        + "\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 100 only, one repeat")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per cell (median)")
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args(argv)
    sizes = (100,) if args.quick else (100, 1_000, 10_000)
    repeat = 1 if args.quick else args.repeat
    rows = []
    for n in sizes:
        snapshot = workload(n, seed=n)
        for label, strategy, options, limit in RUNS:
            if n > limit:
                continue
            prof = profile(strategy, options)
            # A new snapshot each close, as a worker's waves (matcher/wave_memo.py).
            result, times = timed(lambda s=snapshot, p=prof: run_wave(replace(s), p), repeat)
            problems = team_result_problems(snapshot, prof, result)
            assert not problems, problems[:3]
            got = figures(result, Imbalance())
            exact = exact_diff(snapshot, prof, result)
            rows.append((n, label, times, got, exact))
            print(_row(n, label, times, got, exact), flush=True)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(_markdown(rows, repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
