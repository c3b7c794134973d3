"""Running a script of scripts/ as the smoke tests do: this Python, output captured, no
terminal input, a bound on its time, and the exit code it must give."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_script(
    script: str,
    arguments: Sequence[str],
    *,
    returncode: int = 0,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """``scripts/SCRIPT`` run with ``arguments`` in ``cwd``; it must exit ``returncode``."""
    run = subprocess.run(
        [sys.executable, f"scripts/{script}", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == returncode, (script, run.returncode, run.stderr[-2000:])
    return run
