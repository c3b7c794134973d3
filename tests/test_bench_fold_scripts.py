"""The fold benchmarks run: bench_join_fold.py (both loops) and bench_ab_fold.py, tiny."""

from __future__ import annotations

from tests.script_runs import run_script


def test_bench_join_fold_runs_both_loops() -> None:
    out = run_script("bench_join_fold.py", ["--events", "400", "--repeat", "1"]).stdout
    assert "fold" in out and "worker" in out and "hash" in out


def test_bench_ab_fold_compares_a_tree_with_itself() -> None:
    out = run_script(
        "bench_ab_fold.py", [".", ".", "--rounds", "1", "--events", "400", "--players", "60"]
    ).stdout
    assert out.count("(1.00x)") >= 3  # the first tree's three figures
    assert "wave close of 60 players" in out


def test_bench_ab_fold_measures_the_state_of_a_queued_ticket() -> None:
    out = run_script("bench_ab_fold.py", [".", "--memory", "--events", "400"]).stdout
    lines = out.splitlines()
    assert lines[0] == "state bytes a queued ticket:" and "(1.00x)" in lines[1]
    held = float(lines[1].split(": ")[1].split(" ")[0].replace(",", ""))
    assert 200 < held < 5_000  # a ticket, its player, ids and index entries: not nothing
    assert lines[2] == "memory blocks a queued ticket:"
