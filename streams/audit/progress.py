"""A dependency-free progress bar on stderr, for long replays and simulations."""

from __future__ import annotations

import sys
import time
from typing import Any


class Progress:
    def __init__(self, total: int, label: str, enabled: bool = True, width: int = 30) -> None:
        self.total, self.label, self.enabled, self.width = max(total, 1), label, enabled, width
        self.done = 0
        self._last_draw = 0.0
        self._started = time.monotonic()

    def step(self, _item: Any = None, amount: int = 1) -> None:
        self.done += amount
        now = time.monotonic()
        if self.enabled and (now - self._last_draw > 0.1 or self.done >= self.total):
            self._last_draw = now
            filled = int(self.width * min(1.0, self.done / self.total))
            rate = self.done / max(now - self._started, 1e-9)
            sys.stderr.write(
                f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
                f"{self.done}/{self.total} ({rate:,.0f}/s)"
            )
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
