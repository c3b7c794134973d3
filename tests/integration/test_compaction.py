"""Compaction on Apache Kafka: the snapshot topic and the status topic are compacted while
a worker runs - small segments and a low dirty ratio make the cleaner run within the test -
and a worker taking over after that restores the exact state: every ticket ends once,
nobody is matched twice, and the log replays IDENTICAL."""

from __future__ import annotations

import itertools
import random
import signal
import threading
import time

import pytest
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource

from schemas.topics import STATUS
from streams.audit.topics import read_topics
from streams.settings import load_settings
from streams.topics import ensure_topics
from streams.worker.snapshot_topic import snapshot_topic
from tests.integration.conftest import run, wait_until
from tests.integration.outcome import check_outcome
from tests.integration.traffic import REGIONS, Traffic

pytestmark = pytest.mark.integration

CONFIG = f"""
partitions = 4
ticket_ttl_ms = 15000
session_timeout_ms = 6000
heartbeat_interval_ms = 500
snapshot_min_events = 20
[[queues]]
name = "1v1"
strategy = "optimal"
regions = {list(REGIONS)!r}
wave_interval_ms = 1000
"""

#: Roll a segment every second and clean any partition with 1 % of its log dirty.
CLEAN_SOON = {"segment.ms": "1000", "min.cleanable.dirty.ratio": "0.01"}


def make_compaction_eager(bootstrap: str, topics: list[str]) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    resources = [
        ConfigResource(
            "TOPIC",
            topic,
            incremental_configs=[
                ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
                for k, v in CLEAN_SOON.items()
            ],
        )
        for topic in topics
    ]
    for future in admin.incremental_alter_configs(resources).values():
        future.result(30)


def compacted(bootstrap: str, topic: str) -> bool:
    """Some partition's offsets have a gap: the cleaner removed superseded records."""
    offsets: dict[int, list[int]] = {}
    for record in run(read_topics(bootstrap, [topic])):
        offsets.setdefault(record.partition, []).append(record.offset)
    return any(
        b - a > 1 for partition in offsets.values() for a, b in itertools.pairwise(partition)
    )


@pytest.mark.parametrize("broker", ["kafka"], indirect=True)
@pytest.mark.wavematch_config(CONFIG)
def test_a_takeover_after_compaction_restores_the_exact_state(broker, worker_factory):
    settings = load_settings(worker_factory.config, broker_url=broker.url)
    run(ensure_topics(settings))
    watched = [snapshot_topic(settings.app_id), STATUS.name]
    make_compaction_eager(broker.bootstrap, watched)

    first = worker_factory.start()
    traffic = Traffic(random.Random(14), per_second=40)
    stop = threading.Event()
    producer = threading.Thread(target=traffic.run, args=(broker.bootstrap, stop), daemon=True)
    producer.start()
    try:
        for topic in watched:
            wait_until(
                lambda topic=topic: compacted(broker.bootstrap, topic),
                120,
                f"the log cleaner to compact {topic}",
                alive=lambda: first.process.poll() is None,
                interval_s=2.0,
            )
        first.stop(signal.SIGKILL)
        second = worker_factory.start()
        wait_until(
            lambda: second.partitions() == list(range(4)),
            60,
            "the successor to own every partition",
            alive=lambda: second.process.poll() is None,
        )
        time.sleep(5)
    finally:
        stop.set()
        producer.join(30)
    tickets = traffic.tickets()
    assert len(tickets) > 300
    check_outcome(broker, worker_factory, tickets, survivor=second)
