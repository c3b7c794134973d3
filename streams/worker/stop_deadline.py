"""A worker's stop has a deadline: past it the process exits with one line, never hangs."""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable

import faust

log = logging.getLogger(__name__)

#: How long a worker's stop may take: a clean stop flushes, commits and leaves its group
#: in seconds, and an orchestrator kills a process it stopped after 30 s by default.
STOP_DEADLINE_S = 25.0

#: The exit status of a worker whose stop ran out of time (sysexits' internal error).
STOP_OVERRAN = os.EX_SOFTWARE


def exit_after(seconds: float, exit_now: Callable[[int], object] = os._exit) -> threading.Timer:
    """Unless the process has ended by then, log why and exit in ``seconds``.

    A thread, not the event loop: the stop that overruns may be a loop kept busy, and an
    exit from a thread skips the interpreter's shutdown, which would wait on that loop.
    """

    def overrun() -> None:
        log.error(
            "the worker's stop did not end within %.0f s (a task did not finish); exiting "
            "now: the next owner of its partitions re-folds them from the last commit",
            seconds,
        )
        for handler in logging.getLogger().handlers + log.handlers:
            handler.flush()
        sys.stdout.flush()
        sys.stderr.flush()
        exit_now(STOP_OVERRAN)

    timer = threading.Timer(seconds, overrun)
    timer.daemon = True  # a process that ends on time ends with it
    timer.start()
    return timer


class Worker(faust.Worker):
    """Faust's worker, whose stop ends the process within ``STOP_DEADLINE_S``.

    Faust acts on the first Ctrl-C or SIGTERM only; a task that never ends (a client that
    swallowed its cancellation) would keep the process up for good, ignoring every signal
    but SIGKILL.
    """

    async def on_stop(self) -> None:
        exit_after(STOP_DEADLINE_S)
        await super().on_stop()
