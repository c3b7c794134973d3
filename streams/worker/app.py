"""The worker process: the Faust app (wave timer, web views, metrics) and the queue consumer.

The queue topic is read by a plain aiokafka loop (streams/worker/direct.py, docs/adr/0061)
and snapshots go to a topic of their own; Faust runs the timer, the web views and its
Prometheus sensor and consumes nothing of ours (docs/adr/0120).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import faust
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from faust.sensors.prometheus import setup_prometheus_sensors
from prometheus_client import REGISTRY, CollectorRegistry

from schemas.topics import QUEUE, murmur2_partition, queue_key
from streams.connection import (
    connection_of,
    faust_credentials,
    registry_of,
    start_client,
    stop_client,
)
from streams.settings import Settings
from streams.web_access import web_application_options
from streams.wire.avro import Framing
from streams.wire.registry import RegistryError, SchemaRegistry
from streams.worker.catchup import read_range
from streams.worker.config_log import ConfigCatalog, follow_config
from streams.worker.config_record import publish_config
from streams.worker.direct import DirectQueueConsumer, output_producer, queue_consumer
from streams.worker.folding import Folder
from streams.worker.metrics import WorkerMetrics
from streams.worker.outage import BrokerWatch, hold_back_client_noise, watch_broker
from streams.worker.publisher import Publisher
from streams.worker.queue_worker import QueueWorker, ReadRange
from streams.worker.snapshot_topic import TopicStateTable, snapshot_topic
from streams.worker.ticker import Ticker

log = logging.getLogger(__name__)
#: Long past any worker's life: Faust's stream checks never fire (see create_app).
STREAMS_UNCHECKED_S = 10 * 365 * 24 * 3600.0


@dataclass(slots=True)
class Runtime:
    """What a worker process builds once its event loop runs, and none of it before.

    aiokafka clients belong to the running loop. The web views and the wave timer read
    these; each field is set once, when the queue consumer task starts.
    """

    worker: QueueWorker | None = None
    producer: AIOKafkaProducer | None = None
    consumer: DirectQueueConsumer | None = None

    def owned(self) -> set[int]:
        return self.consumer.owned() if self.consumer is not None else set()

    def queue_rows(self) -> list[dict[str, Any]]:
        """Per (queue, region) this worker owns: its partition, depth and waves closed.

        A configured region no event has reached yet is listed too, empty: an operator
        checking a new deployment sees every region its workers own.
        """
        if self.worker is None:
            return []
        rows = []
        for partition, state in sorted(self.worker.states.items()):
            regions = state.book.regions
            places = set(regions) | set(self.worker.folder.places_in(partition))
            for queue, region in sorted(places):
                region_queue = regions.get((queue, region))
                rows.append(
                    {
                        "queue": queue,
                        "region": region,
                        "partition": partition,
                        "tickets": 0 if region_queue is None else len(region_queue.tickets),
                        "players": 0 if region_queue is None else region_queue.players_queued,
                        "waves_closed": 0 if region_queue is None else region_queue.waves_closed,
                        "applied_offset": state.applied_offset,
                    }
                )
        return rows

    def closing(self, partition: int) -> bool:
        """Whether a wave closing on a thread is changing the partition's state."""
        return self.worker is not None and partition in self.worker.closing

    def region_state(self, settings: Settings, queue: str, region: str) -> Any:
        if self.worker is None:
            return None
        partition = murmur2_partition(queue_key(queue, region), settings.partitions)
        state = self.worker.states.get(partition)
        return state.book.regions.get((queue, region)) if state is not None else None


async def open_registry(settings: Settings) -> tuple[SchemaRegistry | None, Framing | None]:
    """The worker's registry and its output framing (None, None without one).

    Raises RegistryError (one line) when the registry refuses a schema or does not answer:
    a worker must not publish what its readers' registry has not accepted.
    """
    registry = registry_of(settings)
    if registry is None:
        return None, None
    return registry, await registry.register_outputs()


#: A set of extra web views: added to the app, given the settings and this worker's
#: queue rows. The console is one (streams/console/); it reads the audit layer, which
#: sits above this package, so the command passes it in rather than this module import it.
Views = Callable[[faust.App, Settings, Callable[[], list[dict[str, Any]]]], None]


