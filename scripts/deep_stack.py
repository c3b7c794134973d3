"""Run a script's main() in a thread with a deep stack: proved references and blossom
comparisons nest blossoms thousands deep on large waves."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable


def run_with_deep_stack(main: Callable[[], int]) -> None:
    """Call ``main`` in a thread with a 512 MB stack and exit with its code (1 if it raised).

    A ``SystemExit`` in the thread (argparse's usage error, code 2) keeps its code: a
    thread would otherwise drop it silently.
    """
    sys.setrecursionlimit(1_000_000)
    threading.stack_size(512 * 1024 * 1024)
    outcome: list[int | str | None] = []

    def run() -> None:
        try:
            outcome.append(main())
        except SystemExit as stop:
            outcome.append(stop.code)

    runner = threading.Thread(target=run)
    runner.start()
    runner.join()
    raise SystemExit(outcome[0] if outcome else 1)
