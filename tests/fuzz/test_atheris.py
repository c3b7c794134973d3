"""The coverage-guided fuzzer, run for a bounded time: no case of the worker's per-record
path crashes or breaks its promise (scripts/fuzz_worker_path.py runs it longer)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Inside the suite's one-minute budget for this test, with the start-up (~5 s) on top.
SECONDS = 45


@pytest.mark.timeout(120)
def test_the_fuzzer_finds_no_crash_in_a_bounded_run(tmp_path: Path) -> None:
    pytest.importorskip("atheris")
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "fuzz_worker_path.py"),
            f"--seconds={SECONDS}",
            f"--corpus={tmp_path / 'corpus'}",
            f"--artifacts={tmp_path / 'artifacts'}",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=110,
    )
    report = run.stderr[-4000:]
    assert run.returncode == 0, report
    assert "Done " in run.stderr and not list((tmp_path / "artifacts").iterdir()), report
