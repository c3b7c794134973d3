"""Instructions of a benchmark's child process, counted by callgrind inside
``functools.reduce`` only: the one way the scripts count a piece of code.

The child calls what it measures inside ``functools.reduce`` (nothing else in the
measured code calls it) after an uncounted warm-up, so imports, set-up and the
interpreter's start are left out. Instructions do not move with the machine's load.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

#: The one C function callgrind counts inside.
COUNTED = "functools_reduce"


def counted_run(
    valgrind: str,
    child: Sequence[str],
    failure: str,
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[int, str]:
    """Run ``python *child`` under callgrind; return its instructions inside
    :data:`COUNTED` and its stdout. Exits with ``failure`` and valgrind's last words
    when the child fails or callgrind reports no count."""
    command = [
        valgrind,
        "--tool=callgrind",
        "--collect-atstart=no",
        f"--toggle-collect={COUNTED}",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        *child,
    ]
    run = subprocess.run(command, capture_output=True, text=True, check=False, cwd=cwd, env=env)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode or found is None:
        sys.exit(f"{failure}: valgrind failed: {run.stderr[-800:]}")
    return int(found.group(1)), run.stdout
