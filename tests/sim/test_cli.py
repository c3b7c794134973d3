"""`wavematch simulate`: the report it writes, and one-line errors on a bad config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streams.cli import main

TINY = """
seed = 3
[[scenario]]
name = "tiny 2v2"
queue = "2v2"
team_size = 2
duration_s = 300
[[scenario.region]]
name = "eu"
sessions_per_hour = 600
[[scenario.variant]]
name = "fixed"
strategy = "rebalance"
[[scenario.variant]]
name = "pop"
strategy = "rebalance"
cadence = "pop"
floor_ms = 2000
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sim.toml"
    path.write_text(text)
    return path


def test_writes_html_pngs_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["simulate", "--config", str(write(tmp_path, TINY)), "--report", str(out)]) == 0
    captured = capsys.readouterr()
    assert "simulating" in captured.err and "600/600" in captured.err  # the progress bar
    figures = json.loads((out / "figures.json").read_text())
    (scenario,) = figures["scenarios"]
    assert [v["variant"] for v in scenario["variants"]] == ["fixed", "pop"]
    fixed = scenario["variants"][0]["overall"]
    assert fixed["matches"] > 0 and fixed["wait_s"]["p95"] >= fixed["wait_s"]["p50"] > 0
    assert set(scenario["variants"][0]["regions"]) == {"eu"}
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == [
        "tiny-2v2-quality.png",
        "tiny-2v2-queue_length.png",
        "tiny-2v2-wait_cdf.png",
        "tiny-2v2-wait_vs_quality.png",
    ]
    assert all((out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for name in pngs)
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 4 and "wait p95 s" in page


def test_same_config_same_report(tmp_path: Path) -> None:
    config = str(write(tmp_path, TINY))
    for name in ("a", "b"):
        out = str(tmp_path / name)
        assert main(["simulate", "--config", config, "--report", out, "--quiet"]) == 0
    for name in ("figures.json", "report.html", "tiny-2v2-wait_cdf.png"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "--config: "),
        ("seed = [", "is not valid TOML"),
        ("seed = 1", "scenario: at least one [[scenario]] is required"),
        (TINY.replace("seed = 3", 'seed = "x"'), "seed: must be an integer"),
        (
            TINY.replace("sessions_per_hour = 600", "sessions_per_hour = -1"),
            "scenario[0].region[0].sessions_per_hour: must be between",
        ),
        (
            TINY.replace('strategy = "rebalance"\n[', 'strategy = "nope"\n['),
            "scenario[0].variant[0].strategy: unknown strategy 'nope'",
        ),
        (
            TINY.replace('cadence = "pop"', 'cadence = "often"'),
            "scenario[0].variant[1].mode: must be 'fixed', 'pop' or 'size'",
        ),
        (
            TINY.replace("floor_ms = 2000", "floor_ms = 2000\ncap_ms = 1000"),
            "scenario[0].variant[1].cap_ms: must be >= floor_ms",
        ),
        (
            TINY.replace("team_size = 2", "team_size = 2\ncolour = 1"),
            "scenario[0].colour: unknown field",
        ),
        (
            TINY.replace(
                'strategy = "rebalance"\n[', 'strategy = "rebalance"\noptions = {method = "x"}\n['
            ),
            "scenario[0].variant[0]: options.method: ",
        ),
        (
            TINY.replace(
                'strategy = "rebalance"\n[', 'strategy = "rebalance"\nrules = {max_sprad = 1}\n['
            ),
            "scenario[0].variant[0]: rules.max_sprad: unknown rule",
        ),
    ],
)
def test_bad_config_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None, message: str
) -> None:
    config = tmp_path / "missing.toml" if text is None else write(tmp_path, text)
    code = main(["simulate", "--config", str(config), "--report", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("wavematch simulate: error: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_report_path_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["simulate", "--config", str(write(tmp_path, TINY)), "--report", str(blocker)]) == 2
    assert "--report: " in capsys.readouterr().err


def test_a_variant_with_rules_runs_and_makes_only_allowed_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ruled = TINY.replace(
        'name = "pop"', 'name = "ruled"\nrules = {rating = "any", max_team_gap = 100}', 1
    )
    out = tmp_path / "out"
    assert main(["simulate", "--config", str(write(tmp_path, ruled)), "--report", str(out)]) == 0
    capsys.readouterr()
    (scenario,) = json.loads((out / "figures.json").read_text())["scenarios"]
    assert [v["variant"] for v in scenario["variants"]] == ["fixed", "ruled"]
    assert scenario["variants"][1]["overall"]["matches"] > 0
