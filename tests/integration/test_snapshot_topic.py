"""The direct consumer's snapshot topic on the real broker: a deleted key (a tombstone,
ADR 62's replaced finished segments) is gone when a successor reads the partition back,
and a key written again after its delete is back."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaProducer

from streams.settings import Settings
from streams.topics import ensure_topics
from streams.worker.snapshot_topic import TopicStateTable, snapshot_topic

pytestmark = pytest.mark.integration


async def write_then_read_back(bootstrap: str, url: str) -> dict[str, bytes | None]:
    settings = Settings(broker_url=url, partitions=4)
    await ensure_topics(settings)
    topic = snapshot_topic(settings.app_id)
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        table = TopicStateTable(bootstrap, topic, producer)
        for key in ("1/finished/0/0", "1/finished/1/0", "1/manifest", "2/manifest"):
            await table.write(int(key[0]), key, f"value of {key}".encode())
        await table.delete(1, "1/finished/0/0")
        await table.delete(1, "1/manifest")
        await table.write(1, "1/manifest", b"written again")
        assert table.read("1/finished/0/0") is None  # the writer's own rows forget it too
        await producer.flush()
    finally:
        await producer.stop()
    successor = TopicStateTable(bootstrap, topic, producer)
    await successor.load([1])
    keys = ("1/finished/0/0", "1/finished/1/0", "1/manifest", "2/manifest")
    return {key: successor.read(key) for key in keys}


def test_a_deleted_key_is_gone_for_a_successor_and_a_rewritten_one_is_back(broker) -> None:  # type: ignore[no-untyped-def]
    rows = asyncio.run(write_then_read_back(broker.bootstrap, broker.url))
    assert rows == {
        "1/finished/0/0": None,
        "1/finished/1/0": b"value of 1/finished/1/0",
        "1/manifest": b"written again",
        "2/manifest": None,  # another partition: not loaded
    }
