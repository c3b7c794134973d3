"""A worker's stop that overruns its deadline ends the process with one line; a process
that ends in time is not held back by the deadline."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.integration.conftest import ROOT

HANGS = """
import logging, time
from streams.worker.stop_deadline import exit_after
logging.basicConfig(level=logging.INFO, format="[%(levelname)s] %(message)s")
exit_after(0.3)
time.sleep(60)
"""

ENDS = """
from streams.worker.stop_deadline import exit_after
exit_after(60)
"""


def _run(code: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30
    )
    return done, time.monotonic() - started


def test_a_stop_past_its_deadline_exits_with_one_line() -> None:
    done, took_s = _run(HANGS)
    assert done.returncode == os.EX_SOFTWARE, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("[ERROR] the worker's stop did not end within")
    assert took_s < 20


def test_a_process_ending_in_time_is_not_held_by_its_deadline() -> None:
    done, took_s = _run(ENDS)
    assert (done.returncode, done.stderr) == (0, "")
    assert took_s < 20
