"""Regenerate the simulator's committed report and the table of docs/simulator.md.

    .venv/bin/python scripts/sim_report.py          # rewrite docs/sim/* and the table
    .venv/bin/python scripts/sim_report.py --check  # exit 1 if either differs from the code

The report is `wavematch simulate --config docs/sim/standard.toml --report docs/sim`:
seeded, so the same code writes the same figures. tests/sim/test_committed_report.py
runs the check in CI.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streams.cli import main as wavematch  # noqa: E402

SIM = ROOT / "docs" / "sim"
DOC = ROOT / "docs" / "simulator.md"
TABLE = re.compile(r"(<!-- sim-table: [^>]*-->\n)(.*?)(\n\n)", re.S)
#: The report's plots are PNGs embedded in its HTML; their bytes depend on the fonts of
#: the machine that drew them, so the check compares the page without them.
IMAGE = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")
HEADER = (
    "| scenario | variant | matched | left | never matched | wait mean s | p50 | p95 "
    "| rating diff mean | p95 | imbalance | spread | interval s | est. MAE s | est. p90 s |\n"
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def table(figures: dict[str, Any]) -> str:
    """The overall figures of every variant, one row each."""
    rows = [HEADER]
    for scenario in figures["scenarios"]:
        for variant in scenario["variants"]:
            o = variant["overall"]
            cells = [
                o["tickets"]["matched"],
                o["tickets"]["left"],
                o["players_never_matched"],
                *(o["wait_s"][k] for k in ("mean", "p50", "p95")),
                *(o["rating_diff"][k] for k in ("mean", "p95")),
                o["team_imbalance"]["mean"],
                o["in_game_spread"]["mean"],
                o["mean_interval_s"],
                o["estimate_error"]["mae_s"],
                o["estimate_error"]["p90_s"],
            ]
            shown = [str(c) if isinstance(c, int) else f"{c:.1f}" for c in cells]
            rows.append(f"| {scenario['name']} | {variant['variant']} | {' | '.join(shown)} |")
    return "\n".join(rows)


def simulate(out: Path) -> None:
    argv = ["simulate", "--config", str(SIM / "standard.toml"), "--report", str(out), "--quiet"]
    if wavematch(argv) != 0:
        raise SystemExit("the simulation failed")


def differences(fresh: Path) -> list[str]:
    """What of the committed report and table differs from a fresh run's."""
    problems = []
    for name in sorted(p.name for p in fresh.iterdir() if p.suffix in (".json", ".html")):
        committed = SIM / name
        new, old = (fresh / name).read_text(), committed.read_text() if committed.exists() else ""
        if IMAGE.sub("", new) != IMAGE.sub("", old):
            problems.append(f"docs/sim/{name} differs from what the code writes")
    figures = json.loads((fresh / "figures.json").read_text())
    found = TABLE.search(DOC.read_text())
    if found is None or found.group(2) != table(figures):
        problems.append("docs/simulator.md's table differs from the figures")
    return problems


def regenerate() -> None:
    simulate(SIM)
    figures = json.loads((SIM / "figures.json").read_text())
    text = DOC.read_text()
    if TABLE.search(text) is None:
        raise SystemExit("docs/simulator.md has no <!-- sim-table --> marker")
    DOC.write_text(TABLE.sub(lambda m: m.group(1) + table(figures) + m.group(3), text, count=1))


def run() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    if not parser.parse_args().check:
        regenerate()
        return 0
    with tempfile.TemporaryDirectory() as fresh:
        simulate(Path(fresh))
        problems = differences(Path(fresh))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(run())
