"""Headers are not part of the contract: huge ones, or keys that are not UTF-8, must not
stop the worker (a librdkafka client can send both)."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer

from schemas.codec import decode
from schemas.topics import QUEUE, STATUS, queue_key
from tests.integration.conftest import wait_until
from tests.integration.kafka import json_join, read_topic

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "headers",
    [
        [("x" * 300, b"v" * 100_000)],
        [(b"\xff\xfe", b"v")],  # a header key that is not UTF-8
    ],
    ids=["huge", "not-utf8-key"],
)
def test_odd_headers_do_not_stop_the_worker(broker, worker_factory, headers) -> None:
    worker = worker_factory.start()
    bootstrap = broker.bootstrap
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random"})
    key = queue_key("1v1", "eu")
    producer.produce(QUEUE.name, value=json_join("before"), key=key)
    producer.produce(QUEUE.name, value=json_join("odd"), key=key, headers=headers)
    producer.produce(QUEUE.name, value=json_join("after"), key=key)
    assert producer.flush(30) == 0

    def searching() -> set[str]:
        return {decode(r.value or b"").ticket_id for r in read_topic(bootstrap, STATUS.name)}

    # Headers play no part: the join that carries them is applied like the others.
    wait_until(lambda: {"before", "odd", "after"} <= searching(), 60, "the three joins")
    assert worker.process.poll() is None, worker.log.read_text()[-3000:]
