"""Every measuring script runs once with tiny inputs: a script nobody runs rots.

The scripts behind figures in docs/ that are not benchmarks (``scripts/bench_*.py`` run in
tests/test_bench_scripts.py and tests/test_bench_fold_scripts.py): audits, simulations,
hashes, a hostile load. Each must exit 0 and print what it measures in the form its
docstring describes, so a crash or nonsense fails here, not when someone next needs it.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.script_runs import ROOT, run_script


def test_audit_duel_finds_the_optimum_on_a_tiny_wave() -> None:
    shown = run_script("audit_duel.py", ["--players", "30", "--seeds", "1"]).stdout
    assert "seed 1: pairs 14/14, " in shown, shown
    assert "MISSES THE BAR" not in shown, shown
    assert "benchmark mix, 30 players, 1 seeds: 0 missing the bar;" in shown, shown


def test_audit_duel_draws_the_oracle_s_distributions() -> None:
    """``--mix`` named after a distribution of tests/oracle draws its wave as the oracle
    suite does (its maps: a vetoing player's pairs are judged on them)."""
    arguments = ["--mix", "tied_two_ratings", "--players", "30", "--seeds", "1"]
    shown = run_script("audit_duel.py", arguments).stdout
    assert "tied_two_ratings mix, 30 players, 1 seeds: 0 missing the bar;" in shown, shown
    assert re.search(r"seed 1: pairs (\d+)/\1, ", shown), shown


def test_audit_duel_fails_when_a_seed_misses_the_bar(tmp_path: Path) -> None:
    """A recorded optimum one pair above what ``optimal`` finds is a miss: exit 1."""
    reference = tmp_path / "reference.jsonl"
    reference.write_text(
        '{"mix": "benchmark", "n": 30, "seed": 1, "reference": [15, 34.0, 85.4]}\n'
    )
    arguments = ["--players", "30", "--seeds", "1", "--reference", str(reference)]
    run = run_script("audit_duel.py", arguments, returncode=1)
    assert "seed 1: pairs 14/15, " in run.stdout and "MISSES THE BAR" in run.stdout, run.stdout
    assert "1 seeds: 1 missing the bar;" in run.stdout, run.stdout


def test_audit_refusing_rules_takes_the_large_tier_to_the_maximum() -> None:
    """60 players with the exact tier lowered to 20: the large tier under a latency
    limit and block lists makes every wave's maximum, within the bar."""
    arguments = ["--players", "60", "--seeds", "1", "--exact-limit", "20", "--blocks"]
    shown = run_script("audit_refusing_rules.py", arguments).stdout
    rows = [line for line in shown.splitlines() if " 60 1 | " in line]
    assert len(rows) == 4, shown
    for row in rows:
        made, most = row.split(" | ")[1].split()
        assert made == most and int(most) > 10, row
    assert shown.rstrip().endswith("0 wave(s) missed the bar"), shown


def test_audit_placement_ladder_compares_each_wave_with_the_exact_optimum() -> None:
    """150 new-player-heavy players with the exact tier lowered to 20: a row per seed,
    the large tier making the maximum and the optimum's own figures beside its own."""
    arguments = ["--players", "150", "--seeds", "1-2", "--population", "newbie"]
    arguments += ["--exact-limit", "20", "--blocks"]
    shown = run_script("audit_placement_ladder.py", arguments).stdout
    rows = [line for line in shown.splitlines() if line.startswith("newbie 150 ")]
    assert len(rows) == 2, shown
    for row in rows:
        made, most = row.split(" | ")[1].split()
        assert made == most and int(most) > 50, row
    assert shown.rstrip().endswith("0 wave(s) missed the bar"), shown


def test_choice_sniping_prints_a_row_per_variant_the_same_twice() -> None:
    arguments = ["--waves", "3", "--queued", "12", "--scales", "25"]
    shown = run_script("choice_sniping.py", arguments).stdout
    rows = [line for line in shown.splitlines() if line.startswith("| 12 |")]
    assert [row.split(" | ")[1] for row in rows] == ["default", "weighted 25"], shown
    for row in rows:
        success = row.split(" | ")[2]
        assert success.endswith("%") and 0 <= float(success[:-1]) <= 100, row
    # Seeded: the same arguments must print the same table.
    assert run_script("choice_sniping.py", arguments).stdout == shown


def test_skill_dimensions_quality_prints_a_row_per_variant() -> None:
    shown = run_script("skill_dimensions_quality.py", ["--waves", "2", "--tickets", "20"]).stdout
    assert shown.startswith("2 waves of 20 tickets from scenario 'skill'"), shown
    rows = {
        cells[0]: cells[1:]
        for line in shown.splitlines()
        if line.startswith("| ") and not line.startswith("| variant")
        for cells in [line.strip("| \n").split(" | ")]
    }
    assert set(rows) == {"offline (default, rating = any)", "skill_dimensions"}, shown
    for variant, (matches, *means) in rows.items():
        assert int(matches) > 0, (variant, shown)
        assert all(float(mean) >= 0 for mean in means), (variant, shown)


def test_hash_wave_sessions_prints_four_digests_the_same_on_two_runs() -> None:
    """Its one use is comparing two runs: the second run names this checkout as its TREE
    and gets another hash seed, so output that depends on set order shows here."""
    first = run_script(
        "hash_wave_sessions.py", [], env={**os.environ, "PYTHONHASHSEED": "1"}
    ).stdout
    second = run_script(
        "hash_wave_sessions.py", [str(ROOT)], env={**os.environ, "PYTHONHASHSEED": "2"}
    ).stdout
    sessions = [line.split(" ") for line in first.splitlines()]
    names = [name for name, _ in sessions]
    assert names == ["optimal-mixed", "ladder-mixed", "optimal-big", "optimal-servers"], first
    digests = [digest for _, digest in sessions]
    assert all(re.fullmatch("[0-9a-f]{64}", digest) for digest in digests), first
    assert len(set(digests)) == 4, first
    assert second == first


def _golden_copy(tmp_path: Path) -> Path:
    """A tree holding make_golden.py and the schemas package: the script writes under
    its own tree's schemas/golden, so a faulty run cannot touch the repository's."""
    shutil.copytree(
        ROOT / "schemas", tmp_path / "schemas", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "make_golden.py", tmp_path / "scripts")
    return tmp_path


def _files(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def _make_golden(tree: Path) -> str:
    return run_script("make_golden.py", [], cwd=tree).stdout


def test_make_golden_writes_nothing_when_every_golden_file_exists(tmp_path: Path) -> None:
    tree = _golden_copy(tmp_path)
    golden = tree / "schemas" / "golden"
    before = _files(golden)
    assert before == _files(ROOT / "schemas" / "golden")
    assert _make_golden(tree) == ""
    assert _files(golden) == before


def test_make_golden_writes_a_missing_file_and_never_overwrites(tmp_path: Path) -> None:
    tree = _golden_copy(tmp_path)
    golden = tree / "schemas" / "golden"
    (golden / "TicketJoined" / "solo.avro").unlink()
    tampered = golden / "MatchProposed" / "duel.json"
    tampered.write_bytes(b"not what make_golden would write\n")
    before = _files(golden)
    wrote = _make_golden(tree)
    assert wrote.splitlines() == ["wrote schemas/golden/TicketJoined/solo.avro"], wrote
    after = _files(golden)
    assert after.pop("TicketJoined/solo.avro")
    assert after == before


def test_make_golden_writes_every_committed_golden_file_again_byte_for_byte(
    tmp_path: Path,
) -> None:
    """Into an empty folder the script writes exactly the committed golden files: a case
    that drifted from its file, or a file with no case, would otherwise hide behind the
    rule of never overwriting."""
    tree = _golden_copy(tmp_path)
    golden = tree / "schemas" / "golden"
    shutil.rmtree(golden)
    golden.mkdir()
    _make_golden(tree)
    written = _files(golden)
    committed = _files(ROOT / "schemas" / "golden")
    not_written = sorted(committed.keys() - written.keys())
    assert not_written == [], f"committed, but not written: {not_written}"
    not_committed = sorted(written.keys() - committed.keys())
    assert not_committed == [], f"written, but not committed: {not_committed}"
    differing = sorted(name for name in committed if written[name] != committed[name])
    assert differing == [], f"written with other bytes than committed: {differing}"


def test_hostile_load_loses_no_valid_join_and_stops_no_worker() -> None:
    shown = run_script("hostile_load.py", ["--hostile", "60", "--valid", "20"]).stdout
    assert "valid joins lost      0 of 20\n" in shown, shown
    lettered = re.search(r"^exactly one letter    (\d+) of (\d+) \(100\.00 %\)", shown, re.M)
    assert lettered and lettered[1] == lettered[2] != "0", shown
    assert "letters for applied records: 0\n" in shown, shown
    assert "worker exits          0 (up alive: True)\n" in shown, shown
    closing = re.search(
        r"^regions closing waves after the load: (\[.*\]) of (\[.*\])$", shown, re.M
    )
    assert closing, shown
    closed, regions = (ast.literal_eval(listed) for listed in closing.groups())
    assert sorted(closed) == sorted(regions) == ["asia", "eu", "na"], shown


@pytest.mark.parametrize("strategy", ["optimal", "ladder-v2.1"])
def test_count_instructions_runs_its_counted_child(strategy: str) -> None:
    """The child is what callgrind counts (valgrind is not installed in CI), so it runs
    here bare: it must run, and print nothing, the parent printing the count."""
    arguments = ["--child-seed", "1", "--players", "30", "--strategy", strategy, "--calls", "1"]
    assert run_script("count_instructions.py", arguments).stdout == ""


def test_count_instructions_without_valgrind_stops_in_one_line(tmp_path: Path) -> None:
    run = run_script(
        "count_instructions.py",
        ["--players", "30", "--seeds", "1"],
        returncode=2,
        env={**os.environ, "PATH": str(tmp_path)},  # an empty directory: no valgrind on it
    )
    assert run.stdout == "", run.stdout
    assert "Traceback" not in run.stderr, run.stderr
    last = run.stderr.splitlines()[-1]
    assert last == (
        "count_instructions.py: error: valgrind is not installed (Debian: apt-get install valgrind)"
    ), run.stderr


def test_measure_adaptive_brackets_prints_every_variant_and_region() -> None:
    shown = run_script("measure_adaptive_brackets.py", ["--duration-s", "300"]).stdout
    scenario = tomllib.loads((ROOT / "docs" / "sim" / "ideas-windows.toml").read_text())
    scenario = scenario["scenario"][0]
    regions = ["all", *(region["name"] for region in scenario["region"])]
    line = re.compile(rf"(.+?) +({'|'.join(regions)}) +matched +(\d+) wait p50 ")
    matched: dict[str, dict[str, int]] = {}
    for printed in shown.splitlines():
        found = line.match(printed)
        assert found, printed
        variant, region, tickets = found.groups()
        assert region not in matched.setdefault(variant, {}), printed
        matched[variant][region] = int(tickets)
    variants = [variant["name"] for variant in scenario["variant"]]
    assert set(variants) | {"knn-2", "brackets-2", "percentile 2.5"} <= set(matched), shown
    for variant, by_region in matched.items():
        assert set(by_region) == set(regions), (variant, shown)
        assert by_region["all"] == sum(by_region[r] for r in regions[1:]) > 0, (variant, shown)
