"""CPU per queue join of the worker's fold, in memory, for comparing two trees.

    .venv/bin/python scripts/bench_join_fold.py [--tree TREE] [--events 30000] [--repeat 5]

The backlog workload of ``scripts/bench_worker.py`` (1v1 JSON joins over 8 regions, no
wave closes), built in memory with fixed timestamps, so that the outputs' hash is the
same on every run: it must be equal across the trees compared (byte-identical outputs).
Two loops, each timed with the process's CPU time (``time.process_time``), the minimum
and median over ``--repeat`` runs on fresh states:

- ``fold``: ``Folder.fold`` and ``records_of`` per record, the GC held per batch of
  2,000 as ``QueueWorker.process`` holds it (``bench_direct_fold.py``'s "fold in memory"
  loop, without the broker it needs to produce its records);
- ``worker``: ``QueueWorker.process`` on batches of 2,000 (metrics, the Publisher's
  grouping and aiokafka's batch builders included), with a producer that drops the
  built batches and a snapshot table that drops the snapshots.

``--tree`` runs another checkout's code (a copy of the tree before a change): alternate
runs of both trees so that both see the same load on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import inspect
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

REGIONS = ("eu", "na", "asia", "sa", "oce", "me", "af", "cn")
START_MS = 1_767_225_600_000
BATCH = 2_000
CONFIG = """
partitions = 8
[[queues]]
name = "1v1"
strategy = "optimal"
regions = {regions}
wave_interval_ms = 3600000
"""


class InputRecord(NamedTuple):
    """What ``QueueWorker.process`` reads of a consumer's record (its InputRecord)."""

    partition: int
    offset: int
    #: The broker's timestamp: the join's own time, as a producer without clock skew sets it.
    timestamp: int
    key: bytes
    value: bytes


