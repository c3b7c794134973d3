"""Where the warm blossom spends its time on one benchmark wave solved whole.

Usage: ``python scripts/probe_blossom_stages.py --n 10000 --seed 5``. Solves the wave as
``optimal`` would below ``optimal_warm_limit`` (the relaxation on the 6-nearest graph,
finished by the warm-started blossom, no dual proof) and prints the relaxation's time,
then per blossom stage its CPU time and the players still unmatched when it began.

Diagnostic only: it wraps the solver's private ``stage`` method to time it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from deep_stack import run_with_deep_stack

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_duel import wave, wave_arrays

import matcher.duel.blossom as blossom
import matcher.duel.warm as warm
from matcher.duel.model import OPTIMAL_DEFAULTS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    stages: list[tuple[float, int]] = []
    assignments: list[float] = []
    solve_stage, assign = blossom._Solver.stage, warm.sparse_assignment

    def timed_stage(solver: blossom._Solver) -> bool:
        unmatched = solver.mate[: solver.n].count(-1)
        start = time.process_time()
        more = solve_stage(solver)
        stages.append((time.process_time() - start, unmatched))
        return more

    def timed_assignment(*call: object) -> object:
        start = time.process_time()
        successor = assign(*call)  # type: ignore[arg-type]
        assignments.append(time.process_time() - start)
        return successor

    blossom._Solver.stage = timed_stage  # type: ignore[method-assign]
    warm.sparse_assignment = timed_assignment  # type: ignore[assignment]
    arrays = wave_arrays(wave(args.n, args.seed * 100_003 + args.n), OPTIMAL_DEFAULTS)
    start = time.process_time()
    outcome = warm.warm_pairs(arrays, OPTIMAL_DEFAULTS.optimal_neighbours, prove=False)
    total = time.process_time() - start
    if outcome is None:
        print("the warm start did not check out")
        return 1
    squares = sum((int(arrays.bw[a]) - int(arrays.sc2[b])) ** 2 for a, b in outcome.pairs)
    print(f"n={args.n} seed={args.seed}: {len(outcome.pairs)} pairs, sum diff^2 {squares}")
    print(f"total {total:.2f} s; relaxation (sparse assignment) {sum(assignments):.2f} s")
    for number, (seconds, unmatched) in enumerate(stages):
        print(f"stage {number}: {seconds * 1e3:8.1f} ms, {unmatched} unmatched at its start")
    return 0


if __name__ == "__main__":
    run_with_deep_stack(main)
