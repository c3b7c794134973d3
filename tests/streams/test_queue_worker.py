"""The worker's catch-up rule: silent below the committed offset, outputs from there on.

A consumer that resumes past the committed offset (seen on the embedded broker after a
rebalance) must not swallow a wave: records nobody may have processed are folded with
their outputs, and records below the committed offset stay silent."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from schemas.codec import decode, history, schema_fingerprint
from schemas.models import WaveClosed
from streams.worker.folding import Folder
from streams.worker.metrics import WorkerMetrics
from streams.worker.publisher import Record
from streams.worker.queue_worker import OFF_LOOP_TICKETS, QueueWorker
from tests.streams.conftest import HOME, KEY, joined, tick


@dataclass(frozen=True)
class LogRecord:
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int = -1  # unknown: no time check


class CollectingPublisher:
    def __init__(self) -> None:
        self.records: list[Record] = []

    async def publish(self, records: list[Record]) -> int:
        self.records.extend(records)
        return len(records)

    def check_delivered(self) -> None:
        return None


class MemoryTable:
    def __init__(self) -> None:
        self.rows: dict[str, bytes] = {}

    def read(self, key: str) -> bytes | None:
        return self.rows.get(key)

    async def write(self, partition: int, key: str, value: bytes) -> None:
        self.rows[key] = value

    async def delete(self, partition: int, key: str) -> None:
        self.rows.pop(key, None)


def make_worker(
    folder: Folder,
    log: list[LogRecord],
    committed: int,
    registry: CollectorRegistry | None = None,
    max_refold_ms: float = math.inf,
) -> tuple[QueueWorker, CollectingPublisher]:

    async def read(partition: int, start: int, end: int) -> AsyncIterator[LogRecord]:
        for record in log:
            if record.partition == partition and start <= record.offset < end:
                yield record

    async def flush() -> None:
        return None

    publisher = CollectingPublisher()
    worker = QueueWorker(
        folder,
        MemoryTable(),
        publisher,  # type: ignore[arg-type]
        flush,
        read,
        lambda partition: committed,
        snapshot_min_events=10_000,
        snapshot_max_refold_ms=max_refold_ms,
        metrics=WorkerMetrics(registry or CollectorRegistry()),
    )
    return worker, publisher


def the_log() -> list[LogRecord]:
    values = [tick(1), tick(2), joined("t1", "p1"), joined("t2", "p2"), tick(3)]
    return [LogRecord(HOME, offset, KEY, value) for offset, value in enumerate(values)]


def waves_published(publisher: CollectingPublisher) -> list[str]:
    return [
        event.wave_id
        for _, _, value in publisher.records
        if isinstance(event := decode(value), WaveClosed)
    ]


@pytest.mark.parametrize(
    ("committed", "expected_waves"),
    [(0, ["1", "2", "3"]), (2, ["3"]), (4, ["3"])],
)
async def test_records_between_the_committed_offset_and_the_resume_point_are_published(
    folder: Folder,
    committed: int,
    expected_waves: list[str],
) -> None:
    log = the_log()
    worker, publisher = make_worker(folder, log, committed)
    await worker.process([log[4]])  # the consumer resumed at offset 4
    assert waves_published(publisher) == expected_waves
    assert worker.states[HOME].applied_offset == 4


async def test_a_state_loaded_at_a_lagging_offset_is_completed_with_outputs_past_the_commit(
    folder: Folder,
) -> None:
    log = the_log()
    registry = CollectorRegistry()
    worker, publisher = make_worker(folder, log, committed=2, registry=registry)
    await worker.load_owned({HOME: 0})  # Faust's view lagged: nothing folded yet
    assert worker.states[HOME].applied_offset == -1
    await worker.process([log[4]])
    assert waves_published(publisher) == ["3"]  # waves 1 and 2 were committed: silent
    refolded = registry.get_sample_value(
        "wavematch_catch_up_events_total", {"partition": str(HOME)}
    )
    assert refolded == 2  # offsets 0 and 1, below the commit


async def test_in_order_records_are_folded_once_with_their_outputs(
    folder: Folder,
) -> None:
    log = the_log()
    worker, publisher = make_worker(folder, log, committed=0)
    await worker.process(log[:3])
    await worker.process(log[3:])
    await worker.process(log[3:])  # a redelivery changes nothing
    assert waves_published(publisher) == ["1", "2", "3"]


async def test_a_partition_is_snapshotted_once_its_waves_took_the_refold_limit_to_close(
    folder: Folder,
) -> None:
    """Far below ``snapshot_min_events``: the waves' own cost decides (a takeover from the
    snapshot re-runs the waves after it); joins alone cost no wave time."""
    log = the_log()
    never, _ = make_worker(folder, log, committed=0)
    worker, _ = make_worker(folder, log, committed=0, max_refold_ms=1e-6)
    for each in (never, worker):
        await each.process(log[:2])  # two waves
    manifest = f"{HOME}/manifest"
    assert manifest not in never.table.rows  # type: ignore[attr-defined]
    rows = worker.table.rows  # type: ignore[attr-defined]
    assert json.loads(rows[manifest])["offset"] == 1
    assert worker.states[HOME].wave_ms_since_snapshot == 0.0
    await worker.process(log[2:4])  # two joins: no wave to re-run
    assert json.loads(rows[manifest])["offset"] == 1
    assert worker.states[HOME].events_since_snapshot == 2
    await worker.process(log[4:])
    assert json.loads(rows[manifest])["offset"] == 4


def decided(publisher: CollectingPublisher) -> list[Any]:
    from streams.audit.compare import comparable

    return [(topic, key, comparable(topic, value)) for topic, key, value in publisher.records]


async def test_a_registry_outage_holds_framed_joins_back_and_loses_none(
    folder: Folder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from dataclasses import replace

    from schemas.models import TicketJoined
    from streams.wire import registry as registry_module
    from streams.wire.avro import registry_header
    from streams.wire.registry import SchemaRegistry
    from tests.streams.test_registry_wire import FakeClient

    class Away(FakeClient):  # does not answer the first two look-ups
        async def get_schema(self, schema_id: int):  # type: ignore[no-untyped-def]
            self.failing = OSError("connection refused") if self.lookups < 2 else None
            return await super().get_schema(schema_id)

    monkeypatch.setattr(registry_module, "_RETRY_FIRST_S", 0.01)
    plain = the_log()
    framed = [
        replace(r, value=registry_header(7) + r.value[10:])  # type: ignore[index]
        if isinstance(decode(r.value or b""), TicketJoined)
        else r
        for r in plain
    ]
    assert sum(r.value != p.value for r, p in zip(framed, plain, strict=True)) == 2
    expected_worker, expected = make_worker(folder, plain, committed=0)
    await expected_worker.process(plain)

    # The joins' own writer schema (a join without the newer fields is written as r2).
    (written,) = {r.value[2:10] for r in plain if isinstance(decode(r.value or b""), TicketJoined)}
    (source,) = [
        schema
        for schema in history("TicketJoined").values()
        if schema_fingerprint(schema) == written
    ]
    client = Away({7: json.dumps(source)})
    registry = SchemaRegistry(client)
    metrics = CollectorRegistry()
    worker, publisher = make_worker(
        replace(folder, unframe=registry.unframe), framed, committed=0, registry=metrics
    )
    worker.registry = registry
    with caplog.at_level("WARNING"):
        await worker.process(framed)
    assert client.lookups == 3
    # The same outputs as of the log single-object (timings aside), no dead letter.
    assert decided(publisher) == decided(expected) and len(decided(expected)) > 2
    assert metrics.get_sample_value("wavematch_registry_waiting") == 0
    said = [r.getMessage() for r in caplog.records if "schema registry" in r.getMessage()]
    assert len(said) == 2 and "connection refused" in said[0] and "held back" in said[0]
    assert "answers again" in said[1]


async def test_a_large_wave_closes_on_a_thread_with_the_records_it_has_on_the_loop(
    folder: Folder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/adr/0216: the same close, off the event loop, its partition marked closing.
    (The test's strategy taken for a built-in one: a plug-in's waves all close off it.)"""
    monkeypatch.setattr("streams.worker.queue_worker.is_built_in", lambda name: True)
    values = [joined(f"t{n}", f"p{n}") for n in range(OFF_LOOP_TICKETS)] + [tick(1)]
    log = [LogRecord(HOME, offset, KEY, value) for offset, value in enumerate(values)]
    published, threads, marked = [], [], []
    close_wave = Folder.close_wave

    def watched(self: Folder, state: Any, due: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        marked.append(set(worker.closing))
        return close_wave(self, state, due)

    monkeypatch.setattr(Folder, "close_wave", watched)
    for off_loop_from in (OFF_LOOP_TICKETS + 1, OFF_LOOP_TICKETS):
        monkeypatch.setattr("streams.worker.queue_worker.OFF_LOOP_TICKETS", off_loop_from)
        worker, publisher = make_worker(folder, log, committed=0)
        await worker.process(log)
        published.append(publisher.records)
        assert worker.closing == set()
    assert threads == [True, False] and marked == [set(), {HOME}]

    def decisions(records: list[Record]) -> list[Record]:  # WaveClosed carries its timing
        return [record for record in records if record[0] != "wavematch.waves.v1"]

    assert decisions(published[0]) == decisions(published[1])
    assert len(decisions(published[0])) > OFF_LOOP_TICKETS and waves_published(publisher) == ["1"]


async def test_a_plug_in_strategy_s_small_wave_closes_on_a_thread(
    folder: Folder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/adr/0217: nothing bounds a plug-in's time, so even its two-ticket wave leaves
    the event loop (and its heartbeats) free; a built-in strategy's stays on it."""
    values = [joined("t0", "p0"), joined("t1", "p1"), tick(1)]
    log = [LogRecord(HOME, offset, KEY, value) for offset, value in enumerate(values)]
    on_loop = []
    close_wave = Folder.close_wave

    def watched(self: Folder, state: Any, due: Any) -> Any:
        on_loop.append(threading.current_thread() is threading.main_thread())
        return close_wave(self, state, due)

    monkeypatch.setattr(Folder, "close_wave", watched)
    worker, publisher = make_worker(folder, log, committed=0)
    await worker.process(log)
    monkeypatch.setattr("streams.worker.queue_worker.is_built_in", lambda name: True)
    built_in, _ = make_worker(folder, log, committed=0)
    await built_in.process(log)
    assert on_loop == [False, True]
    assert waves_published(publisher) == ["1"]
