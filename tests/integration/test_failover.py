"""Two workers in one group under a steady stream of joins in 8 regions; one is SIGKILLed
mid-run and later restarted. No ticket may be lost or end twice, no player may sit in
two matches, and replaying the whole log must reproduce every published record."""

from __future__ import annotations

import random
import signal
import threading
import time

import pytest

from tests.integration.conftest import wait_until
from tests.integration.outcome import check_outcome
from tests.integration.traffic import REGIONS, Traffic

pytestmark = pytest.mark.integration

CONFIG = f"""
partitions = 8
ticket_ttl_ms = 15000
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = {list(REGIONS)!r}
wave_interval_ms = 1000
"""


def owners(workers) -> list[set[int]]:
    return [set(w.partitions() or ()) for w in workers]


@pytest.mark.wavematch_config(CONFIG)
def test_sigkill_and_restart_lose_nothing_and_match_nobody_twice(broker, worker_factory):
    first, second = worker_factory.start(), worker_factory.start()
    wait_until(
        lambda: (
            all(owners([first, second])) and set().union(*owners([first, second])) == set(range(8))
        ),
        90,
        "both workers to share the 8 partitions",
    )

    traffic = Traffic(random.Random(11), per_second=25)
    stop = threading.Event()
    producer = threading.Thread(target=traffic.run, args=(broker.bootstrap, stop), daemon=True)
    producer.start()
    try:
        time.sleep(8)
        # A rebalance under load can leave a worker briefly without partitions: kill one
        # that owns some, or the test proves nothing.
        wait_until(lambda: all(owners([first, second])), 60, "both workers to own partitions again")
        killed = set(second.partitions() or ())
        second.stop(signal.SIGKILL)
        wait_until(
            lambda: first.partitions() == list(range(8)),
            60,
            "the survivor to take every partition over",
            alive=lambda: first.process.poll() is None,
        )
        time.sleep(6)
        restarted = worker_factory.start()
        wait_until(
            lambda: all(owners([first, restarted])), 90, "the restarted worker to get partitions"
        )
        time.sleep(6)
    finally:
        stop.set()
        producer.join(30)
    assert killed, "the killed worker owned no partition: the test proved nothing"
    tickets = traffic.tickets()
    assert len(tickets) > 300

    check_outcome(broker, worker_factory, tickets, survivor=first)
