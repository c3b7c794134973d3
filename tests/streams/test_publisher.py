"""The publisher sends the same batches, in the same order, as its per-record grouping did,
closed, and lets the producer's sender write them before it returns."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

import pytest
from aiokafka.errors import KafkaTimeoutError
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.topics import murmur2_partition
from streams.worker.publisher import Publisher, Record, Undelivered


class Batch:
    """Holds up to ``room`` records, like aiokafka's builder holds up to its byte size."""

    def __init__(self, room: int) -> None:
        self.room, self.items = room, []  # type: list[tuple[bytes, bytes]]
        self.closed = False

    def append(self, *, key: bytes, value: bytes, timestamp: None) -> object | None:
        if len(self.items) == self.room or self.closed:
            return None
        self.items.append((key, value))
        return object()

    def close(self) -> None:
        self.closed = True

    def record_count(self) -> int:
        return len(self.items)


class Producer:
    def __init__(self, room: int) -> None:
        self.room, self.sent = room, []  # type: list[Any]

    def create_batch(self) -> Batch:
        return Batch(self.room)

    async def send_batch(self, batch: Batch, topic: str, *, partition: int) -> asyncio.Future[None]:
        assert batch.closed, "an open batch lingers in the producer for records never to come"
        self.sent.append((topic, partition, batch.items))
        delivered: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        delivered.set_result(None)
        return delivered


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


class Sending(Producer):
    """Hands batches to a sender task the way aiokafka 0.14 does: ``send_batch`` completes
    the future the sender waits on (with ``asyncio.wait``) without giving up the loop."""

    def __init__(self) -> None:
        super().__init__(room=100)
        self.wake: asyncio.Future[None] | None = None
        self.written: list[Any] = []

    async def sender(self) -> None:
        while True:
            self.wake = asyncio.get_running_loop().create_future()
            await asyncio.wait([self.wake], return_when=asyncio.FIRST_COMPLETED)
            # The request is built and written by a task of its own (_send_produce_req).
            await asyncio.create_task(self.write(list(self.sent)))

    async def write(self, batches: list[Any]) -> None:
        self.written = batches

    async def send_batch(self, batch: Batch, topic: str, *, partition: int) -> asyncio.Future[None]:
        delivered = await super().send_batch(batch, topic, partition=partition)
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)
        return delivered


async def test_the_sender_writes_the_batches_before_publish_returns() -> None:
    producer = Sending()
    sender = asyncio.create_task(producer.sender())
    await asyncio.sleep(0)  # the sender waits for batches
    records: list[Record] = [("a", b"k%d" % n, b"v") for n in range(20)] + [("b", b"k", b"v")]
    await Publisher(producer, {"a": 3, "b": 8}.__getitem__).publish(records)  # type: ignore[arg-type]
    written = producer.written  # before this task gives the loop up again
    sender.cancel()
    assert written == producer.sent and len(written) == 4


def test_a_registry_framing_swaps_the_header_of_its_topics_only() -> None:
    from schemas.codec import CURRENT
    from schemas.models import WaveClosed
    from streams.wire.avro import Framing

    fingerprint = CURRENT[WaveClosed].fingerprint
    single = b"\xc3\x01" + fingerprint + b"body"
    framing = Framing.registry({"waves": (7, (fingerprint,))})
    producer = Producer(room=10)
    records: list[Record] = [("waves", b"k", single), ("queue", b"k", single)]
    asyncio.run(Publisher(producer, lambda topic: 1, framing).publish(records))  # type: ignore[arg-type]
    sent = {topic: items for topic, _, items in producer.sent}
    assert sent["waves"] == [(b"k", b"\x00\x00\x00\x00\x07body")]
    assert sent["queue"] == [(b"k", single)]  # the queue topic stays single-object


class Failing(Producer):
    """Takes the first batch, which then expires undelivered; refuses the next one."""

    async def send_batch(self, batch: Batch, topic: str, *, partition: int) -> asyncio.Future[None]:
        if self.sent:
            raise KafkaTimeoutError()
        await super().send_batch(batch, topic, partition=partition)
        expired: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        expired.set_exception(KafkaTimeoutError("batch expired"))
        return expired


async def test_a_batch_that_expired_undelivered_is_reported_once() -> None:
    publisher = Publisher(Failing(room=10), lambda topic: 1)  # type: ignore[arg-type]
    await publisher.publish([("a", b"k", b"v")])
    with pytest.raises(Undelivered, match="batch expired"):
        publisher.check_delivered()
    publisher.check_delivered()  # reported: the caller folds those records again


async def test_a_batch_the_producer_has_no_room_for_is_undelivered() -> None:
    publisher = Publisher(Failing(room=10), lambda topic: 1)  # type: ignore[arg-type]
    await publisher.publish([("a", b"k", b"v")])
    with pytest.raises(Undelivered, match=r"a\[0\]: KafkaTimeoutError"):
        await publisher.publish([("a", b"k", b"w")])
