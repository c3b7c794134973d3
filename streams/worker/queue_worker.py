"""Per-partition state of a worker: load on first use, fold, publish, snapshot.

Exactly-once effects without transactions (docs/adr/0005):
1. Outputs of an event are in the producer before the event is acked; the consumer
   flushes the producer before it commits offsets. So everything below the committed offset C has
   been published.
2. A snapshot after offset S is written only after a producer flush, so everything up
   to S has been published too.
3. A worker taking a partition over loads snapshot S, re-folds (S, C) silently, then
   folds from C on with outputs. State is exact; outputs of events a dead worker
   handled after its last commit are published again, byte-identical (deterministic
   ids), which consumers de-duplicate by key.
4. The consumer may resume past C (seen on the embedded broker after a rebalance: ticks
   written during the rebalance were skipped). Records between C and the first one
   delivered are then folded *with* outputs: either a worker published them before
   (the copies are identical) or nobody did, and silence would lose a wave.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Final, Protocol

from matcher.strategies import is_built_in
from schemas.errors import InvalidEvent
from schemas.topics import QUEUE
from streams.wire.outbound import Record, Writer
from streams.wire.registry import SchemaRegistry
from streams.worker import finished_log, snapshots
from streams.worker.folding import Folded, Folder, PartitionState, WaveDue, paused_gc
from streams.worker.metrics import WorkerMetrics
from streams.worker.outputs import records_of
from streams.worker.publisher import Publisher

log = logging.getLogger(__name__)

#: How often a registry outage that holds records back is said again in the log.
_REGISTRY_REMINDER_S: Final = 60.0

#: A region with at least this many tickets closes its wave on a thread: such a wave may
#: outlast the group's session timeout, and the consumer heartbeats from the event loop
#: (aiokafka), so a wave on the loop would get this worker evicted, the wave re-run by
#: the next owner, and so on. A smaller wave of a built-in strategy closes within seconds
#: at worst, and the hand-over to a thread would cost it more in proportion; a plug-in's
#: waves close on a thread whatever their size.
OFF_LOOP_TICKETS: Final = 1000


class StateTable(Protocol):
    """Where snapshots live: the snapshot topic (:mod:`streams.worker.snapshot_topic`).

    ``write`` hands the record to the producer; the snapshot is complete once flushed.
    """

    def read(self, key: str) -> bytes | None: ...

    async def write(self, partition: int, key: str, value: bytes) -> None: ...

    async def delete(self, partition: int, key: str) -> None: ...


class InputRecord(Protocol):
    partition: int
    offset: int
    #: The Kafka record timestamp in epoch ms (LogAppendTime where the topic has it).
    timestamp: int
    key: bytes | None
    value: bytes | None


#: Reads ``start <= offset < end`` of one queue partition: (partition, start, end).
ReadRange = Callable[[int, int, int], AsyncIterator[InputRecord]]
#: The committed offset of a queue partition as far as this worker knows (0: none).
Committed = Callable[[int], int]


class QueueWorker:
    def __init__(
        self,
        folder: Folder,
        table: StateTable,
        publisher: Publisher,
        flush: Callable[[], Any],
        read: ReadRange,
        committed: Committed,
        snapshot_min_events: int,
        snapshot_max_refold_ms: float,
        metrics: WorkerMetrics,
        registry: SchemaRegistry | None = None,
    ) -> None:
        self.folder = folder
        self.table = table
        self.publisher = publisher
        #: This worker's writer of output records (the bytes it remembers are its own).
        self.writer = Writer()
        self._flush = flush
        self._read = read
        self._committed = committed
        self._snapshot_min_events = snapshot_min_events
        self._snapshot_max_refold_ms = snapshot_max_refold_ms
        self.metrics = metrics
        #: Resolves the schema ids of registry-framed input before a fold reads them.
        self.registry = registry
        self.states: dict[int, PartitionState] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        #: Partitions whose state a wave closing on a thread is changing: nothing on the
        #: event loop may read it meanwhile (the timer waits).
        self.closing: set[int] = set()

    async def process(self, records: Sequence[InputRecord]) -> None:
        """Fold a batch of queue-topic records (in partition order) and publish the outputs.

        The cyclic collector is held for the batch and what it allocated is aged, not
        collected young (:func:`paused_gc`): a batch of joins allocates tens of thousands
        of acyclic objects, most of them queued tickets from now on, and collecting them
        young, then with the whole queue, cost a tenth of a join's time or more.
        """
        with paused_gc(age_after=0):
            try:
                await self._process(records)
            finally:
                self.metrics.flush()

    async def _process(self, records: Sequence[InputRecord]) -> None:
        touched: set[int] = set()
        outputs: list[Record] = []
        # Bound once: this loop runs for every record (20,000 a second is the target).
        state_of, read, observe = self.states.get, self.folder.read, self.metrics.observe
        writer = self.writer
        topic = QUEUE.name
        if self.registry is not None:
            await self._resolve([record.value for record in records])
        for record in records:
            partition, offset = record.partition, record.offset
            key, value = record.key, record.value
            state = state_of(partition)
            if state is None or offset > state.applied_offset + 1:
                state = await self._catch_up(partition, offset, outputs)
            folded = read(state, key, value, offset, record.timestamp)
            if type(folded) is WaveDue:
                folded = await self._close_wave(state, folded)
            if folded is None:
                continue
            touched.add(partition)
            observe(folded, state)
            outputs += records_of(
                writer, folded, topic=topic, partition=partition, key=key, value=value
            )
            step = folded.step
            if folded.duration_ms is not None and step is not None and step.summary is not None:
                await self.publisher.publish(outputs)
                outputs.clear()
        await self.publisher.publish(outputs)
        for partition in touched:
            await self.maybe_snapshot(self.states[partition])

    async def _close_wave(self, state: PartitionState, due: WaveDue) -> Folded:
        """Close a tick's wave: a large one (``OFF_LOOP_TICKETS``), or any of a plug-in
        strategy (whose time nothing bounds), on a thread, while the event loop
        heartbeats, serves the web views and sends the timer's ticks."""
        region = state.book.regions.get((due.tick.queue, due.tick.region))
        strategy = state.book.strategy_of(due.tick)
        if (
            region is None
            or strategy is None
            or (len(region.tickets) < OFF_LOOP_TICKETS and is_built_in(strategy))
        ):
            return self.folder.close_wave(state, due)
        self.closing.add(state.partition)
        try:
            return await asyncio.to_thread(self.folder.close_wave, state, due)
        finally:
            self.closing.discard(state.partition)

    async def _resolve(self, values: Sequence[bytes | None]) -> None:
        """Resolve the schema ids of ``values``; while the registry does not answer, hold
        the records back (one warning, a reminder a minute, a gauge), never dead-letter
        a valid join for it: the fold of the log must not depend on an outage
        (docs/adr/0168)."""
        assert self.registry is not None
        reminded = [-_REGISTRY_REMINDER_S]

        def waiting(problem: InvalidEvent | None, waited_s: float) -> None:
            if problem is None:
                self.metrics.registry_waiting.set(0)
                log.warning("schema registry: answers again; held records for %.0f s", waited_s)
                return
            self.metrics.registry_waiting.set(1)
            if waited_s - reminded[0] >= _REGISTRY_REMINDER_S:
                reminded[0] = waited_s
                log.warning(
                    "schema registry: %s; queue records held back until it answers (%.0f s so far)",
                    problem.reason,
                    waited_s,
                )

        await self.registry.resolve_through_outage(values, waiting)

    async def _catch_up(self, partition: int, offset: int, outputs: list[Record]) -> PartitionState:
        """The partition's state up to ``offset`` - 1, in one read of the log: silent below
        the committed offset, with outputs (appended to ``outputs``) from there on (point 4
        of the module doc)."""
        async with self._locks.setdefault(partition, asyncio.Lock()):
            state = self.states.get(partition)
            if state is None:
                state = self.states[partition] = self._from_snapshot(partition)
            start = state.applied_offset + 1
            published = await self._fold_range(state, offset, outputs, self._committed(partition))
            if published:
                log.warning(
                    "partition %d: the consumer skipped records %d to %d; %d folded with "
                    "their outputs",
                    partition,
                    start,
                    offset - 1,
                    published,
                )
            return state

    async def _fold_range(
        self,
        state: PartitionState,
        end: int,
        outputs: list[Record] | None = None,
        publish_from: int = 0,
    ) -> int:
        """Fold the partition's records from the state's next offset up to ``end``.

        Outputs of records at or after ``publish_from`` go to ``outputs``; the others
        (and all of them when ``outputs`` is None) are folded silently: they were
        published before. Returns how many records were folded with their outputs.
        """
        start, refolded, published = state.applied_offset + 1, 0, 0
        async for record in self._read(state.partition, start, end):
            if self.registry is not None:
                await self._resolve((record.value,))
            folded = self.folder.read(
                state, record.key, record.value, record.offset, record.timestamp
            )
            if type(folded) is WaveDue:
                folded = await self._close_wave(state, folded)
            if folded is None:
                continue
            if outputs is not None and record.offset >= publish_from:
                outputs.extend(_outputs_of(self.writer, folded, record))
                published += 1
            else:
                refolded += 1
        if refolded:
            log.info(
                "partition %d: %d events re-folded from %d up to %d",
                state.partition,
                refolded,
                start,
                end - 1,
            )
            self.metrics.catch_up(state.partition, refolded)
        return published

    async def load_owned(self, next_offsets: dict[int, int]) -> None:
        """Build the state of owned partitions before any record arrives for them.

        ``next_offsets``: per partition, the offset the consumer resumes at (committed).
        Without this a partition with no new input would show no queue until its next
        tick, and a takeover would pay the rebuild inside the first wave.
        """
        for partition, offset in sorted(next_offsets.items()):
            async with self._locks.setdefault(partition, asyncio.Lock()):
                if partition not in self.states:
                    self.states[partition] = await self._rebuild(partition, offset)

    def forget(self, partitions: set[int]) -> None:
        """Drop the state of partitions this worker no longer owns (rebalance), or whose
        outputs were not all delivered (the next record rebuilds it from the snapshot)."""
        for partition in partitions:
            self.states.pop(partition, None)

    async def _rebuild(self, partition: int, offset: int) -> PartitionState:
        state = self._from_snapshot(partition)
        await self._fold_range(state, offset)
        return state

    def _from_snapshot(self, partition: int) -> PartitionState:
        """The partition's state as of its last snapshot (empty without one)."""
        loaded = snapshots.decode_snapshot(partition, self.table.read)
        state = self.folder.new_state(partition)
        if loaded is not None:
            snapshot, slot = loaded
            state.book.regions.update(snapshot.regions)
            state.applied_offset = snapshot.offset
            state.snapshot_slot = slot
            state.finished_log = snapshot.finished or finished_log.FinishedLog()
            if snapshot.claims is not None:
                state.book.claims = snapshot.claims
        log.info("partition %d: state from snapshot at %d", partition, state.applied_offset)
        return state

    async def maybe_snapshot(self, state: PartitionState) -> None:
        due = max(self._snapshot_min_events, state.tickets())
        dear = state.wave_ms_since_snapshot >= self._snapshot_max_refold_ms
        if state.events_since_snapshot < due and not dear:
            return
        await self._flush()  # everything up to applied_offset is published first
        self.publisher.check_delivered()  # or the snapshot would cover outputs never sent
        partition, regions = state.partition, state.book.regions
        try:
            # The journals are taken now: if writing fails, the next snapshot starts a base.
            written = finished_log.write_segment(partition, state.finished_log, regions)
            snapshot = snapshots.Snapshot(
                state.applied_offset, dict(regions), written.log, state.book.claims
            )
            records = snapshots.encode_snapshot(partition, snapshot, state.snapshot_slot)
            for key, value in written.records + records:
                await self.table.write(partition, key, value)
            for key in written.obsolete:  # no longer in the manifest just written
                await self.table.delete(partition, key)
        except BaseException:
            state.finished_log = finished_log.FinishedLog()
            raise
        state.finished_log = written.log
        state.snapshot_slot = "b" if state.snapshot_slot == "a" else "a"
        state.events_since_snapshot = 0
        state.wave_ms_since_snapshot = 0.0
        self.metrics.snapshot(state.partition)


def _outputs_of(writer: Writer, folded: Folded, record: InputRecord) -> Sequence[Record]:
    return records_of(
        writer,
        folded,
        topic=QUEUE.name,
        partition=record.partition,
        key=record.key,
        value=record.value,
    )
