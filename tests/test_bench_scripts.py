"""Every ``scripts/bench_*.py`` runs: each once with tiny inputs (issue 31).

A benchmark nobody runs rots (``bench_join_fold.py`` crashed for a session unnoticed).
The in-memory ones run here, a few seconds each; two that start the embedded broker run
with a few hundred events. The fold benchmarks have their own file
(tests/test_bench_fold_scripts.py). Each must exit 0 and print what it measures.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.script_runs import ROOT, run_script

#: (script, tiny arguments, a text its output must hold).
IN_MEMORY = [
    ("bench_ab_optimal.py", [".", "--rounds", "1", "--players", "40"], "(1.00x)"),
    ("bench_ab_teams.py", [".", ".", "--rounds", "1", "--tickets", "60"], "(1.000x)"),
    (
        "bench_ab_searches.py",
        [".", ".", "--rounds", "1", "--events", "400", "--players", "60", "--base-searches"],
        "per searching join",
    ),
    ("bench_backfill.py", ["--tickets", "50", "--repeat", "1"], "ms"),
    ("bench_checker.py", ["--players", "40", "--seeds", "1", "--repeat", "1"], "ms"),
    ("bench_codec.py", ["--number", "20", "--repeat", "1"], "us"),
    ("bench_role_memory.py", ["--ticks", "2", "--players", "12"], "unseatable players"),
    ("bench_role_catchup.py", ["--seconds", "3", "--rate", "10"], "a second of log"),
    ("bench_duel.py", ["--sizes", "30", "--exact-up-to", "30", "--ladder-up-to", "30"], "|"),
    ("bench_duel_small.py", ["--seeds", "1"], "ms"),
    ("bench_duel_checks.py", [".", "--rounds", "1", "--players", "40"], "ratio to base"),
    (
        "bench_gamequeue_rebuild.py",
        ["--sizes", "40", "--full", "40", "--repeat", "1"],
        "rebuild share",
    ),
    (
        "bench_duel_ties.py",
        [
            "--mix",
            "tied",
            "--players",
            "30",
            "--seeds",
            "1",
            "--exact-up-to",
            "30",
            "--maximum-up-to",
            "30",
        ],
        "30",
    ),
    ("bench_multifactor.py", ["--quick", "--seeds", "1", "--repeats", "1", "--sizes", "20"], "|"),
    ("bench_rules.py", ["50"], "players=50"),
    (
        "bench_duel_refusing.py",
        ["--baseline", ".", "--players", "60", "--distributions", "tied", "--exact-limit", "20"],
        "| yes",
    ),
    ("bench_size_timer.py", ["--seconds", "1"], "of a core"),
    ("bench_snapshot.py", ["--waves", "2", "--per-wave", "20"], "ms"),
    ("bench_teams.py", ["--quick", "--repeat", "1"], "|"),
    ("bench_wave_close.py", ["--players", "40", "--repeat", "1"], "ms"),
    ("bench_wave_thread.py", ["--players", "40", "--rounds", "1"], "thread/loop CPU"),
]
#: Scripts that start the embedded broker (or time the CLI's start): slower, run once.
WITH_BROKER = [
    ("bench_direct_fold.py", ["--events", "200"], "fold"),
    ("bench_cli.py", ["--rounds", "1"], "{"),
    ("bench_start.py", ["--rounds", "1"], "ready_s"),
]
#: Covered elsewhere or too long for a smoke run, and why.
NOT_HERE = {
    "bench_ab_fold.py": "tests/test_bench_fold_scripts.py",
    "bench_join_fold.py": "tests/test_bench_fold_scripts.py",
    "bench_brokers.py": "starts Tansu and Apache Kafka in turn (minutes); run by hand",
    "bench_outage.py": "cuts a proxy for a wave of seconds (minutes); run by hand",
    "bench_worker.py": "test_the_worker_backlog_counts_only_the_joins_it_measured, below",
}


def test_every_bench_script_is_run_here_or_named_with_a_reason() -> None:
    listed = {script for script, _, _ in IN_MEMORY + WITH_BROKER} | set(NOT_HERE)
    present = {path.name for path in (ROOT / "scripts").glob("bench_*.py")}
    assert present - listed == set(), "a new benchmark needs a smoke run here"
    assert listed - present == set(), "a listed benchmark is gone"


@pytest.mark.parametrize(("script", "arguments", "shown"), IN_MEMORY, ids=lambda v: str(v))
def test_an_in_memory_benchmark_runs_tiny(script: str, arguments: list[str], shown: str) -> None:
    assert shown in run_script(script, arguments).stdout


@pytest.mark.parametrize(("script", "arguments", "shown"), WITH_BROKER, ids=lambda v: str(v))
def test_a_broker_benchmark_runs_tiny(script: str, arguments: list[str], shown: str) -> None:
    assert shown in run_script(script, arguments).stdout


def test_the_rules_wave_close_times_a_wave_that_makes_matches() -> None:
    """``--rules`` times the second wave, whose players all met someone in the first: at a
    few dozen players their rematch and young windows leave no pair, so the smoke run is
    big enough for the timed close to match."""
    shown = run_script(
        "bench_wave_close.py", ["--players", "300", "--repeat", "1", "--rules", "--breakdown"]
    ).stdout
    result = json.loads(shown.strip().splitlines()[-1])
    assert result["players_in_snapshot"] == 300, result
    assert result["matches"] > 0 and result["strategy_cpu_ms"] > 0, result


def test_the_worker_backlog_counts_only_the_joins_it_measured() -> None:
    """A backlog of a few hundred joins with 1-s waves: the worker folds some or all of it
    before it reports its partitions, and appends its own ticks after it. The joins
    counted are those of the backlog folded while measured, never fewer than none; when
    none were left, the rates are null and the script says why, instead of dividing by
    zero (or by a negative count, which printed negative rates)."""
    pin = ["--pin"] if len(os.sched_getaffinity(0)) > 1 else []
    run = run_script("bench_worker.py", ["backlog", "--events", "200", "--raw", *pin])
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert 0 <= result["events_measured"] <= 200, result
    figures = ("events_per_s", "worker_cpu_us_per_event", "ratio_to_raw_batch")
    if result["events_measured"]:
        # A handful of joins can take less than the CPU clock's tick: zero, never less.
        assert all(result[name] >= 0 for name in figures), result
    else:
        assert all(result[name] is None for name in figures), result
        assert "no rate was measured (give more --events)" in run.stderr
    assert all(rate > 0 for rate in result["raw_batch_per_s"]), result


@pytest.mark.parametrize("workload", ["1v1", "roles"])
def test_the_worker_failover_counts_the_killed_workers_cpu(workload: str) -> None:
    """``failover`` SIGKILLs one of two workers: its CPU up to the kill stays counted (a
    reaped worker has no /proc entry: it read 0 s, and the CPU per event came out
    negative), and the records folded per second do not go back while its partitions
    have no live owner (they came out negative when the run ended before the takeover)."""
    arguments = ["failover", "--workers", "2", "--rate", "100", "--seconds", "2"]
    run = run_script(
        "bench_worker.py", [*arguments, "--session-timeout-ms", "3000", "--workload", workload]
    )
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["mode"] == "failover" and result["published"] == 200, result
    assert result["workload"] == workload and result["waves"] > 0, result
    assert result["worker_cpu_us_per_event"] > 0, result
    assert result["folded_per_s"] is None or result["folded_per_s"] > 0, result


def test_the_checks_ab_runs_on_a_base_tree_without_numeric_attributes(tmp_path: Path) -> None:
    """``bench_duel_checks.py BASE_TREE``: a checkout before checks were honoured, such as
    8456cde, has players without ``numbers`` (the level); its wave is the same players
    without it. This tree's matcher without that field stands for such a tree here."""
    shutil.copytree(
        ROOT / "matcher", tmp_path / "matcher", ignore=shutil.ignore_patterns("__pycache__")
    )
    core = tmp_path / "matcher" / "core.py"
    field = "    numbers: tuple[tuple[str, float], ...] = ()\n"
    assert field in core.read_text()
    core.write_text(core.read_text().replace(field, ""))
    shown = run_script(
        "bench_duel_checks.py", [str(tmp_path), "--rounds", "1", "--players", "40"]
    ).stdout
    assert re.search(r"^base +median .* matches \d+  ratio to base 1\.000$", shown, re.M), shown
    assert re.search(r"^sort +median .* ratio to base \d", shown, re.M), shown


