"""What a queue-topic consumer *without* Faust's per-message path folds (ADR 8, ADR 61).

    .venv/bin/python scripts/bench_direct_fold.py [--events 60000] [--no-status]

Not the product's worker: a measurement for the decision in ADR 8. It starts the
embedded broker, creates the topics, produces N JSON joins (the backlog workload of
``scripts/bench_worker.py``: 8 regions, no wave closes), then times three loops over
the same records with the worker's own code (``Folder.fold`` and ``records_of``):

1. ``fold``: the records already in memory, fold + output encoding only;
2. ``consume``: a plain aiokafka consumer (no group) reading every partition, no fold;
3. ``direct``: consume, fold, encode and publish every output with the worker's
   ``Publisher`` on a plain aiokafka producer, until the producer has flushed;
4. ``engine``: the worker's own direct consumer (streams/worker/direct.py, ADR 61) in
   this process: group membership, ``QueueWorker.process``, a flush and a commit per
   fetch, snapshots in their topic. What ``wavematch worker`` runs, minus Faust's timer
   and web views (``scripts/bench_worker.py backlog`` measures the whole process).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition  # noqa: E402
from bench_worker import REGIONS, join_value, producer  # noqa: E402
from prometheus_client import CollectorRegistry  # noqa: E402

from streams.embedded.broker import EmbeddedBroker  # noqa: E402
from streams.settings import Settings, load_settings  # noqa: E402
from streams.topics import ensure_topics  # noqa: E402
from streams.wire.outbound import Record, Writer  # noqa: E402
from streams.worker.catchup import read_range  # noqa: E402
from streams.worker.direct import (  # noqa: E402
    DirectQueueConsumer,
    output_producer,
    queue_consumer,
)
from streams.worker.folding import Folder, PartitionState  # noqa: E402
from streams.worker.metrics import WorkerMetrics  # noqa: E402
from streams.worker.outputs import records_of  # noqa: E402
from streams.worker.publisher import Publisher  # noqa: E402
from streams.worker.queue_worker import QueueWorker  # noqa: E402
from streams.worker.snapshot_topic import TopicStateTable, snapshot_topic  # noqa: E402

QUEUE_TOPIC = "wavematch.queue.v1"
CONFIG = """
partitions = 8
publish_status = {status}
[[queues]]
name = "1v1"
strategy = "optimal"
regions = {regions}
wave_interval_ms = 3600000
"""


async def from_start(bootstrap: str, partitions: int) -> AIOKafkaConsumer:
    """A started consumer outside any group, at offset 0 of every queue partition."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        fetch_max_wait_ms=100,
        max_partition_fetch_bytes=4 * 1024 * 1024,
    )
    await consumer.start()
    tps = [TopicPartition(QUEUE_TOPIC, p) for p in range(partitions)]
    consumer.assign(tps)
    for tp in tps:
        consumer.seek(tp, 0)
    return consumer


async def read_all(bootstrap: str, partitions: int, total: int) -> tuple[list, float]:  # type: ignore[type-arg]
    consumer = await from_start(bootstrap, partitions)
    try:
        records: list = []  # type: ignore[type-arg]
        started = time.perf_counter()
        while len(records) < total:
            batches = await consumer.getmany(timeout_ms=1_000, max_records=5_000)
            for batch in batches.values():
                records.extend(batch)
        return records, time.perf_counter() - started
    finally:
        await consumer.stop()


#: The script's writer of output records (a worker has one).
WRITER = Writer()


def fold_records(folder: Folder, states: dict[int, PartitionState], records: list) -> list[Record]:  # type: ignore[type-arg]
    """Fold consumer records with the worker's code; their encoded outputs, in order."""
    outputs: list[Record] = []
    for record in records:
        folded = folder.fold(states[record.partition], record.key, record.value, record.offset)
        if folded is not None:
            outputs.extend(
                records_of(
                    WRITER,
                    folded,
                    topic=QUEUE_TOPIC,
                    partition=record.partition,
                    key=record.key,
                    value=record.value,
                )
            )
    return outputs


