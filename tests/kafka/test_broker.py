"""The Apache Kafka test broker itself: it keeps its log across a SIGKILL and a restart on
the same directory and the same ports."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

import pytest

from streams.embedded.broker import free_port
from tests.integration.kafka import produce, read_topic
from tests.kafka.broker import KafkaBroker, empty_broker
from tests.kafka.fixtures import KafkaBrokerFactory, require_kafka

pytestmark = pytest.mark.integration


def _create(broker: KafkaBroker, topic: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    for future in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        future.result(30)


def test_a_sigkilled_broker_restarts_on_its_directory_with_every_record(
    kafka_broker_factory: KafkaBrokerFactory,
) -> None:
    broker = kafka_broker_factory.start()
    _create(broker, "t")
    produce(broker.bootstrap, [(b"k%d" % i, b"v%d" % i) for i in range(500)], topic="t")
    bootstrap = broker.bootstrap

    broker.stop(signal.SIGKILL)
    broker.start()

    assert broker.bootstrap == bootstrap
    values = sorted(r.value for r in read_topic(broker.bootstrap, "t"))
    assert values == sorted(b"v%d" % i for i in range(500))


def test_emptying_waits_out_a_group_member_whose_process_was_killed(
    kafka_broker_factory: KafkaBrokerFactory,
) -> None:
    import subprocess
    import sys
    import time

    from confluent_kafka.admin import AdminClient

    broker = kafka_broker_factory.start()
    _create(broker, "t")
    member = subprocess.Popen(
        [sys.executable, "-c", _JOIN_AND_WAIT, broker.bootstrap],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert member.stdout is not None and member.stdout.readline() == b"assigned\n"
    finally:
        member.kill()  # no LeaveGroup: the member stays until its session times out
        member.wait(30)
    started = time.monotonic()
    empty_broker(broker.bootstrap)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    assert not admin.list_consumer_groups().result(30).valid
    assert time.monotonic() - started > 1  # it did have to wait for the session to lapse


_JOIN_AND_WAIT = """
import sys, time
from confluent_kafka import Consumer
consumer = Consumer({"bootstrap.servers": sys.argv[1], "group.id": "lingering",
                     "session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
consumer.subscribe(["t"])
while not consumer.assignment():
    consumer.poll(0.2)
print("assigned", flush=True)
time.sleep(600)
"""


def test_a_first_start_whose_port_another_process_took_starts_on_new_ports(
    tmp_path: Path,
) -> None:
    require_kafka()
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        broker = KafkaBroker(tmp_path / "kafka", ports={"PLAINTEXT": taken, "CONTROLLER": 0})
        broker.ports["CONTROLLER"] = free_port()
        try:
            broker.start()
            assert broker.port != taken
            _create(broker, "t")
        finally:
            broker.stop()
