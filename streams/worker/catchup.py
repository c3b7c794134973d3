"""Read logs directly, outside every group: a range of one input partition (to re-fold
what a snapshot does not hold), or whole partitions up to their end."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import OffsetOutOfRangeError
from aiokafka.structs import ConsumerRecord

from streams.connection import Brokers, client_kwargs, start_client, stop_client


class MissingRecords(RuntimeError):
    """A range of the log to fold that the broker no longer holds."""


#: Give up after this many empty one-second polls inside a range that should exist.
MAX_IDLE_POLLS = 30
#: Every reader of the logs reads what their producers committed: a record of a
#: transaction its producer aborted was never sent, so no worker or audit folds it.
READ_COMMITTED = "read_committed"


def group_less_reader(
    brokers: Brokers, offset_reset: str = "earliest", fetch_max_wait_ms: int = 50
) -> AIOKafkaConsumer:
    """A consumer outside every group, for reading ranges of a log (not started).

    It never joins a group or commits, so reading disturbs no worker's assignment or
    committed offsets. A short fetch wait by default: the embedded broker answers late
    otherwise (ADR 4); a reader that follows a quiet topic for good waits longer. An offset
    out of range moves a reader of whole partitions to their first record (``earliest``),
    never past records to the end, as aiokafka's default would.
    """
    return AIOKafkaConsumer(
        **client_kwargs(brokers),
        enable_auto_commit=False,
        auto_offset_reset=offset_reset,
        group_id=None,
        fetch_max_wait_ms=fetch_max_wait_ms,
        max_partition_fetch_bytes=4 * 1024 * 1024,
        isolation_level=READ_COMMITTED,
    )


async def read_range(
    brokers: Brokers, topic: str, partition: int, start: int, end: int
) -> AsyncIterator[ConsumerRecord[bytes, bytes]]:
    """Yield the records of ``topic``/``partition`` with ``start <= offset < end``, in order.

    Reads with :func:`group_less_reader`. Notes: O(end - start) records, fetched in batches.
    A range the log no longer holds raises: a state folded without them would be wrong.
    """
    if start >= end:
        return
    consumer = group_less_reader(brokers, offset_reset="none")
    try:
        await start_client(consumer)
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        consumer.seek(tp, start)
        position, idle_polls = start, 0
        while position < end:
            try:
                batches = await consumer.getmany(tp, timeout_ms=1_000, max_records=5_000)
            except OffsetOutOfRangeError:
                raise MissingRecords(
                    f"{topic}/{partition}: offset {position} is not in the log (deleted by "
                    f"retention?); records {position} to {end - 1} cannot be folded"
                ) from None
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
        await stop_client(consumer)


async def records_to_highwater(
    consumer: AIOKafkaConsumer, partitions: Iterable[TopicPartition], idle_s: float
) -> AsyncIterator[ConsumerRecord[bytes, bytes]]:
    """Yield the records of the assigned, positioned ``partitions`` until each one's
    position reaches the end its fetch responses report.

    The end is the fetch's last stable offset (the high-watermark but for a transaction
    still open), never ListOffsets(LATEST), which the embedded broker answers wrongly
    (ADR 4). Raises TimeoutError, naming the partitions, after
    ``idle_s`` without a record while some have not reached their end.
    """
    pending, last = set(partitions), time.monotonic()
    while pending:
        if time.monotonic() - last > idle_s:
            unfinished = sorted((tp.topic, tp.partition) for tp in pending)
            raise TimeoutError(f"no end reached for {unfinished}")
        batches = await consumer.getmany(*pending, timeout_ms=200, max_records=10_000)
        for records in batches.values():
            for record in records:
                yield record
            last = time.monotonic()
        for tp in list(pending):
            end = consumer.last_stable_offset(tp)
            if end is None or end < 0:  # a fetch response without one
                end = consumer.highwater(tp)
            if end is not None and await consumer.position(tp) >= end:
                pending.discard(tp)