def fold_in_memory(folder: Folder, records: list) -> float:  # type: ignore[type-arg]
    states = {p: folder.new_state(p) for p in {r.partition for r in records}}
    started = time.perf_counter()
    fold_records(folder, states, records)
    return time.perf_counter() - started


async def direct(bootstrap: str, folder: Folder, partitions: int, total: int) -> float:
    consumer = await from_start(bootstrap, partitions)
    out = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=5, acks=1)
    await out.start()
    try:
        publisher = Publisher(out, lambda topic: partitions)
        states = {p: folder.new_state(p) for p in range(partitions)}
        seen = 0
        started = time.perf_counter()
        while seen < total:
            batches = await consumer.getmany(timeout_ms=1_000, max_records=5_000)
            outputs = []
            for batch in batches.values():
                outputs += fold_records(folder, states, batch)
                seen += len(batch)
            await publisher.publish(outputs)
        await out.flush()
        return time.perf_counter() - started
    finally:
        await consumer.stop()
        await out.stop()


async def engine(settings: Settings, total: int) -> float:
    """The worker's own direct consumer (group, commits after flushes, snapshots), in process.

    Timed from the moment it owns every partition to the moment it has processed
    ``total`` records (their outputs flushed and offsets committed).
    """
    producer = output_producer(settings)
    await producer.start()
    table = TopicStateTable(settings.broker_host_port, snapshot_topic(settings.app_id), producer)
    holder: dict[str, QueueWorker] = {}
    direct = DirectQueueConsumer(queue_consumer(settings), producer, table, lambda: holder["w"])
    holder["w"] = QueueWorker(
        Folder.from_settings(settings),
        table,
        Publisher(producer, lambda topic: settings.partitions),
        producer.flush,
        lambda p, start, end: read_range(settings.broker_host_port, QUEUE_TOPIC, p, start, end),
        direct.committed_offset,
        settings.snapshot_min_events,
        settings.snapshot_max_refold_ms,
        WorkerMetrics(CollectorRegistry()),
    )
    task = asyncio.create_task(direct.run())
    try:
        while len(direct.owned()) < settings.partitions:
            await asyncio.sleep(0.005)
        started = time.perf_counter()
        while direct.records_processed < total:
            if task.done():
                task.result()
            await asyncio.sleep(0.005)
        return time.perf_counter() - started
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await producer.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=60_000)
    parser.add_argument("--no-status", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-direct-") as folder:
        work = Path(folder)
        config = work / "wavematch.toml"
        status = str(not args.no_status).lower()
        config.write_text(CONFIG.format(status=status, regions=list(REGIONS)))
        with EmbeddedBroker(log_path=work / "broker.log") as broker:
            settings = load_settings(config, broker_url=broker.url)
            asyncio.run(ensure_topics(settings))
            out, rng = producer(broker.bootstrap), random.Random(1)
            for number in range(args.events):
                key, value = join_value(number, rng)
                out.produce(QUEUE_TOPIC, value, key)
                if number % 10_000 == 0:
                    out.poll(0)
            out.flush(60)
            records, consume_s = asyncio.run(read_all(broker.bootstrap, 8, args.events))
            fold_s = fold_in_memory(Folder.from_settings(settings), records)
            direct_s = asyncio.run(
                direct(broker.bootstrap, Folder.from_settings(settings), 8, args.events)
            )
            engine_s = asyncio.run(engine(settings, args.events))
    n = args.events
    print(f"events {n}, statuses {status}")
    print(f"consume only : {n / consume_s:9,.0f} events/s ({consume_s:.2f} s)")
    print(f"fold in memory: {n / fold_s:9,.0f} events/s ({fold_s:.2f} s)")
    print(f"direct loop  : {n / direct_s:9,.0f} events/s ({direct_s:.2f} s)")
    print(f"worker engine: {n / engine_s:9,.0f} events/s ({engine_s:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
