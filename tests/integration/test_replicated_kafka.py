"""One node of a three-node replicated Apache Kafka cluster (``replication_factor = 3``,
``min.insync.replicas = 2``) SIGKILLed under load, the one leading the most queue
partitions: leadership moves to the others while two workers and a platform's producer
keep running. Nothing is lost, nobody is matched twice, replay is IDENTICAL, and every
region keeps closing waves. (Apache Kafka only: the embedded broker is a single node.)"""

from __future__ import annotations

import asyncio
import random
import signal
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, PartitionMetadata

from schemas.codec import decode
from schemas.topics import QUEUE
from streams.connection import check_connection
from tests.integration.conftest import WorkerFactory, wait_until, write_config
from tests.integration.outcome import check_outcome
from tests.integration.test_failover import CONFIG, owners
from tests.integration.traffic import REGIONS, Traffic
from tests.kafka.broker import RESTART_TIMEOUT_S, KafkaCluster

pytestmark = pytest.mark.integration

WAVES = "wavematch.waves.v1"

#: The longest a region may go without a wave reaching a consumer. Kafka fences a dead
#: node after ``broker.session.timeout.ms`` (9 s) and only then elects new leaders; the
#: clients then refresh their metadata and retry. Generous: the machine is shared.
MAX_WAVE_GAP_S = 25.0


@pytest.fixture
def workers(kafka_cluster: KafkaCluster, tmp_path: Path) -> Iterator[WorkerFactory]:
    # Top-level keys precede CONFIG's [[queues]] table.
    config = write_config(tmp_path / "wavematch.toml", "replication_factor = 3\n" + CONFIG)
    factory = WorkerFactory(kafka_cluster, config, tmp_path)
    yield factory
    factory.stop_all()


def queue_partitions(admin: AdminClient) -> list[PartitionMetadata]:
    return list(admin.list_topics(QUEUE.name, timeout=10).topics[QUEUE.name].partitions.values())


def queue_leaders(admin: AdminClient) -> Counter[int]:
    """How many queue-topic partitions each node leads."""
    return Counter(p.leader for p in queue_partitions(admin))


class WaveWatch:
    """Reads the waves topic as a downstream consumer would, noting when each region's
    waves arrive (monotonic seconds)."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.arrivals: dict[str, list[float]] = defaultdict(list)

    def run(self, stop: threading.Event) -> None:
        from confluent_kafka import Consumer

        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": "test-wave-watch",
                "auto.offset.reset": "latest",
                "enable.auto.commit": False,
            }
        )
        consumer.subscribe([WAVES])
        try:
            while not stop.is_set():
                record = consumer.poll(0.2)
                if record is not None and record.error() is None:
                    self.arrivals[decode(record.value()).region].append(time.monotonic())
        finally:
            consumer.close()

    def longest_gap(self, since: float, until: float) -> tuple[float, str]:
        """The longest stretch in [since, until] without a wave, and its region."""
        gaps = []
        for region in REGIONS:
            times = [since, *(t for t in self.arrivals[region] if since < t < until), until]
            gaps.append((max(b - a for a, b in pairwise(times)), region))
        return max(gaps)

    def recovered(self, since: float, until: float, stall_s: float = 3.0) -> float:
        """Seconds from ``since`` until the last region that stalled (no wave for
        ``stall_s``) in [since, until] had a wave again; 0 if none stalled."""
        resumed = since
        for region in REGIONS:
            times = [since, *(t for t in self.arrivals[region] if since < t < until)]
            resumed = max([resumed, *(b for a, b in pairwise(times) if b - a > stall_s)])
        return resumed - since

    def silent(self, since: float, until: float) -> list[str]:
        """The regions with no wave in [since, until]."""
        return [r for r in REGIONS if not any(since < t < until for t in self.arrivals[r])]


@pytest.mark.timeout(480)  # a restart after SIGKILL may take RESTART_TIMEOUT_S alone
def test_one_node_of_a_replicated_cluster_dies_under_load(kafka_cluster, workers):
    first, second = workers.start(), workers.start()
    wait_until(lambda: all(owners([first, second])), 90, "both workers to own partitions")
    traffic, watch = Traffic(random.Random(17), per_second=25), WaveWatch(kafka_cluster.bootstrap)
    stop = threading.Event()
    threads = [
        threading.Thread(target=traffic.run, args=(kafka_cluster.bootstrap, stop), daemon=True),
        threading.Thread(target=watch.run, args=(stop,), daemon=True),
    ]
    for thread in threads:
        thread.start()

    def alive() -> bool:
        return first.process.poll() is None and second.process.poll() is None

    try:
        wait_until(lambda: all(watch.arrivals[r] for r in REGIONS), 60, "waves in every region")
        time.sleep(5)
        admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
        leader, led = queue_leaders(admin).most_common(1)[0]
        victim = kafka_cluster.node(leader)
        victim.stop(signal.SIGKILL)
        killed_at = time.monotonic()
        survivors = ",".join(n.bootstrap for n in kafka_cluster.nodes if n is not victim)
        wait_until(
            lambda: leader not in queue_leaders(admin),
            60,
            f"the queue partitions node {leader} led to get new leaders",
            alive=alive,
        )
        # A command or worker starting now, its URL naming the dead node first, gets in.
        asyncio.run(check_connection(f"{victim.bootstrap},{survivors}", timeout_s=5))
        time.sleep(12)
        assert alive(), "a worker exited while a node was down"
        restarted_at = time.monotonic()
        victim.start(RESTART_TIMEOUT_S)
        wait_until(
            lambda: all(leader in p.isrs for p in queue_partitions(admin)),
            60,
            f"node {leader} to be back in sync on every queue partition",
            alive=alive,
        )
        time.sleep(4)
        until = time.monotonic()
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
    tickets = traffic.tickets()
    assert len(tickets) > 500
    gap, region = watch.longest_gap(killed_at - 10, until)
    recovered = watch.recovered(killed_at, restarted_at)
    print(
        f"node {leader} (led {led}/8 queue partitions) killed: the stalled regions closed "
        f"waves again {recovered:.1f} s later; longest gap {gap:.1f} s ({region})"
    )
    # The partitions moved while the node was down: waves did not wait for its restart.
    silent = watch.silent(restarted_at - 5, restarted_at)
    assert not silent, f"regions with no wave in the 5 s before node {leader} came back: {silent}"
    assert gap < MAX_WAVE_GAP_S, f"region {region} closed no wave for {gap:.1f} s"
    check_outcome(kafka_cluster, workers, tickets, survivor=first)
