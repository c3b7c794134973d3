"""The worker process: the Faust app (wave timer, web views, metrics) and the queue consumer.

``consumer = "direct"`` (docs/adr/0061): the queue topic is read by a plain aiokafka loop
(streams/worker/direct.py), snapshots go to their own topic. ``consumer = "faust"``
(docs/adr/0008): one Faust agent on the queue topic, snapshots in a Faust table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import faust
from aiokafka import AIOKafkaProducer
from faust.sensors.prometheus import setup_prometheus_sensors
from faust.types import TP
from prometheus_client import REGISTRY, CollectorRegistry

from schemas.topics import QUEUE, murmur2_partition, queue_key
from streams.connection import connection_of, faust_credentials
from streams.settings import Settings
from streams.worker.catchup import read_range
from streams.worker.config_record import publish_config
from streams.worker.direct import DirectQueueConsumer, output_producer, queue_consumer
from streams.worker.folding import Folder
from streams.worker.metrics import WorkerMetrics
from streams.worker.publisher import Publisher
from streams.worker.queue_worker import QueueWorker, ReadRange, StateTable
from streams.worker.snapshot_topic import TopicStateTable, snapshot_topic
from streams.worker.ticker import Ticker

log = logging.getLogger(__name__)

STATE_TABLE = "queue-state"
#: Records per agent batch: large enough to amortise Faust's per-batch cost, small
#: enough that a tick is never held back long behind joins.
BATCH_RECORDS = 2_000
BATCH_WITHIN_S = 0.02


@dataclass(slots=True)
class Runtime:
    """What a worker process builds once its event loop runs, and none of it before.

    ``worker`` folds the queue topic (either mode); ``producer`` and ``consumer`` are the
    direct mode's aiokafka clients (they belong to the running loop). The web views and
    the wave timer read it; each field is set once, when its object is built.
    """

    worker: QueueWorker | None = None
    producer: AIOKafkaProducer | None = None
    consumer: DirectQueueConsumer | None = None


def state_changelog_topic(settings: Settings) -> str:
    return f"{settings.app_id}-{STATE_TABLE}-changelog"


class FaustStateTable:
    """Snapshot records in a Faust table, written to an explicit changelog partition.

    Faust refuses table writes outside per-event stream iteration (our agent takes
    batches), so records are put in the store and sent to the changelog directly: the
    changelog partition is the input partition the snapshot belongs to.
    """

    def __init__(self, table: faust.Table) -> None:
        self._table = table

    def read(self, key: str) -> bytes | None:
        value = self._table.data.get(key.encode())
        return bytes(value) if value is not None else None

    async def write(self, partition: int, key: str, value: bytes) -> None:
        raw_key = key.encode()
        self._table.data[raw_key] = value
        self._table.send_changelog(partition, raw_key, value)

    async def delete(self, partition: int, key: str) -> None:
        raw_key = key.encode()
        self._table.data.pop(raw_key, None)
        self._table.send_changelog(partition, raw_key, None)  # recovery deletes the key


@dataclass(slots=True)
class _Input:
    """A Faust message as the queue worker reads records: its timestamp in epoch ms."""

    partition: int
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None


def _input(message: Any) -> _Input:
    """Faust gives the Kafka timestamp in seconds (a float); the fold compares ms."""
    stamp = round(message.timestamp * 1000) if message.timestamp is not None else -1
    return _Input(message.partition, message.offset, stamp, message.key, message.value)


def create_app(settings: Settings, registry: CollectorRegistry | None = None) -> faust.App:
    app = faust.App(
        settings.app_id,
        broker=settings.broker_url,
        broker_credentials=faust_credentials(connection_of(settings)),
        store="memory://",
        env={},  # Faust would otherwise let BROKER_URL, WEB_PORT... override these arguments
        topic_partitions=settings.partitions,
        topic_replication_factor=settings.replication_factor,
        topic_allow_declare=not settings.is_embedded_broker,
        key_serializer="raw",
        value_serializer="raw",
        web_enabled=settings.web_enabled,
        web_host=settings.web_host,
        web_bind=settings.web_host,
        web_port=settings.web_port,
        web_in_thread=False,
        broker_session_timeout=settings.session_timeout_ms / 1000,
        broker_heartbeat_interval=settings.heartbeat_interval_ms / 1000,
        consumer_auto_offset_reset="earliest",
        processing_guarantee=settings.processing_guarantee,
        producer_max_batch_size=512 * 1024,
        # Bigger fetches and stream buffer: the agent takes batches of 2,000 records.
        broker_max_poll_records=5_000,
        stream_buffer_maxsize=16_384,
        producer_linger_ms=5,
        producer_acks=-1,
        table_standby_replicas=0,
    )
    metrics = WorkerMetrics(registry)
    runtime = Runtime()
    mode = _direct_mode if settings.consumer == "direct" else _faust_mode
    owned_partitions, send_tick = mode(app, settings, metrics, runtime)

    def region_state(queue: str, region: str) -> Any:
        if runtime.worker is None:
            return None
        partition = murmur2_partition(queue_key(queue, region), settings.partitions)
        state = runtime.worker.states.get(partition)
        return state.book.regions.get((queue, region)) if state is not None else None

    @app.task
    async def wave_timer() -> None:
        await publish_config(settings)  # what this fingerprint stands for (ADR 0075)
        await Ticker(settings, send_tick, owned_partitions, region_state).run()

    @app.page("/health")
    async def health(web: Any, request: Any) -> Any:
        return web.json({"status": "ok", "partitions": sorted(owned_partitions())})

    @app.page("/queues")
    async def queues(web: Any, request: Any) -> Any:
        rows = []
        states = runtime.worker.states if runtime.worker is not None else {}
        for partition, state in sorted(states.items()):
            for (queue, region), region_queue in sorted(state.book.regions.items()):
                rows.append(
                    {
                        "queue": queue,
                        "region": region,
                        "partition": partition,
                        "tickets": len(region_queue.tickets),
                        "players": region_queue.players_queued,
                        "waves_closed": region_queue.waves_closed,
                        "applied_offset": state.applied_offset,
                    }
                )
        return web.json({"queues": rows})

    if settings.web_enabled:
        setup_prometheus_sensors(app, pattern="/metrics", registry=registry or REGISTRY)
    return app


Owned = Callable[[], set[int]]
SendTick = Callable[[int, bytes, bytes], Awaitable[object]]


def _queue_worker(
    settings: Settings,
    table: StateTable,
    producer: Any,
    flush: Callable[[], Any],
    committed: Callable[[int], int],
    metrics: WorkerMetrics,
) -> QueueWorker:
    """The queue worker of either mode: they differ in where snapshots go, which producer
    publishes and whose committed offsets count."""
    partitions = settings.partitions
    return QueueWorker(
        Folder.from_settings(settings),
        table,
        Publisher(producer, lambda topic: partitions),
        flush,
        _reader(settings),
        committed,
        settings.snapshot_min_events,
        metrics,
    )


def _faust_mode(
    app: faust.App, settings: Settings, metrics: WorkerMetrics, runtime: Runtime
) -> tuple[Owned, SendTick]:
    """The queue topic on Faust's agent, snapshots in Faust's table (ADR 8)."""
    queue_topic = app.topic(
        QUEUE.name,
        key_type=bytes,
        value_type=bytes,
        partitions=settings.partitions,
        internal=False,
    )
    table = app.Table(STATE_TABLE, key_type=bytes, value_type=bytes, partitions=settings.partitions)

    def owned_partitions() -> set[int]:
        try:
            assignment = app.consumer.assignment()
        except Exception:  # consumer not started yet: owns nothing
            return set()
        return {tp.partition for tp in assignment if tp.topic == QUEUE.name}

    def committed_offset(partition: int) -> int:
        # Private, and must stay: Faust's consumer has no public read of the offsets it
        # committed (``seek_to_committed`` also moves the consumer). faust-streaming is
        # pinned; this view can lag the broker's, which only makes a catch-up re-publish
        # identical records.
        return app.consumer._committed_offset.get(TP(QUEUE.name, partition)) or 0

    def worker() -> QueueWorker:
        if runtime.worker is None:
            runtime.worker = _queue_worker(
                settings,
                FaustStateTable(table),
                # Private, and must stay: the Publisher appends to aiokafka's batch
                # builders (create_batch / send_batch), which Faust's Producer does not
                # expose; this returns the aiokafka producer it wraps.
                app.producer._ensure_producer(),
                app.producer.flush,
                committed_offset,
                metrics,
            )
        return runtime.worker

    @app.agent(queue_topic, name="fold-queue")
    async def fold_queue(stream: faust.StreamT[bytes]) -> None:
        async for events in stream.take_events(BATCH_RECORDS, within=BATCH_WITHIN_S):
            await worker().process([_input(event.message) for event in events])

    async def send_tick(partition: int, key: bytes, value: bytes) -> None:
        await app.producer.send(QUEUE.name, key, value, partition, None, None)

    @app.timer(1.0)
    async def load_owned_states() -> None:
        """Rebuild newly owned partitions' queues as soon as recovery is over."""
        owned = owned_partitions()
        if (
            app.rebalancing
            or not owned
            or (runtime.worker is not None and owned <= set(runtime.worker.states))
        ):
            return
        # Build (silently) up to the committed offset Faust knows. Faust may resume past
        # it (seen on the embedded broker); the agent's first record then folds the
        # records in between with their outputs (QueueWorker, point 4).
        await worker().load_owned({p: committed_offset(p) for p in owned})

    @app.on_partitions_revoked.connect
    async def on_revoked(sender: Any, revoked: Any, **kwargs: Any) -> None:
        lost = {tp.partition for tp in revoked if tp.topic == QUEUE.name}
        if runtime.worker is not None and lost:
            runtime.worker.forget(lost)

    return owned_partitions, send_tick


