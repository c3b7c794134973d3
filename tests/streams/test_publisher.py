"""The publisher sends the same batches, in the same order, as its per-record grouping did."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.topics import murmur2_partition
from streams.worker.publisher import Publisher, Record


class Batch:
    """Holds up to ``room`` records, like aiokafka's builder holds up to its byte size."""

    def __init__(self, room: int) -> None:
        self.room, self.items = room, []  # type: list[tuple[bytes, bytes]]

    def append(self, *, key: bytes, value: bytes, timestamp: None) -> object | None:
        if len(self.items) == self.room:
            return None
        self.items.append((key, value))
        return object()

    def record_count(self) -> int:
        return len(self.items)


class Producer:
    def __init__(self, room: int) -> None:
        self.room, self.sent = room, []  # type: list[Any]

    def create_batch(self) -> Batch:
        return Batch(self.room)

    async def send_batch(self, batch: Batch, topic: str, *, partition: int) -> None:
        self.sent.append((topic, partition, batch.items))


def reference(records: list[Record], partitions: dict[str, int], room: int) -> list[Any]:
    """The batches the session-3 publisher sent: per topic, then per (topic, partition)."""
    by_topic: dict[str, list[tuple[bytes, bytes]]] = defaultdict(list)
    for topic, key, value in records:
        by_topic[topic].append((key, value))
    grouped: dict[tuple[str, int], list[tuple[bytes, bytes]]] = defaultdict(list)
    for topic, items in by_topic.items():
        for key, value in items:
            grouped[(topic, murmur2_partition(key, partitions[topic]))].append((key, value))
    return [
        (topic, partition, items[start : start + room])
        for (topic, partition), items in grouped.items()
        for start in range(0, len(items), room)
    ]


@settings(max_examples=200, deadline=None)
@given(
    records=st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.binary(max_size=12), st.binary(max_size=4)),
        max_size=60,
    ),
    room=st.integers(1, 7),
)
def test_batches_and_their_order_are_those_of_the_per_record_grouping(
    records: list[Record], room: int
) -> None:
    partitions = {"a": 3, "b": 8, "c": 1}
    producer = Producer(room)
    sent = asyncio.run(Publisher(producer, partitions.__getitem__).publish(records))  # type: ignore[arg-type]
    assert sent == len(records)
    assert producer.sent == reference(records, partitions, room)
