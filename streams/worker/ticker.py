"""The wave timer. It decides nothing: it only writes a WaveTick into each owned region's
partition, and the agent closes the wave when it reads the tick (the log is the truth).

Ticks fall on multiples of the wave interval (``sequence = epoch_ms // interval``), so
two workers briefly owning a partition during a rebalance emit the same sequence, and
the fold ignores the second as stale.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from schemas.codec import encode
from schemas.models import WaveTick
from schemas.topics import murmur2_partition, queue_key
from streams.settings import QueueSettings, Settings

log = logging.getLogger(__name__)

SendTick = Callable[[int, bytes, bytes], Awaitable[object]]


def tick_record(queue: QueueSettings, region: str, sequence: int, fingerprint: str) -> bytes:
    interval = queue.wave_interval_ms
    return encode(WaveTick(
        queue=queue.name, region=region, wave_id=str(sequence), sequence=sequence,
        tick_at_ms=sequence * interval, config_fingerprint=fingerprint, interval_ms=interval,
    ))


class Ticker:
    def __init__(self, settings: Settings, send: SendTick, owned: Callable[[], set[int]],
                 clock: Callable[[], float] = time.time) -> None:
        self._settings = settings
        self._send = send
        self._owned = owned
        self._clock = clock
        self._fingerprint = settings.config_fingerprint()

    async def run(self) -> None:
        await asyncio.gather(*(self._run_queue(queue) for queue in self._settings.queues))

    async def _run_queue(self, queue: QueueSettings) -> None:
        interval = queue.wave_interval_ms
        while True:
            now_ms = int(self._clock() * 1000)
            sequence = now_ms // interval + 1
            await asyncio.sleep(max(0.0, (sequence * interval - now_ms) / 1000))
            try:
                await self.emit(queue, sequence)
            except Exception:  # a failed tick costs one wave, never the timer
                log.exception("wave tick %s/%d not sent", queue.name, sequence)

    async def emit(self, queue: QueueSettings, sequence: int) -> int:
        owned = self._owned()
        sent = 0
        for region in queue.regions:
            key = queue_key(queue.name, region)
            partition = murmur2_partition(key, self._settings.partitions)
            if partition in owned:
                await self._send(partition, key, tick_record(queue, region, sequence, self._fingerprint))
                sent += 1
        return sent
