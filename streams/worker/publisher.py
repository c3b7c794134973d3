"""Hand encoded records to the producer, in per-partition batches.

A 10,000-player wave publishes ~15,000 records; one ``producer.send()`` coroutine per
record costs far more than appending to an aiokafka batch builder, so records are
appended to batch builders and sent per (topic, partition). Partitions are chosen with
the same murmur2 as the Java client, so keys land where any other client would put them.
The records themselves are written by streams/wire/outbound.py (streams/worker/outputs.py
guards it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError
from aiokafka.producer.message_accumulator import BatchBuilder

from schemas.topics import murmur2_partitions
from streams.wire.avro import Framing
from streams.wire.outbound import Record
from streams.worker.folding import paused_gc

__all__ = ["Publisher", "Record", "Undelivered"]


class Undelivered(KafkaError):  # type: ignore[misc]
    """Outputs handed to the producer that the broker never took (a long outage)."""


class Publisher:
    """Groups records per (topic, partition) and sends each group as one batch."""

    def __init__(
        self,
        producer: AIOKafkaProducer,
        partitions_of: Callable[[str], int],
        framing: Framing | None = None,
    ) -> None:
        self._producer = producer
        self._partitions_of = partitions_of
        #: How values are framed on the wire: a registry's per topic, or (None) as written.
        self._framing = framing
        #: The delivery of every batch handed over since the last :meth:`check_delivered`.
        self._deliveries: list[asyncio.Future[object]] = []

    async def publish(self, records: Iterable[Record]) -> int:
        """Send ``records``: per topic in order of first appearance, then per partition
        in order of first appearance, each partition's records in their given order.

        With the cyclic GC paused, as for the fold and the encoding (:func:`paused_gc`):
        a wave's 15,000 records and their batches would otherwise be walked by young
        collections while they are handed over (measured: 10-20 ms a 10,000-player wave).

        The batches are closed (complete: the producer need not linger for more records)
        and the producer's sender is let run before returning (:func:`_sender_turn`): it
        writes them to the broker in one request while the caller goes on (frees the
        wave's objects, folds the rest of its batch). Otherwise nothing left before the
        caller's flush, which a wave's records waited for, and the last batches for the
        linger time on top.
        """
        with paused_gc():
            return await self._publish(records)

    def check_delivered(self) -> None:
        """Raise :class:`Undelivered` if a batch handed over since the last call failed.

        Call it after ``producer.flush()``, which waits for every delivery but reports
        none: an output the broker never took (its batch expired in an outage) must not
        be covered by a commit or a snapshot, or nobody would publish it again.
        """
        deliveries, self._deliveries = self._deliveries, []
        problems = [_undelivered(delivery) for delivery in deliveries]  # reads every error
        problem = next((p for p in problems if p is not None), None)
        if problem is not None:
            raise Undelivered(problem)

    async def _publish(self, records: Iterable[Record]) -> int:
        by_topic: dict[str, tuple[list[bytes | None], list[bytes]]] = {}
        for topic, key, value in records:
            columns = by_topic.get(topic)
            if columns is None:
                columns = by_topic[topic] = ([], [])
            columns[0].append(key)
            columns[1].append(value)
        sent = 0
        for topic, (keys, values) in by_topic.items():
            if self._framing is not None:  # no call per record without a registry
                frame = self._framing.frame
                values = [frame(topic, value) for value in values]
            grouped: dict[int, list[tuple[bytes | None, bytes]]] = {}
            # A null key goes where the empty key would: one fixed partition, as in replay.
            hashed = [b"" if key is None else key for key in keys]
            partitions = murmur2_partitions(hashed, self._partitions_of(topic))
            for partition, item in zip(partitions, zip(keys, values, strict=True), strict=True):
                items = grouped.get(partition)
                if items is None:
                    items = grouped[partition] = []
                items.append(item)
            for partition, items in grouped.items():
                sent += await self._send(topic, partition, items)
        await _sender_turn()
        return sent

    async def _send(
        self, topic: str, partition: int, items: list[tuple[bytes | None, bytes]]
    ) -> int:
        batch = self._producer.create_batch()
        for key, value in items:
            if batch.append(key=key, value=value, timestamp=None) is None:
                batch.close()
                await self._hand_over(batch, topic, partition)
                batch = self._producer.create_batch()
                batch.append(key=key, value=value, timestamp=None)
        if batch.record_count():
            batch.close()
            await self._hand_over(batch, topic, partition)
        return len(items)

    async def _hand_over(self, batch: BatchBuilder, topic: str, partition: int) -> None:
        try:
            delivery = await self._producer.send_batch(batch, topic, partition=partition)
        except KafkaError as error:  # no room for it while an older batch waits for a broker
            raise Undelivered(f"{topic}[{partition}]: {error!r}") from error
        self._deliveries.append(delivery)


def _undelivered(delivery: asyncio.Future[object]) -> str | None:
    """Why ``delivery`` did not reach the broker, or None if it did."""
    if not delivery.done():
        return "a batch still in flight"
    if delivery.cancelled():
        return "a batch cancelled"
    error = delivery.exception()
    return None if error is None else str(error)


async def _sender_turn() -> None:
    """Let the producer's sender write what was handed to it. ``send_batch`` never gives
    up the loop while a partition has room; aiokafka 0.14's sender then needs two or
    three turns of the loop (its wait wakes, it drains the batches into a request, the
    request's task writes it): without them nothing is sent before the caller's next
    real wait (tests/integration/test_publisher_hand_over.py)."""
    for _ in range(_SENDER_TURNS):
        await asyncio.sleep(0)


#: Turns of the event loop given to the sender after a hand-over (a turn with nothing
#: to do costs ~10 us; a publish is once a batch of records).
_SENDER_TURNS = 4
