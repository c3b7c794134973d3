"""Stopping a child process we started: a signal, a grace period, then SIGKILL."""

from __future__ import annotations

import signal
import subprocess
from types import TracebackType


def stop_process(
    process: subprocess.Popen[bytes], timeout_s: float, sig: int = signal.SIGTERM
) -> None:
    """Send ``sig`` and wait up to ``timeout_s``; kill it if it is still running then.

    A process that already exited is left alone (its PID may belong to another by now).
    """
    if process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout_s)


class StopsOnExit:
    """``with started_thing:`` ends by calling its ``stop()``, whatever happened inside."""

    def stop(self) -> None:
        raise NotImplementedError

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
