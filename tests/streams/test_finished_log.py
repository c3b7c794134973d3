"""Finished ticket ids saved as a base and journals (streams/worker/finished_log.py).

A worker that loads any of its snapshots must hold exactly the queues the snapshotting
worker held then: remembered ids included, in the same order, with the same pruning
ahead of them. And the snapshots must stay small: a base is rewritten, and the
segments it replaces are deleted, once the journals outgrow what is remembered.
"""

from __future__ import annotations

import json
import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from matcher.core import QueueProfile
from matcher.queue import QueueRules
from matcher.queue.records import queue_to_record
from schemas.codec import encode
from schemas.models import TicketLeft
from streams.worker import finished_log, snapshots
from streams.worker.folding import Folder, PartitionState
from streams.worker.metrics import WorkerMetrics
from streams.worker.queue_worker import QueueWorker
from tests.queue.conftest import PAIRS
from tests.streams.conftest import HOME, KEY, PARTITIONS, joined, tick
from tests.streams.test_queue_worker import CollectingPublisher, LogRecord, MemoryTable

START_MS = 1_767_225_600_000


def short_memory_folder() -> Folder:
    """Ids are remembered for 5 waves of 1 s: prunes happen all the time."""
    profile = QueueProfile(queue="duo", strategy=PAIRS, maps=("alpha", "beta"), team_size=2)
    rules = QueueRules(ticket_ttl_ms=3_000, finished_retention_ms=5_000)
    return Folder({"duo": profile}, {"duo": ("eu", "na")}, rules, PARTITIONS)


def left(ticket_id: str, at_ms: int) -> bytes:
    return encode(
        TicketLeft(
            ticket_id=ticket_id, queue="duo", region="eu", reason="REQUESTED", left_at_ms=at_ms
        )
    )


def a_session(seed: int, events: int) -> list[bytes]:
    """Joins (some matched, some expiring), leaves (some of unknown or old tickets,
    some stamped long ago) and ticks, in a seeded order."""
    rng = random.Random(seed)
    values: list[bytes] = []
    sequence, count = 0, 0
    while len(values) < events:
        roll = rng.random()
        now = START_MS + sequence * 1000
        if roll < 0.55:
            count += 1
            values.append(joined(f"t{count}", f"p{count}", now - rng.choice([0, 0, 4_000])))
        elif roll < 0.75:
            stamp = now - rng.choice([0, 0, 9_000])  # some leaves stamped before the window
            values.append(left(f"t{rng.randint(1, count + 2)}", stamp))
        else:
            sequence += 1
            values.append(tick(sequence))
    return values


def a_worker(folder: Folder, table: MemoryTable, snapshot_every: int) -> QueueWorker:
    async def read(partition: int, start: int, end: int):  # type: ignore[no-untyped-def]
        return
        yield

    async def flush() -> None:
        return None

    return QueueWorker(
        folder,
        table,
        CollectingPublisher(),  # type: ignore[arg-type]
        flush,
        read,
        lambda partition: 0,
        snapshot_min_events=snapshot_every,
        snapshot_max_refold_ms=math.inf,
        metrics=WorkerMetrics(CollectorRegistry()),
    )


def queues(state: PartitionState) -> list[dict[str, object]]:
    return [queue_to_record(q) for q in state.book.regions.values()]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(0, 30))
async def test_every_snapshot_loads_back_exactly_and_folds_on_identically(
    seed: int, snapshot_every: int, min_rewrite: int
) -> None:
    folder, table = short_memory_folder(), MemoryTable()
    worker = a_worker(folder, table, snapshot_every)
    log = [LogRecord(HOME, offset, KEY, value) for offset, value in enumerate(a_session(seed, 300))]
    original = finished_log.MIN_REWRITE
    finished_log.MIN_REWRITE = min_rewrite
    try:
        for start in range(0, len(log), 7):
            await worker.process(log[start : start + 7])
            state = worker.states[HOME]
            if state.events_since_snapshot:
                continue  # a snapshot was not written in this batch
            loaded = a_worker(short_memory_folder(), table, snapshot_every)._from_snapshot(HOME)
            assert loaded.applied_offset == state.applied_offset
            assert queues(loaded) == queues(state)
            assert loaded.finished_log == state.finished_log
            # The loaded state goes on like the original (same prunes, same journals).
            ahead = log[state.applied_offset + 1 : state.applied_offset + 40]
            for record in ahead:
                folder.fold(loaded, record.key, record.value, record.offset)
            replica = a_worker(short_memory_folder(), table, snapshot_every)._from_snapshot(HOME)
            for record in ahead:
                folder.fold(replica, record.key, record.value, record.offset)
            assert queues(loaded) == queues(replica)
    finally:
        finished_log.MIN_REWRITE = original


