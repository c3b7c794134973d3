"""The queue topic consumed outside Faust: a plain aiokafka consumer in a group of its own.

Faust's per-message path caps an agent well below the 20,000 events/s floor even with an
empty body (docs/adr/history/0008); this loop takes whole fetches instead (docs/adr/0061):

    getmany -> QueueWorker.process(records) -> producer.flush() -> commit(next offsets)

The commit follows the flush, so the outputs of every committed record are in the
broker (ADR 5's first point), and snapshots (ADR 5's second point) are written after a
flush too, to the snapshot topic (:mod:`streams.worker.snapshot_topic`).

Outputs the broker never took (their batch expired in an outage longer than the
producer's request timeout) are never committed over: the flush is checked
(:meth:`~streams.worker.publisher.Publisher.check_delivered`), and on a failure the
owned partitions are forgotten and the consumer sent back to their committed offsets,
so the records after them are folded again and their outputs published again.

Rebalances (``ConsumerRebalanceListener``): on revocation the batch in progress finishes,
the producer is flushed and its offsets committed. On assignment the partitions this
worker lost are forgotten and the new ones rebuilt (snapshot + silent re-fold up to the
committed offset, ADR 5). A partition kept across a rebalance keeps its state: a state
is the fold of a log prefix, valid whoever folded the records after it; the catch-up
re-reads what another worker may have consumed in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import KafkaError

from schemas.topics import QUEUE
from streams.connection import client_kwargs, connection_of, start_client, stop_client
from streams.settings import Settings
from streams.worker.catchup import READ_COMMITTED
from streams.worker.publisher import Undelivered
from streams.worker.queue_worker import QueueWorker
from streams.worker.snapshot_topic import TopicStateTable

log = logging.getLogger(__name__)

#: Records per fetch: large enough to amortise the flush and commit that follow every
#: batch, small enough that a tick waits behind one batch of joins only briefly (a batch
#: times the CPU of one join: docs/benchmarks/code-figures.md).
BATCH_RECORDS = 2_000
#: The embedded broker answers fetches late under a long wait (ADR 4's amendment).
EMBEDDED_FETCH_WAIT_MS = 100


def queue_consumer(settings: Settings) -> AIOKafkaConsumer:
    """The direct consumer (not started): group ``settings.queue_group``, manual commits,
    the settings' session timeout and heartbeat (takeover speed, docs/benchmarks/worker.md)."""
    return AIOKafkaConsumer(
        **client_kwargs(connection_of(settings)),
        group_id=settings.queue_group,
        client_id=f"{settings.app_id}-queue",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        session_timeout_ms=settings.session_timeout_ms,
        heartbeat_interval_ms=settings.heartbeat_interval_ms,
        rebalance_timeout_ms=settings.session_timeout_ms,
        fetch_max_wait_ms=EMBEDDED_FETCH_WAIT_MS if settings.is_embedded_broker else 500,
        max_partition_fetch_bytes=4 * 1024 * 1024,
        # A platform's join in a transaction it aborted was never sent: only committed
        # records are folded, by every reader of the queue log (catchup.READ_COMMITTED).
        isolation_level=READ_COMMITTED,
    )


def output_producer(settings: Settings) -> AIOKafkaProducer:
    """The producer of outputs, ticks and snapshots (not started); Faust's settings."""
    return AIOKafkaProducer(
        **client_kwargs(connection_of(settings)),
        client_id=f"{settings.app_id}-outputs",
        acks="all",
        # A retried batch is not written twice; the embedded broker refuses InitProducerId.
        enable_idempotence=not settings.is_embedded_broker,
        linger_ms=5,
        max_batch_size=512 * 1024,
        max_request_size=4 * 1024 * 1024,
    )


