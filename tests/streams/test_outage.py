"""BrokerWatch and its log filter: an outage is a few lines and a gauge (issue 33)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from prometheus_client import CollectorRegistry

from streams.embedded.broker import free_port
from streams.worker.outage import BrokerWatch, ClientNoise, bootstrap_servers, reachable


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def watch(clock: Clock) -> BrokerWatch:
    return BrokerWatch("kafka:9092", CollectorRegistry(), clock, reminder_s=60)


def client_error(text: str, name: str = "aiokafka.conn") -> logging.LogRecord:
    return logging.LogRecord(name, logging.ERROR, __file__, 1, text, (), None)


def gauge(watch: BrokerWatch) -> float:
    return watch.up_gauge._value.get()  # type: ignore[attr-defined, no-any-return]


def test_a_minute_down_is_three_lines_and_the_gauge_follows(
    watch: BrokerWatch, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    noise = ClientNoise(watch)
    passed = 0
    caplog.set_level(logging.WARNING, "streams.worker.outage")
    for second in range(0, 63, 2):
        clock.now = 1000.0 + second
        if second == 62:
            watch.probed(True)
            break
        watch.probed(False, "refused")
        for _ in range(300):  # ~150 client error lines a second, as aiokafka writes them
            passed += noise.filter(client_error("Unable connect to node with id 1: refused"))
        if second == 30:
            assert gauge(watch) == 0
    assert passed == 0
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "broker kafka:9092 unreachable",
        "broker kafka:9092 still unreachable after 60 s",
        "broker kafka:9092 reachable again after 62 s",
    ]
    assert gauge(watch) == 1


def test_while_reachable_one_client_error_a_minute_gets_through(
    watch: BrokerWatch, clock: Clock
) -> None:
    noise = ClientNoise(watch)
    record = client_error("Failed fetch messages from 2: NodeNotReadyError")
    assert noise.filter(record)
    assert not noise.filter(record)
    clock.now += 61
    assert noise.filter(record)


@pytest.mark.parametrize(
    "said",
    [
        "Got error produce response on topic-partition TopicPartition(topic='wavematch.status.v1',"
        " partition=3), retrying. Error: [Error 6] NotLeaderForPartitionError",
        "Heartbeat session expired - marking coordinator dead",
        "Heartbeat failed for group wavematch-queue because it is rebalancing",
        "Heartbeat failed: local member_id was not recognized; resetting and re-joining group",
    ],
)
def test_a_restarted_broker_s_recovery_is_held_back_too(
    watch: BrokerWatch, clock: Clock, said: str
) -> None:
    """An Apache Kafka broker back from a SIGKILL moves leaders and expires sessions:
    the clients say so dozens of times in the minute after it answers again."""
    watch.probed(False, "refused")
    clock.now += 20
    watch.probed(True)
    noise = ClientNoise(watch)
    passed = sum(
        noise.filter(client_error(said, "aiokafka.consumer.group_coordinator")) for _ in range(40)
    )
    assert passed == 1  # one a minute still shows, as for any client error


def test_other_records_always_pass(watch: BrokerWatch) -> None:
    watch.probed(False, "refused")
    noise = ClientNoise(watch)
    assert noise.filter(client_error("a wave closed", "streams.worker"))
    assert noise.filter(client_error("Unexpected error in fetcher: KeyError"))
    info = client_error("Unable connect to node with id 1")
    info.levelno = logging.INFO
    assert noise.filter(info)
    assert not noise.filter(client_error("Unable connect to node with id 1"))


def test_bootstrap_servers_and_the_probe() -> None:
    assert bootstrap_servers("a:9092, b:9093") == [("a", 9092), ("b", 9093)]
    reached, why = asyncio.run(reachable([("127.0.0.1", free_port())], 2))
    assert not reached and "127.0.0.1" in why
