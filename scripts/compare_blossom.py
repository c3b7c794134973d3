"""Compare matcher/duel/blossom.py with a frozen copy: every BlossomSolution must be equal.

    .venv/bin/python scripts/compare_blossom.py [--ref main] [--random 3000] [--large]

The reference is ``git show REF:matcher/duel/blossom.py`` loaded as a module outside the
package. Inputs: the blossom calls of real waves (the cold exact path of ``optimal`` at
30-160 players, ``blossom_from_relaxation``'s warm calls, ``warm_pairs`` at 300-1,000 players, and
with --large 2,000-5,000), random graphs with tied weights (cold, warm from single
vertices, warm from a tight matching, few stages), and random graphs of 200-400 vertices
(the vectorised dual step). Exits 1 on the first difference.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from deep_stack import run_with_deep_stack

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import matcher.duel.blossom as new  # noqa: E402

Call = tuple[str, int, list[tuple[int, int, int]], tuple[list[int], list[int]] | None, int]


def load_reference(ref: str) -> ModuleType:
    text = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{ref}:matcher/duel/blossom.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "blossom_reference.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("blossom_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["blossom_reference"] = module
    spec.loader.exec_module(module)
    return module


def real_calls(large: bool) -> list[Call]:
    """The blossom's arguments at its three call sites, recorded on bench_duel's waves."""
    from bench_duel import MAPS, wave, wave_arrays

    import matcher.duel.exact as exact
    import matcher.duel.relaxation_blossom as small
    import matcher.duel.warm as warm
    from matcher.duel.model import OPTIMAL_DEFAULTS
    from matcher.duel.optimal import optimal_pairs

    calls: list[Call] = []

    def recorder(kind: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def record(*args: Any) -> Any:
            start = None if len(args) < 3 else (list(args[2].mate), list(args[2].vertex_dual))
            calls.append((kind, args[0], list(args[1]), start, args[3] if start else 0))
            return original(*args)

        return record

    saved = (
        small.warm_max_weight_matching,
        warm.warm_max_weight_matching,
        exact.max_weight_matching,
    )
    small.warm_max_weight_matching = recorder("small", new.warm_max_weight_matching)
    warm.warm_max_weight_matching = recorder("warm", new.warm_max_weight_matching)
    exact.max_weight_matching = recorder("cold", new.max_weight_matching)
    try:
        for seed in range(1, 41):
            for n in (30, 60, 100, 160):
                optimal_pairs(wave(n, seed * 100003 + n), 4 * n, MAPS, OPTIMAL_DEFAULTS)
        sizes = [(300, 3), (600, 2), (1000, 2)]
        if large:
            sizes += [(2000, 3), (3000, 1), (5000, 3)]
        for n, seeds in sizes:
            for seed in range(1, seeds + 1):
                arrays = wave_arrays(wave(n, seed * 100_003 + n), OPTIMAL_DEFAULTS)
                warm.warm_pairs(arrays, 6, prove=False)
    finally:
        small.warm_max_weight_matching, warm.warm_max_weight_matching = saved[:2]
        exact.max_weight_matching = saved[2]
    return calls


def random_graph(rng: random.Random, n: int) -> list[tuple[int, int, int]]:
    edges: dict[tuple[int, int], int] = {}
    top = rng.choice([2, 5, 9, 100, 10**6])  # small tops: many ties
    for _ in range(rng.randint(1, rng.choice([2, 3, 6]) * n)):
        i, j = rng.sample(range(n), 2)
        edges[(min(i, j), max(i, j))] = rng.randint(1, top)
    return [(i, j, w) for (i, j), w in edges.items()]


def random_calls(count: int, seed: int) -> Iterator[Call]:
    rng = random.Random(seed)
    for index in range(count):
        n = rng.randint(2, 60) if index % 10 else rng.randint(200, 400)
        edges = random_graph(rng, n)
        mode = index % 4
        if mode == 0:
            yield ("random-cold", n, edges, None, 0)
            continue
        top = max(w for _, _, w in edges)
        mate = [-1] * n
        if mode == 2:  # a random matching, made tight below
            for i, j, _ in edges:
                if mate[i] == -1 and mate[j] == -1 and rng.random() < 0.5:
                    mate[i], mate[j] = j, i
        dual = [rng.choice([0, rng.randint(0, 2 * top + 1)]) for _ in range(n)]
        for i, j, w in edges:
            if mate[i] != j:
                dual[j] = max(dual[j], 2 * w - dual[i])
        weights = {(i, j): w for i, j, w in edges}
        for (i, j), w in list(weights.items()):
            if mate[i] == j:  # tight: lower the pair's weight to its duals (stays feasible)
                weights[(i, j)] = min(w, (dual[i] + dual[j]) // 2)
                dual[j] = 2 * weights[(i, j)] - dual[i]
                if dual[j] < 0:
                    dual[i], dual[j] = dual[i] - dual[j], 0
                    weights[(i, j)] = dual[i] // 2
                    dual[i] = 2 * weights[(i, j)]
        edges = [(i, j, w) for (i, j), w in weights.items()]
        if any(dual[i] + dual[j] < 2 * w for i, j, w in edges):
            mate, edges = [-1] * n, [(i, j, w) for i, j, w in edges]  # give up the matching
            for i, j, w in edges:
                dual[j] = max(dual[j], 2 * w - dual[i])
        stages = rng.choice([1, 2, 3]) if mode == 3 else 10 * n + 10
        yield ("random-warm", n, edges, (mate, dual), stages)


def run(module: ModuleType, call: Call) -> object:
    """The solution's four fields (the two modules' dataclasses differ), or None."""
    _, n, edges, start, stages = call
    if start is None:
        solution = module.max_weight_matching(n, edges)
    else:
        warm = module.WarmStart(list(start[0]), list(start[1]))
        solution = module.warm_max_weight_matching(n, edges, warm, stages)
    if solution is None:
        return None
    return solution.mate, solution.vertex_dual, solution.blossom_dual, solution.blossom_parent


def depth() -> int:
    frame, count = sys._getframe(), 0
    while frame is not None:
        frame, count = frame.f_back, count + 1
    return count


def run_limited(module: ModuleType, call: Call, frames: int) -> object:
    """As :func:`run` with at most ``frames`` more frames: warm.py turns a RecursionError
    into "no warm answer", so where it is raised is part of the behaviour."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth() + frames)
    try:
        return run(module, call)
    except RecursionError:
        return "RecursionError"
    finally:
        sys.setrecursionlimit(limit)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main")
    parser.add_argument("--random", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--large", action="store_true")
    args = parser.parse_args()
    old = load_reference(args.ref)
    counts: dict[str, int] = {}
    seconds = {"old": 0.0, "new": 0.0}
    limited = [0, 0]  # runs under a low recursion limit: equal solutions, equal RecursionErrors
    inputs = list(real_calls(args.large)) + list(random_calls(args.random, args.seed))
    for number, call in enumerate(inputs):
        began = time.process_time()
        expected = run(old, call)
        middle = time.process_time()
        got = run(new, call)
        seconds["old"] += middle - began
        seconds["new"] += time.process_time() - middle
        if expected != got:
            print(f"DIFFERENT: input {number} ({call[0]}, n={call[1]}, {len(call[2])} edges)")
            return 1
        if call[1] > 160 and (call[0] == "warm" or number % 7 == 0):
            for frames in (40, 100, 400, 1000):
                expected, got = run_limited(old, call, frames), run_limited(new, call, frames)
                if expected != got:
                    print(f"DIFFERENT at {frames} frames: input {number} ({call[0]}, n={call[1]})")
                    return 1
                limited[expected == "RecursionError"] += 1
        key = f"{call[0]} n<=160" if call[1] <= 160 else f"{call[0]} n>160"
        counts[key] = counts.get(key, 0) + 1
    print(f"all {len(inputs)} inputs equal: {dict(sorted(counts.items()))}")
    print(f"low recursion limits: {limited[0]} equal solutions, {limited[1]} equal RecursionErrors")
    print(f"CPU seconds: reference {seconds['old']:.2f}, this tree {seconds['new']:.2f}")
    return 0


if __name__ == "__main__":
    run_with_deep_stack(main)
