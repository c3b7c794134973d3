"""A wave's records are on their way to the broker when ``Publisher.publish`` returns.

The worker folds the rest of a fetched batch (up to 2,000 records) after a wave's hand-over
and flushes only then: records still queued in the producer would wait for all of it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiokafka import AIOKafkaProducer

from schemas.topics import CLEANUP, MATCHES
from streams.embedded.broker import EmbeddedBroker
from streams.settings import load_settings
from streams.topics import ensure_topics
from streams.worker.publisher import Publisher, Record
from tests.integration.conftest import DEFAULT_CONFIG, wait_until, write_config
from tests.integration.kafka import read_topic


def test_records_reach_the_broker_without_the_publishers_loop_running_again(
    broker: EmbeddedBroker, tmp_path: Path
) -> None:
    config = write_config(tmp_path / "wavematch.toml", DEFAULT_CONFIG)
    settings = load_settings(config, broker_url=broker.url)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(ensure_topics(settings))

    async def started() -> AIOKafkaProducer:
        # The worker's producer settings (streams/worker/direct.py): batches linger 5 ms.
        producer = AIOKafkaProducer(
            bootstrap_servers=broker.bootstrap, acks="all", linger_ms=5, max_batch_size=512 * 1024
        )
        await producer.start()
        return producer

    producer = loop.run_until_complete(started())
    try:
        publisher = Publisher(producer, lambda topic: settings.partitions)
        # A worker's producer has published before: the topics' metadata and the
        # connection to the broker are there (getting them are real waits of the loop).
        warm_up: list[Record] = [(MATCHES.name, b"w", b"w"), (CLEANUP.name, b"w", b"w")]
        loop.run_until_complete(publisher.publish(warm_up))
        loop.run_until_complete(producer.flush())
        records: list[Record] = [(MATCHES.name, b"m%d" % n, b"x" * 150) for n in range(3_000)]
        records += [(CLEANUP.name, b"t%d" % n, b"y" * 80) for n in range(6_000)]
        assert loop.run_until_complete(publisher.publish(records)) == len(records)
        # From here on the producer's loop does not run (as while the worker folds): only
        # what its sender wrote during publish can reach the broker.
        for topic, count in ((MATCHES.name, 3_001), (CLEANUP.name, 6_001)):
            wait_until(
                lambda topic=topic, count=count: (
                    len(read_topic(broker.bootstrap, topic, 0.3)) == count
                ),
                timeout_s=30,
                what=f"{count} records in {topic}",
            )
    finally:
        loop.run_until_complete(producer.stop())
        loop.close()
