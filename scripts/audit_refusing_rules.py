"""Audit ``optimal`` under rules refusing pairs whatever their ratings against the exact
optimum (docs/optimal.md, ADR 0214).

    .venv/bin/python scripts/audit_refusing_rules.py --players 401,1000 --seeds 1-3
    .venv/bin/python scripts/audit_refusing_rules.py --players 1000 --blocks --tree /tmp/base
    .venv/bin/python scripts/audit_refusing_rules.py --players 60 --seeds 1 --exact-limit 20

Per distribution (``tests/oracle/test_refusing_rules_oracle.py``: ``tied``, ``all_equal``,
``uniform``, ``bimodal``), size and seed, the oracle test's wave: latencies of 10-140 ms
to a limit of 50 ms growing to 120 ms, ``max_distance`` 100, with ``--blocks`` a third of
the players blocking up to two players near their rating. Printed per wave: ``optimal``'s
pairs against the maximum, its mean and 99th-percentile |rating difference| against the
optimum's (rustworkx's blossom on every legal pair), and its CPU seconds
(``time.process_time``, the strategy as the worker runs it); flagged when fewer pairs,
more than 1 point above the mean or 10 above the 99th percentile. Exits 1 when any wave
is flagged. ``--tree`` audits another checkout (one from before a change).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--players", default="401,1000", help="sizes, comma-separated")
parser.add_argument("--seeds", default="1-3", help="a range such as 1-3")
parser.add_argument("--blocks", action="store_true", help="block lists as well")
parser.add_argument(
    "--exact-limit",
    type=int,
    default=400,
    help="optimal_exact_limit (lower: smaller waves take the large tier)",
)
parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
args = parser.parse_args()
sys.path[:0] = [str(args.tree), str(Path(__file__).resolve().parents[1])]

from quality_bar import Judgement, audit, matcher_from, seed_range  # noqa: E402

from matcher.core import QueueProfile, WaveResult, WaveSnapshot  # noqa: E402
from tests.oracle.test_refusing_rules_oracle import (  # noqa: E402
    DISTRIBUTIONS,
    RULES,
    legal,
    optimum,
    wave,
)

matcher_from(args.tree)
try:
    SIZES = [int(size) for size in args.players.split(",")]
    SEEDS = seed_range(args.seeds)
except ValueError:
    parser.error("--players takes sizes such as 401,1000 and --seeds a range such as 1-3")


def main() -> int:
    rules = dict(RULES, block_lists=True) if args.blocks else RULES
    options = {"optimal_exact_limit": args.exact_limit}
    profile = QueueProfile("1v1", "optimal", ("m",), rules=rules, options=options)
    waves = (
        (f"{name} {n} {seed}", wave(name, n, seed, args.blocks))
        for name in DISTRIBUTIONS
        for n in SIZES
        for seed in SEEDS
    )
    return audit("distribution players seed", profile, waves, judge)


def judge(snapshot: WaveSnapshot, result: WaveResult) -> Judgement:
    at = {w.ticket.ticket_id: i for i, w in enumerate(snapshot.tickets)}
    made = [[at[s.ticket_id] for t in m.teams for s in t.seats] for m in result.matches]
    mmr = [dict(w.ticket.players[0].ratings)["mmr"] for w in snapshot.tickets]
    found = [abs(mmr[a] - mmr[b]) for a, b in made]
    most, best = optimum(snapshot)
    return len(made), most, found, best, all(legal(snapshot, a, b) for a, b in made)


if __name__ == "__main__":
    raise SystemExit(main())
