"""Audit ``optimal`` under a latency limit on an outside check's waves against the exact
optimum: an established ladder, a new-player-heavy ladder and a coarse two-tier ladder.

    .venv/bin/python scripts/audit_placement_ladder.py --players 2000 --seeds 1-3
    .venv/bin/python scripts/audit_placement_ladder.py --players 2000 --population newbie --blocks
    .venv/bin/python scripts/audit_placement_ladder.py --players 2000 --prepair-limit 100000

The generator is the one an outside check wrote on 2026-12-06 from docs/rules.md alone
(not from tests/oracle). It reproduces what it found: `optimal` misses the quality bar
on new-player-heavy waves of about 2,000 players or more. Populations:
- ``glicko``: integer ratings from N(1500, 300);
- ``newbie``: 35 % at the 1200 placement rating, 25 % around it (N(0, 40)), 40 % a
  log-normal tail above 900;
- ``coarse``: 75 % N(1100, 150) and 25 % N(2100, 220), in steps of 25.

Latencies to eu come in regional clusters of 12-190 ms, and 3 % of players have no
figure. Waits are 0-240 s, most of them short. With ``--blocks``, 12 % of players block
1-6 others, mostly near their rating. Rules: ``max_distance`` 100 + 5/s capped at 400,
``max_latency_ms`` 60 + 1/s capped at 150 (both at the longer wait).

Printed per wave: `optimal`'s pairs against the maximum, its mean and 99th-percentile
|rating difference| against the optimum's (rustworkx's blossom on every legal pair, least
summed squared difference), and its CPU seconds. A wave is flagged when it has fewer
pairs, more than 1 point above the mean or 10 above the 99th percentile. The script exits
1 when any wave is flagged. ``--tree`` audits another checkout.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--players", default="2000", help="sizes, comma-separated")
parser.add_argument("--seeds", default="1-2", help="a range such as 1-3")
parser.add_argument("--population", default="glicko,newbie,coarse", help="comma-separated")
parser.add_argument("--blocks", action="store_true", help="block lists as well")
parser.add_argument("--exact-limit", type=int, default=400, help="optimal_exact_limit")
parser.add_argument("--prepair-limit", type=int, default=1000, help="optimal_prepair_limit")
parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
args = parser.parse_args()
sys.path[:0] = [str(args.tree), str(Path(__file__).resolve().parents[1])]

import numpy as np  # noqa: E402
import rustworkx as rx  # noqa: E402
from quality_bar import Judgement, audit, matcher_from, seed_range  # noqa: E402

from matcher.core import (  # noqa: E402
    Player,
    QueueProfile,
    Ticket,
    WaitingTicket,
    WaveResult,
    WaveSnapshot,
)

CLOSE_MS = 1_765_000_000_000
RULES = {
    "rating": "mmr",
    "max_distance": {"base": 100, "growth_per_s": 5, "cap": 400},
    "max_latency_ms": {"base": 60, "growth_per_s": 1, "cap": 150},
}
POPULATIONS = ("glicko", "newbie", "coarse")

matcher_from(args.tree)
try:
    SIZES = [int(size) for size in args.players.split(",")]
    SEEDS = seed_range(args.seeds)
    CHOSEN = args.population.split(",")
    if not set(CHOSEN) <= set(POPULATIONS):
        raise ValueError(args.population)
except ValueError:
    parser.error(
        "--players takes sizes such as 2000,3000, --seeds a range such as 1-3 and "
        f"--population some of {', '.join(POPULATIONS)}"
    )


def rating(rng: random.Random, population: str) -> int:
    if population == "glicko":
        return int(min(3000, max(100, round(rng.gauss(1500, 300)))))
    if population == "newbie":
        draw = rng.random()
        if draw < 0.35:
            return 1200
        if draw < 0.60:
            return 1200 + int(rng.gauss(0, 40))
        return int(min(3200, 900 + rng.lognormvariate(math.log(450), 0.55)))
    tier = rng.gauss(1100, 150) if rng.random() < 0.75 else rng.gauss(2100, 220)
    return int(round(tier / 25) * 25)


def latency(rng: random.Random) -> int:
    draw = rng.random()
    if draw < 0.50:
        return int(rng.uniform(12, 45))
    if draw < 0.78:
        return int(rng.uniform(40, 80))
    if draw < 0.92:
        return int(rng.uniform(75, 130))
    return int(rng.uniform(110, 190))


def wait_ms(rng: random.Random) -> int:
    draw = rng.random()
    seconds = (
        rng.uniform(0, 20)
        if draw < 0.55
        else rng.uniform(20, 90)
        if draw < 0.85
        else rng.uniform(90, 240)
    )
    return int(seconds * 1000)


def wave(population: str, n: int, seed: int, blocks: bool) -> WaveSnapshot:
    rng = random.Random(f"{population}/{n}/{seed}/{blocks}")
    rows = [
        (f"u{seed}-{i}", rating(rng, population), latency(rng), wait_ms(rng), rng.random() < 0.03)
        for i in range(n)
    ]
    blocked: dict[int, tuple[str, ...]] = {}
    if blocks:
        by_rating = sorted(range(n), key=lambda i: rows[i][1])
        place = {player: k for k, player in enumerate(by_rating)}
        for i in range(n):
            if rng.random() < 0.12:
                picks = set()
                for _ in range(rng.randint(1, 6)):
                    near = place[i] + rng.randint(-30, 30)
                    j = (
                        by_rating[min(n - 1, max(0, near))]
                        if rng.random() < 0.8
                        else rng.randrange(n)
                    )
                    if j != i:
                        picks.add(rows[j][0])
                blocked[i] = tuple(sorted(picks))
    tickets = []
    for i in sorted(range(n), key=lambda i: (CLOSE_MS - rows[i][3], i)):  # join order
        player_id, mmr, ms, waited, unknown = rows[i]
        player = Player(
            player_id,
            (("mmr", mmr),),
            latency_ms=() if unknown else (("eu", ms),),
            blocked=blocked.get(i, ()),
        )
        ticket = Ticket(player_id, "1v1", "eu", (player,), CLOSE_MS - waited)
        tickets.append(WaitingTicket(ticket, waited // 10_000))
    return WaveSnapshot(
        "1v1", "eu", f"audit-{population}-{n}-{seed}", 1, seed, CLOSE_MS, tuple(tickets)
    )


def legal_pairs(snapshot: WaveSnapshot) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every legal pair by docs/rules.md: the distance and latency limits at the longer
    wait (a player without a figure is not held to the latency limit), no block."""
    players = [w.ticket.players[0] for w in snapshot.tickets]
    mmr = np.array([dict(p.ratings)["mmr"] for p in players], dtype=np.int64)
    ms = np.array([p.latency_to("eu") or 0 for p in players], dtype=np.float64)
    joined = np.array([w.ticket.joined_at_ms for w in snapshot.tickets], dtype=np.float64)
    waited = np.maximum(0.0, (CLOSE_MS - joined) / 1000)
    blocked = [set(p.blocked) for p in players]
    ids = [p.player_id for p in players]
    first, second = [], []
    for i in range(len(players) - 1):
        j = np.arange(i + 1, len(players))
        longer = np.maximum(waited[i], waited[j])
        ok = np.abs(mmr[j] - mmr[i]) <= np.minimum(100 + 5 * longer, 400) + 1e-9
        ok &= np.maximum(ms[i], ms[j]) <= np.minimum(60 + longer, 150) + 1e-9
        for k in j[ok].tolist():
            if ids[k] not in blocked[i] and ids[i] not in blocked[k]:
                first.append(i)
                second.append(k)
    return mmr, np.array(first, dtype=np.int64), np.array(second, dtype=np.int64)


