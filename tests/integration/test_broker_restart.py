"""Apache Kafka SIGKILLed under load and restarted on the same data directory and ports:
the workers reconnect by themselves, and nothing is lost, matched twice or re-derived
differently. (The embedded broker is memory-only: a restart loses every topic, so this
runs on Apache Kafka alone; docs/operations.md.)"""

from __future__ import annotations

import random
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import WorkerFactory, wait_until, write_config
from tests.integration.outcome import check_outcome
from tests.integration.test_failover import CONFIG, owners
from tests.integration.traffic import Traffic
from tests.kafka.broker import RESTART_TIMEOUT_S, KafkaBroker
from tests.kafka.fixtures import KafkaBrokerFactory

pytestmark = pytest.mark.integration

#: Long enough for the workers' requests to time out and their sessions to lapse; and
#: longer than the producer's request timeout (aiokafka's 40 s), so that output batches
#: handed over before the crash expire undelivered and must be published again.
OUTAGES_S = (8.0, 50.0)


@pytest.fixture
def own_kafka(kafka_broker_factory: KafkaBrokerFactory) -> KafkaBroker:
    return kafka_broker_factory.start()


@pytest.fixture
def workers(own_kafka: KafkaBroker, tmp_path: Path) -> Iterator[WorkerFactory]:
    config = write_config(tmp_path / "wavematch.toml", CONFIG)
    factory = WorkerFactory(own_kafka, config, tmp_path)
    yield factory
    factory.stop_all()


@pytest.mark.timeout(480)
@pytest.mark.parametrize("down_s", OUTAGES_S)
def test_a_broker_sigkill_and_restart_lose_nothing(own_kafka, workers, down_s):
    first, second = workers.start(), workers.start()
    wait_until(lambda: all(owners([first, second])), 90, "both workers to own partitions")
    traffic = Traffic(random.Random(13), per_second=25)
    stop = threading.Event()
    producer = threading.Thread(target=traffic.run, args=(own_kafka.bootstrap, stop), daemon=True)
    producer.start()

    def alive() -> bool:
        return first.process.poll() is None and second.process.poll() is None

    try:
        time.sleep(6)
        own_kafka.stop(signal.SIGKILL)
        time.sleep(down_s)
        assert alive(), "a worker exited while the broker was down"
        own_kafka.start(RESTART_TIMEOUT_S)
        wait_until(
            lambda: set().union(*owners([first, second])) == set(range(8)),
            120,
            "the workers to own every partition again after the restart",
            alive=alive,
        )
        time.sleep(8)
    finally:
        stop.set()
        producer.join(60)
    tickets = traffic.tickets()
    assert len(tickets) > 300
    # Joins the platform's producer held through a long outage arrive past their TTL.
    share = 0.5 if down_s < 15 else 0.2
    check_outcome(own_kafka, workers, tickets, survivor=first, matched_share=share)
