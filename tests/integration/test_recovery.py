"""Recovery is exact, every time: a SIGKILLed worker's successor rebuilds every queued
ticket from the snapshot table (recovered from its changelog; on the embedded broker the
end-offset answer needs the workaround of ADR 0004) plus the log after it."""

from __future__ import annotations

import random
import re
import signal
import time

import pytest

from schemas.topics import QUEUE, queue_key
from streams.audit.topics import committed_offsets
from streams.settings import load_settings
from tests.integration.conftest import run, wait_until
from tests.integration.kafka import produce
from tests.integration.traffic import REGIONS, join_body

pytestmark = pytest.mark.integration

# Waves close every 2 s, but every player offers only BW, so no pair is ever legal and
# every join stays queued: the expected state is simply every ticket. (An hourly timer
# looked quieter, but it ticks on the hour, mid-test.) A successor that only knows the
# snapshot when it starts catches up to the committed offset at its first record - at
# the latest the next tick. Snapshots are due every max(50, queued tickets) events.
CONFIG = f"""
partitions = 4
snapshot_min_events = 50
ticket_ttl_ms = 86400000
finished_retention_ms = 86400000
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = {list(REGIONS)!r}
wave_interval_ms = 2000
"""


def all_committed(worker, bootstrap: str, group: str) -> bool:  # type: ignore[no-untyped-def]
    """Whether the group committed every record ``worker`` folded. A commit follows the
    producer's flush, so the snapshots written while folding them are in the log too: a
    SIGKILL after this cannot lose them."""
    applied = {int(row["partition"]): int(row["applied_offset"]) for row in worker.queues()}
    committed = run(committed_offsets(bootstrap, group, QUEUE.name))
    return all(committed.get(partition, 0) > offset for partition, offset in applied.items())


def queued(worker) -> int:  # type: ignore[no-untyped-def]
    try:
        return sum(int(row["tickets"]) for row in worker.queues())
    except OSError:
        return -1


@pytest.mark.wavematch_config(CONFIG)
def test_every_row_is_back_after_each_sigkill(broker, worker_factory) -> None:  # type: ignore[no-untyped-def]

    rng = random.Random(5)
    total = 0
    group = load_settings(worker_factory.config).queue_group
    worker = worker_factory.start()
    for round_number in range(3):
        batch = []
        for _ in range(700):
            region = REGIONS[total % len(REGIONS)]
            batch.append(
                (
                    queue_key("1v1", region),
                    join_body(
                        f"r{total}",
                        region,
                        rng,
                        int(time.time() * 1000),
                        ratings={"bw": rng.randint(1000, 2000)},
                    ),
                )
            )
            total += 1
        produce(broker.bootstrap, batch)
        wait_until(lambda w=worker, n=total: queued(w) == n, 60, f"{total} tickets queued")
        # Between folding a batch and committing it a worker is mid-flush; killed there,
        # its successor rightly rebuilds from the log, but this test is about snapshots.
        wait_until(
            lambda w=worker: all_committed(w, broker.bootstrap, group), 60, "the batch committed"
        )
        worker.stop(signal.SIGKILL)
        worker = worker_factory.start()
        wait_until(
            lambda w=worker, n=total: queued(w) == n,
            90,
            f"all {total} tickets back after SIGKILL number {round_number + 1}",
            alive=lambda w=worker: w.process.poll() is None,
        )
        loaded = [
            int(offset)
            for offset in re.findall(r"state from snapshot at (-?\d+)", worker.log.read_text())
        ]
        assert loaded and max(loaded) > 0, "the successor did not load any snapshot"
