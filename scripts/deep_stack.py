"""Run a script's main() in a thread with a deep stack: proved references and blossom
comparisons nest blossoms thousands deep on large waves."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable


def run_with_deep_stack(main: Callable[[], int]) -> None:
    """Call ``main`` in a thread with a 512 MB stack and exit with its code (1 if it raised)."""
    sys.setrecursionlimit(1_000_000)
    threading.stack_size(512 * 1024 * 1024)
    outcome: list[int] = []
    runner = threading.Thread(target=lambda: outcome.append(main()))
    runner.start()
    runner.join()
    raise SystemExit(outcome[0] if outcome else 1)