def create_app(
    settings: Settings, registry: CollectorRegistry | None = None, views: Sequence[Views] = ()
) -> faust.App:
    problem = settings.web_access_problem()
    if problem is not None:  # the command says so in one line first; this guards other callers
        raise ValueError(problem)
    app = faust.App(
        settings.app_id,
        broker=settings.broker_url,
        broker_credentials=faust_credentials(connection_of(settings)),
        store="memory://",
        datadir=str(settings.faust_data_dir),
        env={},  # Faust would otherwise let BROKER_URL, WEB_PORT... override these arguments
        topic_partitions=settings.partitions,
        topic_replication_factor=settings.replication_factor,
        topic_allow_declare=not settings.is_embedded_broker,
        web_enabled=settings.web_enabled,
        web_host=settings.web_host,
        web_bind=settings.web_host,
        web_port=settings.web_port,
        web_in_thread=False,
        web_application_options=web_application_options(_token(settings), settings.web_host),
        broker_session_timeout=settings.session_timeout_ms / 1000,
        broker_heartbeat_interval=settings.heartbeat_interval_ms / 1000,
        # Faust's checks that its streams fetch and advance: it runs no stream here (the
        # queue has its own consumer), and its one partition, the assignor's leader
        # topic, is never read, so the checks would log a false ERROR minutes after
        # every assignment.
        stream_processing_timeout=STREAMS_UNCHECKED_S,
    )
    metrics = WorkerMetrics(registry)
    runtime = Runtime()
    folder = Folder.from_settings(settings, follows_configs=True)
    catalog = ConfigCatalog(settings, folder.layouts, lambda line: metrics.configs_refused.inc())
    config_loaded = asyncio.Event()

    @app.task
    async def config_follower() -> None:
        # Every configuration a tick may carry is known before the first record is folded
        # (a takeover re-folds ticks of configurations published long ago: ADR 0160).
        await follow_config(connection_of(settings), catalog, config_loaded)

    watch = BrokerWatch(connection_of(settings).bootstrap, registry)

    @app.task
    async def broker_watch() -> None:
        # Faust has set up the worker's log handlers by now: filter what they write.
        hold_back_client_noise(watch)
        await watch_broker(watch, connection_of(settings).bootstrap)

    @app.task
    async def consume_queue() -> None:
        producer, kafka_consumer = output_producer(settings), queue_consumer(settings)
        try:
            await consume_queue_with(producer, kafka_consumer)
        finally:
            # Both clients exist from here: a worker stopped before its consumer ran (a
            # Ctrl-C in its first seconds) closes them too, not the garbage collector.
            await stop_client(kafka_consumer)
            await stop_client(producer)

    async def consume_queue_with(
        producer: AIOKafkaProducer, kafka_consumer: AIOKafkaConsumer
    ) -> None:
        table = TopicStateTable(connection_of(settings), snapshot_topic(settings.app_id), producer)
        consumer = DirectQueueConsumer(
            kafka_consumer, producer, table, lambda: _built(runtime.worker)
        )
        try:
            registry, framing = await open_registry(settings)
        except RegistryError as error:
            log.error("%s; stopping the worker", error)
            await app.crash(error)
            return
        # The one Folder whose layouts the config follower fills (replace shares the table).
        queue_folder = folder if registry is None else replace(folder, unframe=registry.unframe)
        # Built now, strategies imported, before the first assignment rather than inside it.
        runtime.worker = QueueWorker(
            queue_folder,
            table,
            Publisher(producer, lambda topic: settings.partitions, framing),
            producer.flush,
            _reader(settings),
            consumer.committed_offset,
            settings.snapshot_min_events,
            settings.snapshot_max_refold_ms,
            metrics,
            registry,
        )
        runtime.producer, runtime.consumer = producer, consumer
        await start_client(producer)
        await config_loaded.wait()
        await run_or_crash(consumer.run, app.crash)

    async def send_tick(partition: int, key: bytes, value: bytes) -> None:
        # Ticks go through the outputs' producer; the timer ticks only owned partitions.
        if runtime.producer is None:
            raise RuntimeError("a wave tick before the output producer was built")
        await runtime.producer.send(QUEUE.name, value, key=key, partition=partition)

    @app.task
    async def wave_timer() -> None:
        await publish_config(settings)  # what this fingerprint stands for (ADR 0075)
        await config_loaded.wait()
        await Ticker(
            settings,
            send_tick,
            runtime.owned,
            lambda queue, region: runtime.region_state(settings, queue, region),
            in_force=lambda: catalog.in_force,
            broker_up=lambda: watch.up,
            closing=runtime.closing,
        ).run()

    @app.page("/health")
    async def health(web: Any, request: Any) -> Any:
        return web.json({"status": "ok", "partitions": sorted(runtime.owned())})

    @app.page("/queues")
    async def queues(web: Any, request: Any) -> Any:
        return web.json({"queues": runtime.queue_rows()})

    if settings.web_enabled:
        setup_prometheus_sensors(app, pattern="/metrics", registry=registry or REGISTRY)
        for add_views in views:
            add_views(app, settings, runtime.queue_rows)
    return app


async def run_or_crash(
    run: Callable[[], Awaitable[None]], crash: Callable[[BaseException], Awaitable[None]]
) -> None:
    """Run the queue consumer; whatever ends it but the worker's own stop crashes the
    worker, whose supervisor then restarts it: without its consumer a worker would stay
    up, healthy to every probe, folding nothing.

    A cancellation counts as the worker's stop only when this task was asked to stop: the
    Kafka client can end a fetch or a rebalance with a CancelledError of its own (a
    broker lost while partitions were being assigned).
    """
    try:
        await run()
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is None or task.cancelling():
            raise
        log.error("the queue consumer was cancelled inside the Kafka client; stopping the worker")
        await crash(RuntimeError("queue consumer cancelled inside the Kafka client"))
    except Exception as error:
        log.exception("the queue consumer failed; stopping the worker")
        await crash(error)


def _token(settings: Settings) -> str | None:
    return settings.web_token.get_secret_value() if settings.web_token is not None else None


def _built(worker: QueueWorker | None) -> QueueWorker:
    if worker is None:
        raise RuntimeError("the queue worker is built before its consumer starts")
    return worker


def _reader(settings: Settings) -> ReadRange:
    connection = connection_of(settings)

    def read(partition: int, start: int, end: int) -> Any:
        return read_range(connection, QUEUE.name, partition, start, end)

    return read
