"""The wave timer, a Faust task. It decides nothing: it only writes a WaveTick into each
owned region's partition, and the queue consumer closes the wave when it reads the tick
(the log is the truth; docs/adr/0140).

A tick's sequence is its scheduled time in epoch milliseconds, and every worker computes
the same schedule: fixed queues tick on multiples of the interval, each (queue, region)
shifted by its own offset when ``stagger_ticks`` is on (:func:`tick_offsets`,
docs/adr/0063); pop-timer queues
(docs/adr/0050) tick at ``last tick + next interval``, both read from the folded log. So
two workers briefly owning a partition during a rebalance write the same sequence, and
the fold ignores the second as stale. Size-triggered queues (docs/adr/0183) tick at the
fallback the same way, and at the present instant once the folded region holds enough
tickets (:func:`~matcher.queue.cadence.size_due_at_ms` decides).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from matcher.queue.cadence import SIZE, CadencePolicy, size_due_at_ms
from matcher.queue.fold import RegionQueue
from schemas.codec import encode
from schemas.models import WaveTick
from schemas.topics import murmur2_partition, queue_key
from streams.settings import QueueSettings, Settings

log = logging.getLogger(__name__)

SendTick = Callable[[int, bytes, bytes], Awaitable[object]]
RegionState = Callable[[str, str], RegionQueue | None]
#: How often a pop-timer region re-reads its state while waiting for its next wave.
POLL_S = 0.25
#: How often a size-triggered region this worker holds re-reads its folded state: the
#: delay between folding the join that brings it to its trigger and sending the tick.
SIZE_POLL_S = 0.02
#: A pop-timer tick due longer ago than this is sent for the present instant instead.
OVERDUE_MS = 5_000


def tick_record(
    queue: QueueSettings, region: str, tick_at_ms: int, interval_ms: int, fingerprint: str
) -> bytes:
    return encode(
        WaveTick(
            queue=queue.name,
            region=region,
            wave_id=str(tick_at_ms),
            sequence=tick_at_ms,
            tick_at_ms=tick_at_ms,
            config_fingerprint=fingerprint,
            interval_ms=interval_ms,
        )
    )


class Ticker:
    def __init__(
        self,
        settings: Settings,
        send: SendTick,
        owned: Callable[[], set[int]],
        region_state: RegionState = lambda queue, region: None,
        clock: Callable[[], float] = time.time,
        in_force: Callable[[], str] | None = None,
        broker_up: Callable[[], bool] = lambda: True,
        closing: Callable[[int], bool] = lambda partition: False,
    ) -> None:
        self._settings = settings
        # A partition closing a wave on a thread (streams/worker/queue_worker.py): its
        # state is not read meanwhile, and its ticks wait, as they waited for a wave
        # closed on the event loop; ticks piled up behind a long wave would each close
        # another.
        self._closing = closing
        # A tick sent while the broker is away waits in the producer and reaches the log
        # late, where it is refused as implausible (docs/adr/0074): one dead letter per
        # region and interval of the outage. Its wave waits for the broker instead.
        self._broker_up = broker_up
        self._send = send
        self._owned = owned
        self._region_state = region_state
        self._clock = clock
        # The configuration in force, read at each tick: a tick carries it into the log,
        # and its region switches to it there (docs/adr/0160).
        fingerprint = settings.config_fingerprint()
        self._in_force = in_force or (lambda: fingerprint)
        self._cadences = settings.cadences()

    async def run(self) -> None:
        loops = []
        offsets = tick_offsets(self._settings)
        for queue in self._settings.queues:
            policy = self._cadences.get(queue.name)
            for region in queue.regions:
                if policy is None:
                    loops.append(self._run_fixed(queue, region, offsets[(queue.name, region)]))
                elif policy.mode == SIZE:
                    loops.append(self._run_size(queue, region, policy))
                else:
                    loops.append(self._run_pop(queue, region, policy))
        await asyncio.gather(*loops)

    async def _run_fixed(self, queue: QueueSettings, region: str, offset_ms: int) -> None:
        interval = queue.wave_interval_ms
        due = 0
        while True:
            now_ms = self._now_ms()
            # A sleep may wake a little early: never emit the same instant twice.
            next_on_grid = ((now_ms - offset_ms) // interval + 1) * interval + offset_ms
            due = max(due + interval, next_on_grid)
            while (now_ms := self._now_ms()) < due:
                await asyncio.sleep(min(POLL_S, (due - now_ms) / 1000))
            await self._emit(queue, region, due, interval)

    async def _run_pop(self, queue: QueueSettings, region: str, policy: CadencePolicy) -> None:
        players_per_match = queue.team_count * queue.team_size
        partition = self._partition(queue, region)
        while True:
            if self._closing(partition):
                await asyncio.sleep(POLL_S)
                continue
            state = self._region_state(queue.name, region)
            due = state.next_tick_at_ms(policy, players_per_match) if state is not None else None
            now_ms = self._now_ms()
            if due is None:  # no wave yet: start on the fixed grid
                due = (now_ms // policy.interval_ms + 1) * policy.interval_ms
            if due > now_ms:
                await asyncio.sleep(min(POLL_S, (due - now_ms) / 1000))
                continue
            if now_ms - due > OVERDUE_MS:
                # Long overdue (the worker was down): an instant far from the record's
                # timestamp would be refused as implausible (docs/adr/0074), so it is now.
                due = now_ms
            last = state.last_tick_at_ms if state is not None else 0
            interval = due - last if last else policy.interval_ms
            await self._emit(queue, region, due, interval)
            await self._until_folded(queue, region, due)

    async def _run_size(self, queue: QueueSettings, region: str, policy: CadencePolicy) -> None:
        partition = self._partition(queue, region)
        while True:
            if self._closing(partition):
                await asyncio.sleep(POLL_S)
                continue
            state = self._region_state(queue.name, region)
            waiting = len(state.tickets) if state is not None else 0
            arrivals = state.arrivals_since_tick if state is not None else 0
            last = state.last_tick_at_ms if state is not None else 0
            now_ms = self._now_ms()
            due = size_due_at_ms(policy, waiting, arrivals, last, now_ms)
            if due > now_ms:
                # A region held elsewhere (no state here) only waits for its fallback.
                poll_s = SIZE_POLL_S if state is not None else POLL_S
                await asyncio.sleep(min(poll_s, (due - now_ms) / 1000))
                continue
            if now_ms - due > OVERDUE_MS:  # as for a pop timer (docs/adr/0074)
                due = now_ms
            await self._emit(queue, region, due, due - last if last else policy.interval_ms)
            await self._until_folded(queue, region, due)

    async def _until_folded(self, queue: QueueSettings, region: str, due: int) -> None:
        """Wait for the queue consumer to fold the tick (or give up after a few seconds)."""
        for _ in range(int(5 / POLL_S)):
            state = self._region_state(queue.name, region)
            if state is not None and state.last_sequence >= due:
                return
            await asyncio.sleep(POLL_S)

    def _partition(self, queue: QueueSettings, region: str) -> int:
        return murmur2_partition(queue_key(queue.name, region), self._settings.partitions)

    async def _emit(
        self, queue: QueueSettings, region: str, tick_at_ms: int, interval_ms: int
    ) -> bool:
        key, partition = queue_key(queue.name, region), self._partition(queue, region)
        if partition not in self._owned() or self._closing(partition) or not self._broker_up():
            return False
        try:
            await self._send(
                partition,
                key,
                tick_record(queue, region, tick_at_ms, interval_ms, self._in_force()),
            )
        except Exception:  # a failed tick costs one wave, never the timer
            log.exception("wave tick %s/%s at %d not sent", queue.name, region, tick_at_ms)
            return False
        return True

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)


def tick_offsets(settings: Settings) -> dict[tuple[str, str], int]:
    """Each fixed-interval (queue, region)'s offset in ms from its interval's grid.

    Spread evenly over the interval, in the configuration's order of queues and regions
    (the same on every worker), so that regions sharing a worker close their waves one
    after another rather than all at once; all 0 when ``stagger_ticks`` is off.

    >>> from streams.settings import QueueSettings
    >>> settings = Settings(queues=(QueueSettings(name="1v1", regions=("eu", "na", "asia"),
    ...                                          wave_interval_ms=9000),))
    >>> tick_offsets(settings)
    {('1v1', 'eu'): 0, ('1v1', 'na'): 3000, ('1v1', 'asia'): 6000}
    """
    fixed = [
        (queue, region)
        for queue in settings.queues
        if queue.cadence == "fixed"
        for region in queue.regions
    ]
    return {
        (queue.name, region): (
            index * queue.wave_interval_ms // len(fixed) if settings.stagger_ticks else 0
        )
        for index, (queue, region) in enumerate(fixed)
    }
