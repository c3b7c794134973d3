"""``optimal`` against a maximum matching and the exact optimum, on issue 30's tied
single-rating waves and on the benchmark's two-rating waves, timed beside rustworkx.

    .venv/bin/python scripts/bench_duel_ties.py [--mix tied,benchmark] [--players 30,1000,10000]
        [--seeds 1-10] [--exact-up-to 1000] [--maximum-up-to 2000]

Waves: ``tied`` is issue 30's same-game ladder (tests/oracle/distributions.py ``tied``:
round(N(1500, 300)) in [0, 3000], one rating either side, waits Geometric(0.4) - 1,
active population 2 n); ``benchmark`` is scripts/bench_duel.py's wave (two ratings,
active population 4 n). Per size, over the seeds: ``optimal``'s pairs, the maximum
(rustworkx's blossom, cardinality only, on every legal pair, up to --maximum-up-to;
above, the bound ``optimal`` reports, an upper bound, and for single-rating waves the
rating-sorted neighbours' dynamic programme, a lower bound), the lowest share, whether
every result was maximal, mean and 99th-percentile |diff| against the exact optimum's
(rustworkx's weighted blossom on every legal pair, up to --exact-up-to), and the median
CPU time (``time.process_time``, the fastest of 3 runs per seed) of ``optimal`` and of
rustworkx's weighted blossom on the same wave: on every legal pair up to --exact-up-to,
on the large tier's candidate graph above (every legal pair is out of its reach).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import rustworkx as rx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_duel import wave  # noqa: E402
from machine import machine_line  # noqa: E402
from quality_bar import seed_range  # noqa: E402

from matcher.duel.graph import DuelArrays, candidate_edges, legal, legal_table, undirected  # noqa: E402
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer  # noqa: E402
from matcher.duel.optimal import optimal_pairs  # noqa: E402
from matcher.duel.small import legal_edges  # noqa: E402
from tests.duel.waves import arrays_of  # noqa: E402
from tests.oracle.distributions import MAPS, tied  # noqa: E402


def players_of(mix: str, n: int, seed: int) -> tuple[list[DuelPlayer], int]:
    if mix == "tied":
        return tied(n, seed * 100003 + n), 2 * n
    return wave(n, seed * 100003 + n), 4 * n


def fastest_ms(call: Callable[[], object], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best * 1000


def blossom(size: int, edges: tuple[np.ndarray, np.ndarray, np.ndarray], weighted: bool) -> set:
    bw, sc2, score = edges
    graph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(size))
    if weighted:
        weight = (int(score.max(initial=0)) + 1 - score).tolist()
        graph.add_edges_from(list(zip(bw.tolist(), sc2.tolist(), weight, strict=True)))
        return rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    graph.add_edges_from_no_data(list(zip(bw.tolist(), sc2.tolist(), strict=True)))
    return rx.max_weight_matching(graph, max_cardinality=True)


def sorted_neighbour_pairs(arrays: DuelArrays) -> int:
    """Most pairs of rating-sorted neighbours (single-rating waves): a lower bound."""
    order = np.argsort(arrays.bw, kind="stable")
    ok = legal(arrays, order[:-1], order[1:]) | legal(arrays, order[1:], order[:-1])
    best = [0, 0]
    for playable in ok.tolist():
        best.append(max(best[-1], best[-2] + 1 if playable else 0))
    return best[-1]


def diffs(players: list[DuelPlayer], pairs: list[tuple[int, int]]) -> np.ndarray:
    return np.array(
        [abs((players[a].bw_mmr or 0) - (players[b].sc2_mmr or 0)) for a, b in pairs] or [0],
        dtype=np.float64,
    )


def maximal(arrays: DuelArrays, pairs: list[tuple[int, int]]) -> bool:
    matched = np.zeros(arrays.size, dtype=bool)
    for a, b in pairs:
        matched[a] = matched[b] = True
    return not legal_table(arrays, np.flatnonzero(~matched)).any()


def row(mix: str, n: int, seeds: range, args: argparse.Namespace) -> str:
    shares, ours_ms, ref_ms, mean_gap, p99_gap = [], [], [], [], []
    made, most, all_maximal = [], [], True
    for seed in seeds:
        players, population = players_of(mix, n, seed)
        arrays = arrays_of(players, population, OPTIMAL_DEFAULTS, MAPS)
        outcome = optimal_pairs(players, population, MAPS, OPTIMAL_DEFAULTS)
        ours_ms.append(
            fastest_ms(lambda p=players, q=population: optimal_pairs(p, q, MAPS, OPTIMAL_DEFAULTS))
        )
        at = {player.player_id: i for i, player in enumerate(players)}
        pairs = [(at[p.bw.player_id], at[p.sc2.player_id]) for p in outcome.pairs]
        all_maximal &= maximal(arrays, pairs)
        if n <= args.exact_up_to:
            edges = legal_edges(arrays)
            ref_ms.append(fastest_ms(lambda e=edges: blossom(n, e, True), runs=1))
            side = {(min(a, b), max(a, b)): (a, b) for a, b in zip(*edges[:2], strict=True)}
            optimum = [side[(min(m), max(m))] for m in blossom(n, edges, True)]
            best = diffs(players, optimum)
            found = diffs(players, pairs)
            mean_gap.append(found.mean() - best.mean())
            p99_gap.append(np.percentile(found, 99) - np.percentile(best, 99))
        else:
            u, v = candidate_edges(arrays, OPTIMAL_DEFAULTS.optimal_neighbours)
            edges = undirected(arrays, u, v)
            ref_ms.append(fastest_ms(lambda e=edges: blossom(n, e, True), runs=1))
        if n <= args.maximum_up_to:
            top = len(blossom(n, legal_edges(arrays), False))
            most.append(f"{top}")
        else:
            low = sorted_neighbour_pairs(arrays) if mix == "tied" else None
            top = outcome.pair_bound
            most.append(f"{low}-{top}" if low is not None else f"<= {top}")
        made.append(len(pairs))
        shares.append(len(pairs) / top if top else 1.0)
    ratio = statistics.median(ours_ms) / statistics.median(ref_ms)
    gaps = f"+{max(mean_gap):.2f} / +{max(p99_gap):.1f}" if mean_gap else "n/a (no optimum)"
    return (
        f"| {mix} | {n} | {min(made)}-{max(made)} | {', '.join(sorted(set(most)))} | "
        f"{100 * min(shares):.2f} % | {'yes' if all_maximal else 'NO'} | {gaps} | "
        f"{statistics.median(ours_ms):.2f} | {statistics.median(ref_ms):.2f} | {ratio:.3f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mix", default="tied,benchmark")
    parser.add_argument("--players", default="30,1000,10000")
    parser.add_argument("--seeds", default="1-10")
    parser.add_argument("--exact-up-to", type=int, default=1000)
    parser.add_argument("--maximum-up-to", type=int, default=2000)
    args = parser.parse_args()
    mixes = args.mix.split(",")
    if not set(mixes) <= {"tied", "benchmark"}:
        parser.error(f"--mix: {args.mix!r} is not a list of tied and benchmark")
    try:
        sizes = [int(text) for text in args.players.split(",")]
    except ValueError:
        parser.error(f"--players: {args.players!r} is not a comma-separated list of sizes")
    print(machine_line())
    print(
        "| mix | players | pairs made | maximum | lowest share | all maximal | mean / p99 "
        "|diff| vs optimum (worst seed) | optimal ms | rustworkx ms | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mix in mixes:
        for n in sizes:
            print(row(mix, n, seed_range(args.seeds), args), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
