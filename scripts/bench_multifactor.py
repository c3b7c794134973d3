"""Benchmark of the multifactor strategy: wave score reached vs budget and time.

Workloads are synthetic 3v3 waves (solos, duos and trios; three regions; a previous
wave's encounters as history). For each size the script runs the strategy at growing
evaluation budgets (each timed several times, median reported) and compares the
score with a long reference run (the best of many restarts).

    .venv/bin/python scripts/bench_multifactor.py            # full run (a few minutes)
    .venv/bin/python scripts/bench_multifactor.py --quick    # smoke run

Timings are wall-clock on whatever machine runs it; the scores are deterministic.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from matcher.core import LastMatch, Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.multifactor.strategy import multifactor_strategy

REGIONS = ("eu", "us", "asia")
BUDGETS = (12_500, 25_000, 50_000, 100_000, 200_000, 400_000, 800_000, 1_600_000)


def workload(players: int, seed: int) -> WaveSnapshot:
    """A 3v3 wave of ``players`` players: 60% solos, 25% duos, 15% trios."""
    rng = random.Random(seed)
    tickets: list[WaitingTicket] = []
    made = 0
    while made < players:
        size = min(rng.choices((1, 2, 3), (0.6, 0.25, 0.15))[0], players - made)
        home = rng.choice(REGIONS)
        centre = rng.gauss(1500, 350)
        members = tuple(_player(rng, f"p{made + k}", centre, home) for k in range(size))
        ticket = Ticket(
            f"t{len(tickets)}",
            "q3",
            "eu",
            members,
            1_000 * len(tickets),
            party_id=f"party{len(tickets)}" if size > 1 else None,
        )
        tickets.append(WaitingTicket(ticket, rng.randrange(4)))
        made += size
    everyone = [p for w in tickets for p in w.ticket.players]
    return WaveSnapshot(
        "q3", "eu", f"w{seed}", 1, seed, 0, tuple(tickets), last_matches=_history(rng, everyone)
    )


def _player(rng: random.Random, pid: str, centre: float, home: str) -> Player:
    rating = int(min(max(rng.gauss(centre, 150), 0), 3500))
    latency = tuple(
        (region, rng.randint(15, 60) if region == home else rng.randint(80, 250))
        for region in REGIONS
    )
    return Player(pid, (("mmr", rating),), latency_ms=latency, can_host=rng.random() < 0.4)


def _history(rng: random.Random, players: list[Player]) -> tuple[LastMatch, ...]:
    """60% of the players come from a previous skill-sorted wave of 3v3 matches."""
    back = sorted(
        rng.sample(players, (len(players) * 6 // 10) // 6 * 6), key=lambda p: p.ratings[0][1]
    )
    history: list[LastMatch] = []
    for start in range(0, len(back), 6):
        ids = [p.player_id for p in back[start : start + 6]]
        teams = (ids[0::2], ids[1::2])
        for side, team in enumerate(teams):
            for pid in team:
                mates = tuple(x for x in team if x != pid)
                history.append(LastMatch(pid, mates, tuple(teams[1 - side])))
    return tuple(history)


def run(
    snapshot: WaveSnapshot, budget: int, repeats: int, kicks: int | None
) -> tuple[float, float, dict[str, float]]:
    options: dict[str, object] = {"budget_evaluations": budget, "max_restarts": 100_000}
    if kicks is not None:
        options["restart_kicks"] = kicks
    profile = QueueProfile(
        "q3", "multifactor", ("arena", "ruins", "dock"), team_size=3, options=options
    )
    times, stats = [], {}
    for _ in range(repeats):
        start = time.perf_counter()
        result = multifactor_strategy(snapshot, profile)
        times.append(time.perf_counter() - start)
        stats = dict(result.stats)
    return stats["score"], statistics.median(times), stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small budgets, short reference")
    parser.add_argument("--seeds", type=int, default=3, help="workloads per size")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per budget")
    parser.add_argument("--sizes", default="100,300", help="players per wave, comma-separated")
    parser.add_argument("--kicks", type=int, default=None, help="restart_kicks (default: config's)")
    parser.add_argument(
        "--budgets", default="", help="budgets to time, comma-separated (default: the doubling row)"
    )
    parser.add_argument(
        "--known",
        default="",
        help="best scores found earlier, 'players/seed=score,...': the reference is the "
        "better of the reference run and this",
    )
    parser.add_argument(
        "--reference",
        type=int,
        default=0,
        help="reference budget in evaluations (default: 100 x the largest budget)",
    )
    args = parser.parse_args()
    budgets = BUDGETS[:3] if args.quick else BUDGETS
    if args.budgets:
        budgets = tuple(int(b) for b in args.budgets.split(","))
    known = dict(item.split("=") for item in args.known.split(",") if item)
    print(
        "| players | seed | budget (evaluations) | median time (s) | restarts | score | "
        "gap to reference |"
    )
    print("|---|---|---|---|---|---|---|")
    for players in (int(size) for size in args.sizes.split(",")):
        for seed in range(1, args.seeds + 1):
            snapshot = workload(players, seed)
            ref_budget = args.reference or budgets[-1] * (4 if args.quick else 25)
            run_score, ref_time, ref_stats = run(snapshot, ref_budget, 1, args.kicks)
            ref_score = max(run_score, float(known.get(f"{players}/{seed}", 0.0)))
            sorted_cut = ref_stats["start_score"]
            gap = (ref_score - sorted_cut) / ref_score * 100
            print(
                f"| {players} | {seed} | sorted cut (0) | - | 0 | {sorted_cut:.5f} | {gap:.2f}% |"
            )
            for budget in budgets:
                score, seconds, stats = run(snapshot, budget, args.repeats, args.kicks)
                gap = (ref_score - score) / ref_score * 100
                print(
                    f"| {players} | {seed} | {budget:,} | {seconds:.3f} | "
                    f"{stats['restarts']:.0f} | {score:.5f} | {gap:.2f}% |"
                )
            print(
                f"| {players} | {seed} | reference {ref_budget:,} | {ref_time:.1f} | "
                f"{ref_stats['restarts']:.0f} | {run_score:.5f} | "
                f"{(ref_score - run_score) / ref_score * 100:.2f}% |",
                flush=True,
            )
            if ref_score - run_score > 5e-6:  # a better score found by another run
                print(f"| {players} | {seed} | best known | - | - | {ref_score:.5f} | - |")


if __name__ == "__main__":
    main()
