"""CPU the wave timer spends on size-triggered regions while no wave is due.

A size-triggered region this worker holds re-reads its folded state every
``SIZE_POLL_S`` (docs/adr/0183); this measures what that costs a worker: three such
regions for ``--seconds`` of wall time, nothing to send.

    .venv/bin/python scripts/bench_size_timer.py --seconds 5
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matcher.queue.book import QueueBook
from scripts.machine import machine_line
from streams.settings import Settings
from streams.worker.ticker import Ticker

REGIONS = ("eu", "na", "asia")


async def measure(seconds: float) -> tuple[float, float]:
    queue = {"name": "1v1", "regions": list(REGIONS), "cadence": "size"}
    settings = Settings(queues=[queue | {"wave_interval_ms": 3_600_000}])
    book = QueueBook(settings.profiles(), settings.regions_by_queue(), cadences=settings.cadences())
    for region in REGIONS:  # held here, empty: every poll reads a state, none is due
        book.region_queue("1v1", region)

    async def send(partition: int, key: bytes, value: bytes) -> None:
        raise AssertionError("no wave is due")

    owned = set(range(settings.partitions))
    task = asyncio.ensure_future(Ticker(settings, send, lambda: owned, book.region_queue).run())
    cpu, wall = time.process_time(), time.monotonic()
    await asyncio.sleep(seconds)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    task.cancel()
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    print(machine_line())
    cpu, wall = asyncio.run(measure(args.seconds))
    print(f"{len(REGIONS)} size-triggered regions: {cpu * 1000:.0f} ms CPU in {wall:.1f} s")
    print(f"per region: {cpu / wall / len(REGIONS) * 100:.2f} % of a core")


if __name__ == "__main__":
    main()