async def test_segments_replaced_by_a_new_base_are_deleted(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(finished_log, "MIN_REWRITE", 20)
    folder, table = short_memory_folder(), MemoryTable()
    worker = a_worker(folder, table, snapshot_every=5)
    log = [LogRecord(HOME, offset, KEY, value) for offset, value in enumerate(a_session(3, 2_000))]
    most_segments = 0
    for start in range(0, len(log), 5):
        await worker.process(log[start : start + 5])
        keys = [key for key in table.rows if "/finished/" in key]
        most_segments = max(most_segments, len(keys))
        manifest = json.loads(table.rows[snapshots.manifest_key(HOME)])
        listed = {f"{HOME}/finished/{seq}/0" for seq, _, _ in manifest["finished"]["segments"]}
        assert set(keys) == listed  # nothing left behind, nothing missing
    remembered = sum(len(q.finished) for q in worker.states[HOME].book.regions.values())
    assert remembered > 0
    state = worker.states[HOME]
    assert state.finished_log.written <= 2 * remembered + finished_log.MIN_REWRITE + 5
    assert state.finished_log.segments[0].seq > 0  # a base was rewritten along the way
    assert most_segments < len(log) // 5  # not one segment a snapshot for ever


async def test_an_older_snapshot_with_ids_inside_the_regions_loads_and_is_rebased() -> None:
    folder, table = short_memory_folder(), MemoryTable()
    state = folder.new_state(HOME)
    for offset, value in enumerate(a_session(5, 200)):
        folder.fold(state, KEY, value, offset)
    older = snapshots.Snapshot(state.applied_offset, state.book.regions)  # no finished log
    table.rows.update(snapshots.encode_snapshot(HOME, older, None))
    worker = a_worker(short_memory_folder(), table, snapshot_every=1)
    loaded = worker._from_snapshot(HOME)
    assert queues(loaded) == queues(state)
    assert loaded.finished_log == finished_log.FinishedLog()
    written = finished_log.write_segment(HOME, loaded.finished_log, loaded.book.regions)
    assert [s.seq for s in written.log.segments] == [0] and written.obsolete == []


async def test_a_segment_written_before_a_crash_is_ignored_then_overwritten() -> None:
    folder, table = short_memory_folder(), MemoryTable()
    worker = a_worker(folder, table, snapshot_every=10)
    log = [LogRecord(HOME, offset, KEY, value) for offset, value in enumerate(a_session(8, 60))]
    await worker.process(log[:30])
    before = table.rows[snapshots.manifest_key(HOME)]
    state = worker.states[HOME]
    for record in log[30:45]:
        folder.fold(state, record.key, record.value, record.offset)
    orphan = finished_log.write_segment(HOME, state.finished_log, state.book.regions)
    table.rows.update(orphan.records)  # the worker died before the snapshot's manifest
    assert table.rows[snapshots.manifest_key(HOME)] == before
    survivor = a_worker(short_memory_folder(), table, snapshot_every=10)
    loaded = survivor._from_snapshot(HOME)
    assert loaded.applied_offset < 30
    for record in log[loaded.applied_offset + 1 :]:
        folder.fold(loaded, record.key, record.value, record.offset)
    survivor.states[HOME] = loaded
    loaded.events_since_snapshot = 10
    await survivor.maybe_snapshot(loaded)
    again = survivor._from_snapshot(HOME)
    assert queues(again) == queues(loaded)


def test_a_tampered_segment_is_reported_not_loaded() -> None:
    folder = short_memory_folder()
    state = folder.new_state(HOME)
    for offset, value in enumerate(a_session(2, 80)):
        folder.fold(state, KEY, value, offset)
    written = finished_log.write_segment(HOME, state.finished_log, state.book.regions)
    snapshot = snapshots.Snapshot(state.applied_offset, state.book.regions, written.log)
    table = dict(written.records + snapshots.encode_snapshot(HOME, snapshot, None))
    table[finished_log.chunk_key(HOME, 0, 0)] = b"tampered"
    try:
        snapshots.decode_snapshot(HOME, table.get)
    except snapshots.CorruptSnapshot as error:
        assert "checksum" in str(error)
    else:
        raise AssertionError("a tampered segment was loaded")
