"""What share of game-queue's queue-mode wave close is rebuilding its game queue (ADR 0187).

Each wave loads its tickets into a fresh :class:`matcher.teams.gamequeue.GameQueue`
(``extend``: the ordered set and one lower bound per anchor) and then pops the best
game until none is left (each pop searches the windows whose bounds surface). A queue
kept across waves would save at most the load of the tickets that stay queued. This
times the load and the pops separately on the 5v5 workload of scripts/bench_teams.py
(20% parties of 2-3). Beyond ``--full`` tickets the pops are timed for the first
``--games`` games and extrapolated to the wave's number of games (a lower bound on
the pops' time). "left" counts the units still queued after the last game: what a
queue kept across waves would carry into the next one.

    .venv/bin/python scripts/bench_gamequeue_rebuild.py --sizes 100 1000 10000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_teams import K, workload
from machine import machine_line

from matcher.teams.gamequeue import GameQueue
from matcher.teams.games import Unit
from matcher.teams.model import TeamShape, parties_of
from matcher.teams.options import game_queue_config


def measure(tickets: int, full: int, games: int) -> tuple[float, float, int, int, int | None]:
    """(load s, pops s, games popped, players, units left queued or None if extrapolated)."""
    snapshot = workload(tickets, seed=tickets)
    parties, _ = parties_of(snapshot, TeamShape(2, K, K))
    config = game_queue_config({"mode": "queue"})
    units = [
        Unit(i, party.ratings, (party.joined_at_ms - snapshot.closed_at_ms) / 1000.0)
        for i, party in enumerate(parties)
    ]
    queue = GameQueue(K, config.imbalance, config.beta, seed=1, max_nodes=config.max_nodes)
    start = time.process_time()
    queue.extend(units)
    loaded = time.process_time() - start
    players = sum(party.size for party in parties)
    limit = None if tickets <= full else games
    popped = 0
    start = time.process_time()
    while (limit is None or popped < limit) and queue.pop_best() is not None:
        popped += 1
    pops = time.process_time() - start
    if limit is None:
        return loaded, pops, popped, players, len(queue)
    whole = players // (2 * K)  # about every player plays: see docs/benchmarks/teams.md
    return loaded, pops / popped * whole, whole, players, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000])
    parser.add_argument("--full", type=int, default=300, help="largest wave popped to the end")
    parser.add_argument("--games", type=int, default=30, help="games timed beyond --full")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(machine_line())
    print("| tickets | players | load (rebuild) ms | pops ms | games | rebuild share | left |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for tickets in args.sizes:
        runs = [measure(tickets, args.full, args.games) for _ in range(args.repeat)]
        load = statistics.median(r[0] for r in runs) * 1000
        pops = statistics.median(r[1] for r in runs) * 1000
        _, _, games, players, left = runs[0]
        mark = " (est.)" if left is None else ""
        share = load / (load + pops)
        print(
            f"| {tickets:,} | {players:,} | {load:,.1f} | {pops:,.0f}{mark} | {games:,}{mark}"
            f" | {share:.2%} | {'-' if left is None else left} |"
        )


if __name__ == "__main__":
    main()
