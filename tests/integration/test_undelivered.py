"""aiokafka's flush() returns once a batch is done, delivered or not; the publisher's
delivery check is what tells a batch that expired while the broker was away from one
the broker took. A real producer against the embedded broker behind a cuttable proxy."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaProducer

from streams.worker.publisher import Publisher, Undelivered
from tests.integration.kafka import read_topic
from tests.integration.outage import CuttableBroker

pytestmark = pytest.mark.integration

TOPIC = "undelivered-check"


async def _publish_across_a_cut(broker: CuttableBroker) -> list[str]:
    """What each check said: before the cut, during it, after the broker came back."""
    producer = AIOKafkaProducer(
        bootstrap_servers=broker.bootstrap,
        acks="all",
        request_timeout_ms=2_000,  # the worker's is aiokafka's 40 s; the same expiry, sooner
        linger_ms=5,
    )
    await producer.start()
    publisher = Publisher(producer, lambda topic: 1)
    said = []
    try:
        for value, cut, restore in (
            (b"before", False, False),
            (b"during", True, True),
            (b"after", False, False),
        ):
            if cut:
                broker.cut()
            await publisher.publish([(TOPIC, b"k", value)])
            await producer.flush()
            try:
                publisher.check_delivered()
                said.append(f"{value.decode()}: delivered")
            except Undelivered:
                said.append(f"{value.decode()}: undelivered")
            if restore:
                broker.restore()
    finally:
        await producer.stop()
    return said


def test_an_expired_batch_is_reported_and_only_it(cuttable: CuttableBroker) -> None:
    assert asyncio.run(_publish_across_a_cut(cuttable)) == [
        "before: delivered",
        "during: undelivered",
        "after: delivered",
    ]
    values = [record.value for record in read_topic(cuttable.bootstrap, TOPIC)]
    assert values == [b"before", b"after"]  # what the check called undelivered is not there
