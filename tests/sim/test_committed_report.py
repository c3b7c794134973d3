"""The committed simulator report (docs/sim/) and docs/simulator.md's table are what the
code writes today (issue 33: they differed in hundreds of values). The standard scenario
runs in full (about 16 s of CPU); the plots are compared inside the HTML page only as far
as their bytes do not depend on the machine's fonts (scripts/sim_report.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("sim_report", ROOT / "scripts" / "sim_report.py")
assert spec is not None and spec.loader is not None
sim_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sim_report)


def test_the_committed_report_is_what_the_code_writes(tmp_path: Path) -> None:
    sim_report.simulate(tmp_path)
    assert sim_report.differences(tmp_path) == []


def test_the_check_sees_a_changed_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    committed = tmp_path / "committed"
    committed.mkdir()
    for name in ("figures.json", "report.html"):
        (committed / name).write_text((sim_report.SIM / name).read_text())
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "report.html").write_text((committed / "report.html").read_text())
    figures = (committed / "figures.json").read_text()
    (fresh / "figures.json").write_text(figures.replace('"matches": ', '"matches": 1', 1))
    monkeypatch.setattr(sim_report, "SIM", committed)
    assert (
        sim_report.differences(fresh)[0]
        == "docs/sim/figures.json differs from what the code writes"
    )
