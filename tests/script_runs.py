"""Running a script of scripts/ as the smoke tests do: this Python, output captured, no
terminal input, a bound on its time, the exit code it must give, and nothing left in the
temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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
    """``scripts/SCRIPT`` run with ``arguments`` in ``cwd``; it must exit ``returncode``
    and leave its temporary folder (``TMPDIR``, a fresh one per run) empty."""
    with tempfile.TemporaryDirectory(prefix="script-run-") as scratch:
        run = subprocess.run(
            [sys.executable, f"scripts/{script}", *arguments],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**(os.environ if env is None else env), "TMPDIR": scratch},
            stdin=subprocess.DEVNULL,
        )
        assert run.returncode == returncode, (script, run.returncode, run.stderr[-2000:])
        left = sorted(path.name for path in Path(scratch).iterdir())
        assert not left, (script, "left in its temporary folder", left)
    return run