class DirectQueueConsumer:
    """Runs the queue topic's consume-fold-publish-commit loop for one worker process."""

    def __init__(
        self,
        consumer: AIOKafkaConsumer,
        producer: AIOKafkaProducer,
        table: TopicStateTable,
        worker: Callable[[], QueueWorker],
        batch_records: int = BATCH_RECORDS,
    ) -> None:
        self._consumer = consumer
        self._producer = producer
        self._table = table
        self._worker = worker
        self._batch_records = batch_records
        self._lock = asyncio.Lock()
        #: Partitions assigned and loaded: records of any other partition are dropped.
        self._owned: set[int] = set()
        #: Per partition, the next offset committed (what a successor resumes from).
        self.committed: dict[int, int] = {}
        self.records_processed = 0
        #: A rebalance callback's exception: aiokafka would log it and go on fetching
        #: records this worker then drops, so the loop raises it instead (the worker stops).
        self.failure: BaseException | None = None

    def owned(self) -> set[int]:
        return set(self._owned)

    def committed_offset(self, partition: int) -> int:
        return self.committed.get(partition, 0)

    async def run(self) -> None:
        self._consumer.subscribe([QUEUE.name], listener=_Listener(self))
        try:
            # Inside: a worker stopped while the consumer connects still closes it.
            await start_client(self._consumer)
            while True:
                batches = await self._consumer.getmany(
                    timeout_ms=500, max_records=self._batch_records
                )
                if self.failure is not None:
                    raise self.failure
                if batches:
                    async with self._lock:
                        await self._process(batches)
        finally:
            async with self._lock:
                await self._producer.flush()  # the successor re-folds from the last commit
            await stop_client(self._consumer)

    async def _process(self, batches: dict[TopicPartition, list[Any]]) -> None:
        records = [
            record
            for tp, items in batches.items()
            if tp.partition in self._owned
            for record in items
        ]
        if not records:
            return
        worker = self._worker()
        offsets = {
            tp: items[-1].offset + 1
            for tp, items in batches.items()
            if tp.partition in self._owned and items
        }
        try:
            await worker.process(records)
            await self._flush_and_commit(offsets)
        except Undelivered as error:
            await self._rewind(error)
            return
        self.records_processed += len(records)
        for tp, offset in offsets.items():
            highwater = self._consumer.highwater(tp)
            if highwater is not None:
                worker.metrics.lag(tp.partition, max(0, highwater - offset))

    async def _flush_and_commit(self, offsets: dict[TopicPartition, int]) -> None:
        """Outputs first, then the offsets (ADR 5): a commit never covers an unsent output."""
        await self._producer.flush()
        self._worker().publisher.check_delivered()
        if not offsets:
            return
        try:
            await self._consumer.commit(offsets)
        except KafkaError as error:
            # The group moved on (rebalance): the next owner re-folds from the last commit
            # and re-publishes identical records. A duplicate, never a loss.
            log.warning("commit of %s failed: %s", _shown(offsets), error)
            self._worker().metrics.commit_failures.inc()
            return
        for tp, offset in offsets.items():
            self.committed[tp.partition] = offset

    async def _rewind(self, error: Undelivered) -> None:
        """Fold the owned partitions again from their last commit: the records whose
        outputs were lost publish them again (the delivered ones are published twice,
        byte-identical: at least once, ADR 5)."""
        await self._forget_states(error)
        for partition in sorted(self._owned):
            committed = self.committed_offset(partition)
            self._consumer.seek(TopicPartition(QUEUE.name, partition), committed)

    async def _forget_states(self, error: Undelivered) -> None:
        """Say so once, count it, and drop every partition's state: each is rebuilt from
        its snapshot at its next record, once the consumer is back at the commit."""
        worker = self._worker()
        log.warning(
            "outputs not delivered (%s); partitions %s are folded again from their last commit",
            error,
            sorted(self._owned),
        )
        worker.metrics.delivery_failures.inc()
        await self._producer.flush()
        with contextlib.suppress(Undelivered):  # what was in flight is sent again anyway
            worker.publisher.check_delivered()
        worker.forget(set(worker.states))

    async def revoked(self, partitions: Iterable[TopicPartition]) -> None:
        lost = {tp.partition for tp in partitions if tp.topic == QUEUE.name}
        async with self._lock:  # the batch in progress has committed when this runs
            await self._producer.flush()
            try:
                self._worker().publisher.check_delivered()
            except Undelivered as error:  # the reassignment puts positions at the commits
                await self._forget_states(error)
            self._owned -= lost
        log.info("queue partitions revoked: %s", sorted(lost))

    async def assigned(self, partitions: Iterable[TopicPartition]) -> None:
        mine = {tp.partition for tp in partitions if tp.topic == QUEUE.name}
        async with self._lock:
            worker = self._worker()
            gone = set(worker.states) - mine
            worker.forget(gone)
            worker.metrics.forget_partitions(gone)
            self._table.forget(gone)
            for partition in mine:
                committed = await self._consumer.committed(TopicPartition(QUEUE.name, partition))
                self.committed[partition] = committed or 0
            new = mine - set(worker.states)
            await self._table.load(new)
            await worker.load_owned({p: self.committed[p] for p in new})
            self._owned = mine
        log.info("queue partitions assigned: %s (loaded %s)", sorted(mine), sorted(new))


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, owner: DirectQueueConsumer) -> None:
        self._owner = owner

    async def on_partitions_revoked(self, revoked: Any) -> None:
        try:
            await self._owner.revoked(revoked)
        except Exception as error:
            self._owner.failure = error

    async def on_partitions_assigned(self, assigned: Any) -> None:
        try:
            await self._owner.assigned(assigned)
        except Exception as error:  # a corrupt snapshot, an unreadable log: stop, loudly
            log.exception("loading assigned queue partitions failed")
            self._owner.failure = error


def _shown(offsets: dict[TopicPartition, int]) -> str:
    return ", ".join(f"{tp.partition}@{offset}" for tp, offset in sorted(offsets.items()))
