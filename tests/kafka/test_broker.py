"""The Apache Kafka test broker itself: it keeps its log across a SIGKILL and a restart on
the same directory and the same ports."""

from __future__ import annotations

import signal

import pytest

from tests.integration.kafka import produce, read_topic
from tests.kafka.broker import KafkaBroker
from tests.kafka.fixtures import KafkaBrokerFactory

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
