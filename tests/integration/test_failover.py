"""Two workers in one group under a steady stream of joins in 8 regions; one is SIGKILLed
mid-run and later restarted. No ticket may be lost or end twice, no player may sit in
two matches, and replaying the whole log must reproduce every published record."""

from __future__ import annotations

import random
import signal
import threading
import time
from collections import Counter, defaultdict

import pytest

from schemas.codec import decode
from schemas.topics import QUEUE
from streams.audit.replay import JUDGED, replay
from streams.audit.topics import committed_offsets, read_topics
from streams.settings import load_settings
from tests.integration.conftest import run, wait_until
from tests.integration.kafka import read_topic
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

    def ended() -> set[str]:
        return {
            decode(r.value).ticket_id
            for r in read_topic(broker.bootstrap, "wavematch.cleanup.v1", 0.3)
        }

    wait_until(
        lambda: ended() >= tickets,
        120,
        "every ticket to end",
        alive=lambda: first.process.poll() is None,
    )

    cleanup = read_topic(broker.bootstrap, "wavematch.cleanup.v1")
    endings: dict[str, set[bytes]] = defaultdict(set)
    for record in cleanup:
        endings[decode(record.value).ticket_id].add(record.value)
    twice = {t for t, values in endings.items() if len(values) > 1}
    assert not twice, f"tickets that ended in two different ways: {sorted(twice)[:5]}"

    matches = read_topic(broker.bootstrap, "wavematch.matches.v1")
    copies: dict[str, set[bytes]] = defaultdict(set)
    for record in matches:
        copies[decode(record.value).match_id].add(record.value)
    assert all(len(values) == 1 for values in copies.values()), (
        "a match id re-published differently"
    )
    seats = Counter(
        seat.player_id
        for values in copies.values()
        for match in [decode(next(iter(values)))]
        for team in match.teams
        for seat in team.players
    )
    assert max(seats.values()) == 1, (
        f"players matched twice: {[p for p, n in seats.items() if n > 1][:5]}"
    )
    matched = sum(
        1 for values in endings.values() if decode(next(iter(values))).reason.value == "MATCHED"
    )
    assert matched == sum(seats.values()) and matched > len(tickets) // 2

    for worker in worker_factory.started:
        worker.stop()  # no more ticks: the log and the outputs are final
    settings = load_settings(worker_factory.config, broker_url=broker.url)
    records = run(read_topics(broker.bootstrap, (QUEUE.name, *JUDGED)))
    processed = run(committed_offsets(broker.bootstrap, settings.queue_group, QUEUE.name))
    report = replay(settings, records, processed=processed)
    assert report.ok, report.differences[:5]
    assert report.verdict.identical["wavematch.matches.v1"] == len(copies)