def test_the_rules_ab_hashes_the_same_decisions_alike() -> None:
    """``bench_rules.py --ab`` with this tree as base and before: each rule set's
    variants decide alike, so their decision hashes agree (and today's and the full
    set's differ: the hash reads the decisions)."""
    shown = run_script(
        "bench_rules.py", ["--ab", ".", "--rounds", "1", "--players", "60", "--before", "."]
    ).stdout
    for strategy in ("rebalance", "game-queue"):
        hashes = {
            line.split()[1] + " " + line.split()[2]: line.rsplit("decisions ", 1)[1]
            for line in shown.splitlines()
            if line.startswith(strategy + " ") and "decisions" in line
        }
        assert len(hashes) == 5, shown
        assert hashes["base today"] == hashes["this today"] == hashes["prev today"], hashes
        assert hashes["this full"] == hashes["prev full"] != hashes["this today"], hashes
        assert f"{strategy:10s} full set x" in shown, shown


def test_the_counted_rules_close_decides_as_the_timed_one() -> None:
    """``--instructions`` counts each variant's ``--counted`` close under valgrind (not
    installed here): that close must be the timed one's, the same decisions."""
    for strategy, variant in (("rebalance", "full"), ("game-queue", "today")):
        arguments = [".", strategy, variant, "60"]
        timed = json.loads(
            run_script("bench_rules.py", ["--child", *arguments]).stdout.splitlines()[-1]
        )
        counted = json.loads(
            run_script("bench_rules.py", ["--counted", *arguments]).stdout.splitlines()[-1]
        )
        assert counted["decisions"] == timed["decisions"], (strategy, variant, counted, timed)


def test_the_rules_duel_ab_runs_both_sides() -> None:
    shown = run_script("bench_rules.py", ["--duel-ab", ".", "--rounds", "1", "40"]).stdout
    assert "ratio new/base" in shown, shown


#: Scripts that do not refuse an unknown argument, and why (those without argparse take
#: no arguments at all).
TAKE_ANY_ARGUMENT = {
    "allocator_setting.py": "a helper the benchmarks import; it runs nothing",
    "fuzz_worker_path.py": "hands the arguments it does not know to libFuzzer",
}


@pytest.mark.parametrize(
    "script",
    sorted(
        p.name
        for p in (ROOT / "scripts").glob("*.py")
        if p.name not in TAKE_ANY_ARGUMENT and "argparse" in p.read_text()
    ),
)
def test_a_script_refuses_an_unknown_argument_in_one_line(script: str) -> None:
    """A mistyped flag gets argparse's usage and one error line, exit 2, no traceback."""
    run = run_script(script, ["--no-such-flag"], returncode=2, timeout=120)
    assert "Traceback" not in run.stderr, run.stderr[-800:]
    assert run.stderr.splitlines()[-1].startswith(f"{script}: error: "), run.stderr