def optimum(mmr: np.ndarray, u: np.ndarray, v: np.ndarray, n: int) -> list[int]:
    """|Rating differences| of the most pairs with the least summed squared difference."""
    score = (mmr[u] - mmr[v]) ** 2
    top = int(score.max(initial=0)) + 1
    graph = rx.PyGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(list(zip(u.tolist(), v.tolist(), (top - score).tolist(), strict=True)))
    mates = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return [abs(int(mmr[a]) - int(mmr[b])) for a, b in mates]


def main() -> int:
    rules = dict(RULES, block_lists=True) if args.blocks else RULES
    options = {
        "optimal_exact_limit": args.exact_limit,
        "optimal_prepair_limit": args.prepair_limit,
    }
    profile = QueueProfile("1v1", "optimal", ("m",), rules=rules, options=options)
    waves = (
        (f"{population} {n} {seed}", wave(population, n, seed, args.blocks))
        for population in CHOSEN
        for n in SIZES
        for seed in SEEDS
    )
    return audit("population players seed", profile, waves, judge)


def judge(snapshot: WaveSnapshot, result: WaveResult) -> Judgement:
    mmr, u, v = legal_pairs(snapshot)
    at = {w.ticket.ticket_id: i for i, w in enumerate(snapshot.tickets)}
    legal = set(zip(u.tolist(), v.tolist(), strict=True))
    made = [sorted(at[s.ticket_id] for t in m.teams for s in t.seats) for m in result.matches]
    found = [abs(int(mmr[a]) - int(mmr[b])) for a, b in made]
    exact = optimum(mmr, u, v, len(snapshot.tickets))
    return len(made), len(exact), found, exact, all((a, b) in legal for a, b in made)


if __name__ == "__main__":
    raise SystemExit(main())
