"""Reading a log outside every group on Apache Kafka: a range the broker no longer holds
is an error naming it, never a silent jump to the end; a reader of whole partitions
starts at their first record."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from confluent_kafka import TopicPartition as ConfluentPartition
from confluent_kafka.admin import AdminClient, NewTopic

from streams.worker.catchup import MissingRecords, read_range
from streams.worker.snapshot_topic import read_to_end
from tests.integration.kafka import produce
from tests.kafka.broker import KafkaBroker

pytestmark = pytest.mark.integration


def _topic_with_ten_records_from_offset_five(broker: KafkaBroker) -> str:
    """A one-partition topic of records k0..k9 whose first five were deleted."""
    topic = f"range-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    produce(broker.bootstrap, [(b"k%d" % i, b"v%d" % i) for i in range(10)], topic, 0)
    deleted = admin.delete_records([ConfluentPartition(topic, 0, 5)])
    for future in deleted.values():
        future.result(30)
    return topic


async def _offsets(broker: KafkaBroker, topic: str, start: int, end: int) -> list[int]:
    return [record.offset async for record in read_range(broker.bootstrap, topic, 0, start, end)]


def test_a_range_partly_deleted_raises_instead_of_skipping(kafka_broker: KafkaBroker) -> None:
    topic = _topic_with_ten_records_from_offset_five(kafka_broker)
    assert asyncio.run(_offsets(kafka_broker, topic, 6, 9)) == [6, 7, 8]
    with pytest.raises(MissingRecords, match=rf"{topic}/0: offset 2 is not in the log"):
        asyncio.run(_offsets(kafka_broker, topic, 2, 9))


def test_a_whole_partition_read_starts_at_its_first_record(kafka_broker: KafkaBroker) -> None:
    topic = _topic_with_ten_records_from_offset_five(kafka_broker)
    rows = asyncio.run(read_to_end(kafka_broker.bootstrap, topic, [0]))
    assert rows == {f"k{i}": b"v%d" % i for i in range(5, 10)}
