"""Ordinary Kafka clients for the tests: librdkafka (confluent-kafka) to produce, as a
platform in another language would, and aiokafka to read topics back."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable

from aiokafka import AIOKafkaConsumer, TopicPartition
from confluent_kafka import Producer

from streams.audit.rederive import LogRecord
from streams.audit.topics import read_topics


def produce(
    bootstrap: str,
    records: Iterable[tuple[bytes | None, bytes]],
    topic: str = "wavematch.queue.v1",
    partition: int | None = None,
) -> int:
    """Publish (key, value) pairs in order with librdkafka's Java-compatible partitioner."""
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "partitioner": "murmur2_random",  # the documented setting for librdkafka clients
            "linger.ms": 5,
            "enable.idempotence": False,
        }
    )
    count = 0
    for key, value in records:
        kwargs = {"partition": partition} if partition is not None else {}
        producer.produce(topic, value=value, key=key, **kwargs)
        producer.poll(0)
        count += 1
    remaining = producer.flush(30)
    assert remaining == 0, f"{remaining} records not delivered"
    return count


def json_join(ticket: str, race: str = "bw", queue: str = "1v1", region: str = "eu") -> bytes:
    """A platform's JSON join of one player, dated now, as the contract spells it."""
    body = {
        "type": "TicketJoined",
        "ticket_id": ticket,
        "queue": queue,
        "region": region,
        "joined_at_ms": int(time.time() * 1000),
        "players": [{"player_id": f"p-{ticket}", "ratings": {race: 1500}}],
    }
    return json.dumps(body).encode()


def read_topic(bootstrap: str, topic: str, idle_s: float = 1.0) -> list[LogRecord]:
    """Every record of ``topic``, per partition in offset order, reading until idle."""
    return asyncio.new_event_loop().run_until_complete(_read(bootstrap, topic, idle_s))


def read_topic_to_end(bootstrap: str, topic: str) -> list[LogRecord]:
    """Every record of ``topic`` up to the end its fetches report, as `wavematch replay`
    reads it: for a topic that is never idle (the queue topic's ticks, the waves topic)."""
    return asyncio.new_event_loop().run_until_complete(read_topics(bootstrap, (topic,)))


async def _read(bootstrap: str, topic: str, idle_s: float) -> list[LogRecord]:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, fetch_max_wait_ms=100
    )
    await consumer.start()
    try:
        partitions = consumer.partitions_for_topic(topic)
        if partitions is None:
            await consumer._client.force_metadata_update()
            partitions = consumer.partitions_for_topic(topic) or set()
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        records: list[LogRecord] = []
        last = time.monotonic()
        while time.monotonic() - last < idle_s:
            batch = await consumer.getmany(timeout_ms=200)
            for tp, items in batch.items():
                records.extend(
                    LogRecord(topic, tp.partition, r.offset, r.key, r.value) for r in items
                )
                last = time.monotonic()
        records.sort(key=lambda r: (r.partition, r.offset))
        return records
    finally:
        await consumer.stop()
