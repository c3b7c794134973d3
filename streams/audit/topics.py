"""Read whole topics (or all of wavematch's) back from a broker, in offset order."""

from __future__ import annotations

from collections.abc import Iterable

from aiokafka import AIOKafkaConsumer, TopicPartition

from schemas.topics import CONFIG, QUEUE
from streams.audit.rederive import LogRecord
from streams.connection import Brokers, client_kwargs, stop_client
from streams.worker.catchup import group_less_reader, records_to_highwater


async def read_topics(
    brokers: Brokers, topics: Iterable[str], idle_s: float = 2.0
) -> list[LogRecord]:
    """Every record of ``topics`` from the beginning to their current end.

    Stops at the end seen in fetch responses (the last stable offset: records of an open
    transaction are not read; exact on every broker this runs on), or after ``idle_s``
    without records. The output topics are read before the queue and configuration
    topics: on a live system every output read then has its input read after it (a
    record's outputs are published after the record), so a replay finds no published
    output whose input it did not read.
    """
    consumer = group_less_reader(brokers)
    try:
        await consumer.start()
        await consumer._client.force_metadata_update()
        # Every partition first: an assignment narrows the client's metadata to its topics.
        tps = [
            TopicPartition(topic, p)
            for topic in topics
            for p in sorted(consumer.partitions_for_topic(topic) or ())
        ]
        records: list[LogRecord] = []
        for inputs in (False, True):
            group = [tp for tp in tps if (tp.topic in _INPUTS) is inputs]
            records += await _read_to_end(consumer, group, idle_s)
        records.sort(key=lambda r: (r.topic, r.partition, r.offset))
        return records
    finally:
        await stop_client(consumer)


#: What the workers read: the topics they write to are read before these.
_INPUTS = frozenset((QUEUE.name, CONFIG.name))


async def _read_to_end(
    consumer: AIOKafkaConsumer, tps: list[TopicPartition], idle_s: float
) -> list[LogRecord]:
    if not tps:
        return []
    consumer.assign(tps)
    await consumer.seek_to_beginning(*tps)
    records: list[LogRecord] = []
    try:
        async for r in records_to_highwater(consumer, tps, idle_s):
            records.append(LogRecord(r.topic, r.partition, r.offset, r.key, r.value, r.timestamp))
    except TimeoutError:
        pass  # idle for idle_s: what was read is the log (an empty partition, say)
    return records


async def committed_offsets(brokers: Brokers, group: str, topic: str) -> dict[int, int]:
    """The next offset ``group`` will process per partition of ``topic`` (0 if none yet).

    Records below it are processed: their outputs must have been published. Records at
    or above it may or may not have been (a worker can die between publishing and
    committing), so a replay expects them only if they were.
    """
    consumer = AIOKafkaConsumer(**client_kwargs(brokers), group_id=group, enable_auto_commit=False)
    try:
        await consumer.start()
        await consumer._client.force_metadata_update()
        offsets = {}
        for partition in sorted(consumer.partitions_for_topic(topic) or ()):
            committed = await consumer.committed(TopicPartition(topic, partition))
            offsets[partition] = committed or 0
        return offsets
    finally:
        await stop_client(consumer)


async def read_recent(
    brokers: Brokers, topic: str, last: int, idle_s: float = 2.0
) -> list[LogRecord]:
    """The last ``last`` records of each partition of ``topic``, oldest first.

    Positions as ``wavematch tail --last`` does, then reads to the high-watermark.
    """
    consumer = group_less_reader(brokers)
    try:
        await consumer.start()
        await consumer._client.force_metadata_update()
        tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        if not tps:
            return []
        consumer.assign(tps)
        starts, ends = await consumer.beginning_offsets(tps), await consumer.end_offsets(tps)
        for tp in tps:
            consumer.seek(tp, max(starts[tp], ends[tp] - last))
        records: list[LogRecord] = []
        try:
            async for r in records_to_highwater(consumer, tps, idle_s):
                records.append(
                    LogRecord(r.topic, r.partition, r.offset, r.key, r.value, r.timestamp)
                )
        except TimeoutError:
            pass  # idle for idle_s: what was read is all there is
        records.sort(key=lambda r: (r.timestamp, r.partition, r.offset))
        return records
    finally:
        await stop_client(consumer)