def joins(events: int, queue_key: Any, murmur2_partition: Any) -> list[InputRecord]:
    """``bench_worker.join_value``'s joins, stamped ``START_MS + number``, in partition
    batches of up to ``BATCH`` records as a consumer's fetch delivers them."""
    rng, by_partition = random.Random(1), {}  # type: ignore[var-annotated]
    for number in range(events):
        region = REGIONS[number % len(REGIONS)]
        side, mmr = rng.random(), int(rng.gauss(1500, 250))
        ratings = (
            {"bw": max(mmr, 0)}
            if side < 0.35
            else (
                {"sc2": max(mmr, 0)} if side < 0.7 else {"bw": max(mmr, 0), "sc2": max(mmr + 50, 0)}
            )
        )
        body = {
            "type": "TicketJoined",
            "ticket_id": f"b{number}",
            "queue": "1v1",
            "region": region,
            "joined_at_ms": START_MS + number,
            "players": [{"player_id": f"p{number}", "ratings": ratings}],
        }
        key = queue_key("1v1", region)
        partition = murmur2_partition(key, 8)
        items = by_partition.setdefault(partition, [])
        items.append(
            InputRecord(partition, len(items), START_MS + number, key, json.dumps(body).encode())
        )
    records = []
    for start in range(0, events, BATCH // 8):  # fetches interleave the partitions
        for partition in sorted(by_partition):
            records += by_partition[partition][start : start + BATCH // 8]
    return records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--loop", choices=("fold", "worker", "both"), default="both")
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from streams.worker.folding import Folder

    settings, records = backlog(args.events)
    loops = ("fold", "worker") if args.loop == "both" else (args.loop,)
    for loop in loops:
        times, digest = [], ""
        for _ in range(args.repeat):
            folder = Folder.from_settings(settings)
            if loop == "fold":
                seconds, digest = fold_loop(folder, records)
            else:
                seconds = worker_loop(folder, settings, records)
            times.append(seconds / len(records) * 1e6)
        print(
            f"{loop:6} {args.tree}: CPU us/join min {min(times):.1f} "
            f"median {statistics.median(times):.1f} "
            f"[{', '.join(f'{t:.1f}' for t in times)}]" + (f" hash {digest}" if digest else "")
        )
    return 0


def settings_from(text: str, **overrides: Any) -> Any:
    """The tree's settings read from ``text``, written to a fresh configuration file (the
    tree's packages first on ``sys.path``), with ``overrides`` as ``load_settings`` takes them."""
    import tempfile

    from streams.settings import load_settings

    with tempfile.TemporaryDirectory(prefix="bench-join-") as folder:
        config = Path(folder) / "wavematch.toml"
        config.write_text(text)
        return load_settings(config, **overrides)


def backlog(events: int) -> tuple[Any, list[InputRecord]]:
    """This workload's settings and its ``events`` join records, for the tree first on
    ``sys.path``."""
    from schemas.topics import murmur2_partition, queue_key

    return settings_from(CONFIG.format(regions=list(REGIONS))), joins(
        events, queue_key, murmur2_partition
    )


def stamps_records(folder: Any) -> bool:
    """Whether the tree's ``Folder.fold`` takes the record's broker timestamp (the worker
    passes it; a tree from before the time checks takes none)."""
    return "timestamp_ms" in inspect.signature(folder.fold).parameters


def fold_loop(folder: Any, records: list[InputRecord]) -> tuple[float, str]:
    from streams.worker.folding import paused_gc

    records_of = encoder()

    states = {p: folder.new_state(p) for p in {r.partition for r in records}}
    outputs: list[tuple[str, bytes, bytes]] = []
    stamped = stamps_records(folder)
    started = time.process_time()
    for start in range(0, len(records), BATCH):
        with paused_gc(age_after=0):
            for record in records[start : start + BATCH]:
                state, key, value, offset = (
                    states[record.partition],
                    record.key,
                    record.value,
                    record.offset,
                )
                folded = (
                    folder.fold(state, key, value, offset, record.timestamp)
                    if stamped
                    else folder.fold(state, key, value, offset)
                )
                if folded is not None:
                    outputs += records_of(
                        folded,
                        topic="wavematch.queue.v1",
                        partition=record.partition,
                        key=record.key,
                        value=record.value,
                    )
    seconds = time.process_time() - started
    digest = hashlib.sha256()
    for topic, key, value in outputs:
        digest.update(
            b"%d:%s%d:%s%d:%s" % (len(topic), topic.encode(), len(key), key, len(value), value)
        )
    return seconds, digest.hexdigest()[:16]


def encoder() -> Any:
    """The tree's ``records_of(folded, *, topic, partition, key, value)``: with a writer
    of its own where the tree has one (streams/wire/), the module function before."""
    try:
        from streams.wire.outbound import Writer
        from streams.worker.outputs import records_of
    except ImportError:  # a tree before streams/wire/
        from streams.worker.publisher import records_of as before

        return before
    return functools.partial(records_of, Writer())


class _Producer:
    """aiokafka's batch builders, the built batches dropped."""

    def create_batch(self) -> Any:
        from aiokafka.producer.message_accumulator import BatchBuilder

        return BatchBuilder(512 * 1024, 0)  # output_producer: max_batch_size, no compression

    async def send_batch(self, batch: Any, topic: str, *, partition: int) -> Any:
        batch._builder.build()
        delivered = asyncio.get_running_loop().create_future()
        delivered.set_result(None)
        return delivered


class _Table:
    def read(self, key: str) -> bytes | None:
        return None

    async def write(self, partition: int, key: str, value: bytes) -> None:
        return None


def worker_loop(folder: Any, settings: Any, records: list[InputRecord]) -> float:
    from prometheus_client import CollectorRegistry

    from streams.worker.metrics import WorkerMetrics
    from streams.worker.publisher import Publisher
    from streams.worker.queue_worker import QueueWorker

    async def nothing() -> None:
        return None

    # A tree from before snapshots by wave cost (ADR 0206) takes the event count alone.
    cadence = [settings.snapshot_min_events]
    if hasattr(settings, "snapshot_max_refold_ms"):
        cadence.append(settings.snapshot_max_refold_ms)

    async def run() -> float:
        worker = QueueWorker(
            folder,
            _Table(),
            Publisher(_Producer(), lambda topic: settings.partitions),  # type: ignore[arg-type]
            nothing,
            None,  # type: ignore[arg-type]
            lambda partition: 0,
            *cadence,
            WorkerMetrics(CollectorRegistry()),
        )
        worker.states = {p: folder.new_state(p) for p in range(settings.partitions)}
        started = time.process_time()
        for start in range(0, len(records), BATCH):
            await worker.process(records[start : start + BATCH])
        return time.process_time() - started

    return asyncio.run(run())


if __name__ == "__main__":
    raise SystemExit(main())
