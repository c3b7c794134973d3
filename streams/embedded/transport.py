"""A Faust transport for the embedded broker: ``tansu://host:port``.

Tansu 0.6 answers ListOffsets(LATEST) with the last batch's base offset + 1 instead of
the log end. Faust's table recovery reads to that offset, so a recovering worker either
crashes (ConsistencyError) or silently misses the last records of a batch. A fetch
response's high-watermark is right, so this transport asks for end offsets that way.

Tansu also answers a fetch late when little data is waiting, as if ``fetch_min_bytes``
were not met until ``fetch_max_wait_ms``, so a record waits up to the fetch wait before
a consumer sees it. Each hop of a wave (tick in, outputs read downstream) would pay
Faust's hard-coded 1,500 ms, so this transport fetches with a short wait (figures:
docs/adr/0004-embedded-broker-workarounds.md).

Everything else is Faust's own aiokafka transport.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP

from streams.connection import client_kwargs

#: Give up on a partition's high-watermark after this long (the broker is local).
HIGHWATER_TIMEOUT_S = 15.0
#: The worker consumer's fetch wait on the embedded broker (Faust hard-codes 1,500 ms).
FETCH_MAX_WAIT_MS = 100


async def fetch_high_watermarks(bootstrap: str, partitions: Iterable[TP]) -> dict[TP, int]:
    """End offsets of ``partitions`` from fetch responses' high-watermarks, not ListOffsets."""
    wanted = list(partitions)
    if not wanted:
        return {}
    probe = AIOKafkaConsumer(
        **client_kwargs(bootstrap),  # PLAINTEXT: the embedded broker has no other listener
        enable_auto_commit=False,
        fetch_max_wait_ms=10,
        max_partition_fetch_bytes=1024,
    )
    await probe.start()
    try:
        tps = [TopicPartition(tp.topic, tp.partition) for tp in wanted]
        probe.assign(tps)
        for tp in tps:
            probe.seek(tp, 0)
        deadline = time.monotonic() + HIGHWATER_TIMEOUT_S
        while any(probe.highwater(tp) is None for tp in tps):
            if time.monotonic() > deadline:
                missing = [tp for tp in tps if probe.highwater(tp) is None]
                raise TimeoutError(f"no high-watermark for {missing} from {bootstrap}")
            await probe.getmany(timeout_ms=50, max_records=1)
        return {tp: int(probe.highwater(TopicPartition(tp.topic, tp.partition))) for tp in wanted}
    finally:
        await probe.stop()


class TansuConsumerThread(faust_aiokafka.AIOKafkaConsumerThread):
    # Private hooks and one private attribute, and they must stay: Faust builds its
    # consumer with a hard-coded ``fetch_max_wait_ms`` and looks end offsets up with
    # ListOffsets, and offers no setting or public hook for either (both pinned).
    def _create_worker_consumer(self, transport: Any) -> AIOKafkaConsumer:
        consumer = super()._create_worker_consumer(transport)
        # aiokafka reads it when the consumer starts its fetcher; no public setter.
        consumer._fetch_max_wait_ms = FETCH_MAX_WAIT_MS
        return consumer

    async def _highwaters(self, partitions: list[TP]) -> Mapping[TP, int]:
        # Faust's aiokafka transport has default_port; its TransportT interface does not.
        port: int = getattr(self.transport, "default_port", 9092)
        bootstrap = ",".join(faust_aiokafka.server_list(self.transport.url, port))
        return await fetch_high_watermarks(bootstrap, partitions)


class Consumer(faust_aiokafka.Consumer):
    # Faust's private factory of its consumer thread: the only place to put ours.
    def _new_consumer_thread(self) -> TansuConsumerThread:
        return TansuConsumerThread(self, loop=self.loop, beacon=self.beacon)


class Transport(faust_aiokafka.Transport):
    """Registered as the ``tansu`` scheme (entry point ``faust.transports``)."""

    Consumer = Consumer
    driver_version = f"tansu+{faust_aiokafka.Transport.driver_version}"