def _direct_mode(
    app: faust.App, settings: Settings, metrics: WorkerMetrics, runtime: Runtime
) -> tuple[Owned, SendTick]:
    """The queue topic on a plain aiokafka consumer, snapshots in their own topic (ADR 61).

    Faust keeps the wave timer (its ticks go through the same producer as the outputs),
    the web views and its Prometheus sensor; it consumes nothing of ours.
    """

    def worker() -> QueueWorker:
        if runtime.worker is None:
            raise RuntimeError("the queue worker is built before its consumer starts")
        return runtime.worker

    @app.task
    async def consume_queue() -> None:
        # aiokafka clients belong to the running loop: built when the task starts.
        producer = output_producer(settings)
        table = TopicStateTable(connection_of(settings), snapshot_topic(settings.app_id), producer)
        consumer = DirectQueueConsumer(queue_consumer(settings), producer, table, worker)
        # Built now, strategies imported, before the first assignment rather than inside it.
        runtime.worker = _queue_worker(
            settings, table, producer, producer.flush, consumer.committed_offset, metrics
        )
        runtime.producer, runtime.consumer = producer, consumer
        await producer.start()
        try:
            await consumer.run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # without its consumer the worker is useless: stop it
            log.exception("the queue consumer failed; stopping the worker")
            await app.crash(error)
        finally:
            await producer.stop()

    def owned() -> set[int]:
        return runtime.consumer.owned() if runtime.consumer is not None else set()

    async def send_tick(partition: int, key: bytes, value: bytes) -> None:
        if runtime.producer is None:  # the timer ticks only owned partitions: none yet
            raise RuntimeError("a wave tick before the output producer was built")
        await runtime.producer.send(QUEUE.name, value, key=key, partition=partition)

    return owned, send_tick


def _reader(settings: Settings) -> ReadRange:
    connection = connection_of(settings)

    def read(partition: int, start: int, end: int) -> Any:
        return read_range(connection, QUEUE.name, partition, start, end)

    return read
