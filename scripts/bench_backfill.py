"""CPU time of one backfill choice (docs/adr/0114) on a 5v5 session and a large queue:
the typical request (one team short of two players) and the worst the bounds allow
(both teams wide open, so the pool and the fill search reach their caps).

    .venv/bin/python scripts/bench_backfill.py [--tickets 10000] [--repeat 5]

Prints the median of ``--repeat`` calls (``time.process_time``) per case, with the
pool size and the fills tried.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from machine import machine_line  # noqa: E402

from matcher.core import Player, Ticket  # noqa: E402
from matcher.queue.backfill_choice import choose_fill  # noqa: E402
from matcher.queue.lifecycle import BackfillRequested, BackfillTeam  # noqa: E402
from matcher.ruleset import parse_rules  # noqa: E402

CASES = {
    "two open slots in one team": ((5, 0), (3, 2)),
    "three and two open slots": ((2, 3), (3, 2)),
    "worst: five and four open slots": ((0, 5), (1, 4)),
}


def queue(n: int, seed: int) -> list[Ticket]:
    rng = random.Random(seed)
    return [
        Ticket(
            f"t{i}",
            "5v5",
            "eu",
            tuple(
                Player(f"p{i}.{k}", (("mmr", rng.randint(1000, 2000)),))
                for k in range(rng.choice((1, 1, 1, 2, 3)))
            ),
            i,
        )
        for i in range(n)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tickets", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    tickets = queue(args.tickets, 1)
    rules = parse_rules({"max_spread": {"base": 1000}, "max_team_gap": {"base": 200}})
    print(machine_line())
    for name, shape in CASES.items():
        teams = tuple(
            BackfillTeam(f"team{t}", tuple((f"s{t}.{k}", 1500) for k in range(seated)), free)
            for t, (seated, free) in enumerate(shape)
        )
        request = BackfillRequested("s", "5v5", "eu", teams, 0)
        times, choice = [], None
        for _ in range(args.repeat):
            start = time.process_time()
            choice = choose_fill(request, tickets, 1_000_000, -1, rules)
            times.append(time.process_time() - start)
        assert choice is not None
        print(
            f"{name}: {statistics.median(times) * 1000:.2f} ms median CPU, pool {choice.pool},"
            f" {choice.fills_tried} fills tried, gap {choice.gap_before:g} -> "
            f"{choice.gap_after:g} ({args.tickets} queued tickets)"
        )


if __name__ == "__main__":
    main()
