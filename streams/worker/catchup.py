"""Read a range of one input partition directly, to re-fold what a snapshot does not hold."""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.structs import ConsumerRecord

#: Give up after this many empty one-second polls inside a range that should exist.
MAX_IDLE_POLLS = 30


def group_less_reader(bootstrap: str) -> AIOKafkaConsumer:
    """A consumer outside every group, for reading ranges of a log (not started).

    It never joins a group or commits, so reading disturbs no worker's assignment or
    committed offsets. A short fetch wait: the embedded broker answers late otherwise
    (ADR 4).
    """
    return AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        enable_auto_commit=False,
        group_id=None,
        fetch_max_wait_ms=50,
        max_partition_fetch_bytes=4 * 1024 * 1024,
    )


async def read_range(
    bootstrap: str, topic: str, partition: int, start: int, end: int
) -> AsyncIterator[ConsumerRecord[bytes, bytes]]:
    """Yield the records of ``topic``/``partition`` with ``start <= offset < end``, in order.

    Reads with :func:`group_less_reader`. Notes: O(end - start) records, fetched in batches.
    """
    if start >= end:
        return
    consumer = group_less_reader(bootstrap)
    await consumer.start()
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        consumer.seek(tp, start)
        position, idle_polls = start, 0
        while position < end:
            batches = await consumer.getmany(tp, timeout_ms=1_000, max_records=5_000)
            records = batches.get(tp, ())
            if not records:
                # Offsets may have holes (transaction markers): trust the fetch position.
                if await consumer.position(tp) >= end:
                    return
                idle_polls += 1
                if idle_polls > MAX_IDLE_POLLS:
                    raise TimeoutError(f"{topic}/{partition}: no records from {position} to {end}")
                continue
            idle_polls = 0
            for record in records:
                if record.offset >= end:
                    return
                position = record.offset + 1
                yield record
    finally:
        await consumer.stop()
