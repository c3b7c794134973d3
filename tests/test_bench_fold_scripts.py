"""The fold benchmarks run: bench_join_fold.py (both loops) and bench_ab_fold.py, tiny."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> str:
    run = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def test_bench_join_fold_runs_both_loops() -> None:
    out = _run("scripts/bench_join_fold.py", "--events", "400", "--repeat", "1")
    assert "fold" in out and "worker" in out and "hash" in out


def test_bench_ab_fold_compares_a_tree_with_itself() -> None:
    out = _run(
        "scripts/bench_ab_fold.py", ".", ".", "--rounds", "1", "--events", "400", "--players", "60"
    )
    assert out.count("(1.00x)") >= 3  # the first tree's three figures
    assert "wave close of 60 players" in out


def test_bench_ab_fold_measures_the_state_of_a_queued_ticket() -> None:
    out = _run("scripts/bench_ab_fold.py", ".", "--memory", "--events", "400")
    lines = out.splitlines()
    assert lines[0] == "state bytes a queued ticket:" and "(1.00x)" in lines[1]
    held = float(lines[1].split(": ")[1].split(" ")[0].replace(",", ""))
    assert 200 < held < 5_000  # a ticket, its player, ids and index entries: not nothing
    assert lines[2] == "memory blocks a queued ticket:"
