"""Snapshot records in a topic of their own, read back directly: the queue consumer's table.

The queue consumer (docs/adr/0061) is not in Faust's group, so a Faust table's partitions
would not follow its assignment. Instead the snapshot records of ADR 5 go to
``<app_id>-queue-snapshots``, a topic with the queue topic's partition count: input
partition P's snapshot lives in snapshot partition P. On assignment the worker reads P
from the beginning to its end, the last value of each key winning (what compaction keeps
on Apache Kafka). The end is the high-watermark of the fetch responses, not
ListOffsets(LATEST), which the embedded broker answers wrongly (ADR 4).
"""

from __future__ import annotations

from collections.abc import Iterable

from aiokafka import AIOKafkaProducer, TopicPartition

from streams.connection import Brokers, start_client, stop_client
from streams.worker.catchup import group_less_reader, records_to_highwater

#: Give up reading a snapshot partition after this long without progress.
IDLE_TIMEOUT_S = 30.0


def snapshot_topic(app_id: str) -> str:
    return f"{app_id}-queue-snapshots"


async def read_to_end(brokers: Brokers, topic: str, partitions: Iterable[int]) -> dict[str, bytes]:
    """Every key of ``topic``'s ``partitions`` with its last value, read up to the
    high-watermark each fetch response reports. Notes: O(records in those partitions)."""
    tps = [TopicPartition(topic, p) for p in sorted(set(partitions))]
    rows: dict[str, bytes] = {}
    if not tps:
        return rows
    consumer = group_less_reader(brokers)
    try:
        await start_client(consumer)
        consumer.assign(tps)
        for tp in tps:
            consumer.seek(tp, 0)
        async for record in records_to_highwater(consumer, tps, IDLE_TIMEOUT_S):
            if record.key is None:
                continue
            if record.value is None:  # a tombstone: the key was deleted
                rows.pop(record.key.decode(), None)
            else:
                rows[record.key.decode()] = record.value
        return rows
    finally:
        await stop_client(consumer)


class TopicStateTable:
    """The worker's :class:`~streams.worker.queue_worker.StateTable` on the snapshot topic.

    Rows of a partition are loaded when it is assigned (:meth:`load`) and dropped when it
    is lost (:meth:`forget`); writes go to the row cache and to snapshot partition P.
    """

    def __init__(self, brokers: Brokers, topic: str, producer: AIOKafkaProducer) -> None:
        self._brokers = brokers
        self.topic = topic
        self._producer = producer
        self._rows: dict[str, bytes] = {}

    async def load(self, partitions: Iterable[int]) -> None:
        wanted = set(partitions)
        self.forget(wanted)
        self._rows.update(await read_to_end(self._brokers, self.topic, wanted))

    def forget(self, partitions: Iterable[int]) -> None:
        prefixes = tuple(f"{p}/" for p in partitions)
        if prefixes:
            self._rows = {k: v for k, v in self._rows.items() if not k.startswith(prefixes)}

    def read(self, key: str) -> bytes | None:
        return self._rows.get(key)

    async def write(self, partition: int, key: str, value: bytes) -> None:
        self._rows[key] = value
        await self._producer.send(self.topic, value, key=key.encode(), partition=partition)

    async def delete(self, partition: int, key: str) -> None:
        self._rows.pop(key, None)
        await self._producer.send(self.topic, None, key=key.encode(), partition=partition)
