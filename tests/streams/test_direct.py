"""The direct consumer's ordering rules, with fake clients: outputs flushed before the
offsets that cover them are committed; records of partitions no longer owned are
dropped; a failed commit costs duplicates, never the loop."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiokafka import TopicPartition
from aiokafka.errors import CommitFailedError
from prometheus_client import CollectorRegistry

from schemas.topics import QUEUE
from streams.worker.direct import DirectQueueConsumer
from streams.worker.metrics import WorkerMetrics
from streams.worker.publisher import Undelivered


@dataclass(frozen=True)
class Rec:
    partition: int
    offset: int


def tp(partition: int) -> TopicPartition:
    return TopicPartition(QUEUE.name, partition)


@dataclass
class Journal:
    calls: list[Any] = field(default_factory=list)


class FakeConsumer:
    def __init__(self, journal: Journal, fetches: list[dict[TopicPartition, list[Rec]]]) -> None:
        self.journal, self.fetches = journal, fetches
        self.listener: Any = None
        self.fail_commits = False
        self.committed_offsets = {0: 3, 1: 0}

    def subscribe(self, topics: list[str], listener: Any) -> None:
        self.listener = listener

    async def start(self) -> None:
        await self.listener.on_partitions_assigned([tp(0), tp(1)])

    async def getmany(self, timeout_ms: int, max_records: int) -> dict[TopicPartition, list[Rec]]:
        if self.fetches:
            return self.fetches.pop(0)
        await asyncio.sleep(3600)
        return {}

    def highwater(self, partition: TopicPartition) -> int | None:
        return {0: 10, 1: 1}.get(partition.partition)

    async def committed(self, partition: TopicPartition) -> int | None:
        return self.committed_offsets.get(partition.partition)

    async def commit(self, offsets: dict[TopicPartition, int]) -> None:
        if self.fail_commits:
            raise CommitFailedError("rebalanced")
        self.journal.calls.append(("commit", {t.partition: o for t, o in offsets.items()}))

    async def stop(self) -> None:
        self.journal.calls.append("stop")

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self.journal.calls.append(("seek", partition.partition, offset))


class FakeProducer:
    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    async def flush(self) -> None:
        self.journal.calls.append("flush")


class FakeTable:
    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    async def load(self, partitions: set[int]) -> None:
        self.journal.calls.append(("load table", sorted(partitions)))

    def forget(self, partitions: set[int]) -> None:
        pass


class FakePublisher:
    def __init__(self) -> None:
        #: What each delivery check finds, in turn: None when everything was delivered.
        self.checks: list[str | None] = []

    def check_delivered(self) -> None:
        failure = self.checks.pop(0) if self.checks else None
        if failure is not None:
            raise Undelivered(failure)


class FakeWorker:
    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.states: dict[int, object] = {}
        self.registry = CollectorRegistry()
        self.metrics = WorkerMetrics(self.registry)
        self.publisher = FakePublisher()
        #: Raised by the next process call (a batch the producer had no room for).
        self.refuse: Undelivered | None = None

    async def process(self, records: list[Rec]) -> None:
        self.journal.calls.append(("process", [(r.partition, r.offset) for r in records]))
        refuse, self.refuse = self.refuse, None
        if refuse is not None:
            raise refuse

    async def load_owned(self, next_offsets: dict[int, int]) -> None:
        self.journal.calls.append(("load", next_offsets))
        self.states.update(dict.fromkeys(next_offsets, object()))

    def forget(self, partitions: set[int]) -> None:
        for partition in partitions:
            self.states.pop(partition, None)


def make(
    fetches: list[dict[TopicPartition, list[Rec]]],
) -> tuple[DirectQueueConsumer, Journal, FakeConsumer]:
    journal = Journal()
    consumer = FakeConsumer(journal, fetches)
    worker = FakeWorker(journal)
    direct = DirectQueueConsumer(
        consumer,  # type: ignore[arg-type]
        FakeProducer(journal),  # type: ignore[arg-type]
        FakeTable(journal),  # type: ignore[arg-type]
        lambda: worker,  # type: ignore[arg-type,return-value]
    )
    return direct, journal, consumer


async def run_until_idle(direct: DirectQueueConsumer) -> None:
    task = asyncio.create_task(direct.run())
    for _ in range(50):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_outputs_are_flushed_before_their_offsets_are_committed() -> None:
    fetches = [{tp(0): [Rec(0, 3), Rec(0, 4)], tp(1): [Rec(1, 0)]}]
    direct, journal, _ = make(fetches)
    await run_until_idle(direct)
    assert journal.calls[:3] == [
        ("load table", [0, 1]),
        ("load", {0: 3, 1: 0}),
        ("process", [(0, 3), (0, 4), (1, 0)]),
    ]
    assert journal.calls[3:5] == ["flush", ("commit", {0: 5, 1: 1})]
    assert journal.calls[-2:] == ["flush", "stop"]  # stopping flushes before leaving
    assert direct.committed == {0: 5, 1: 1}
    assert direct.owned() == {0, 1}
    registry = direct._worker().registry  # type: ignore[attr-defined]
    lag = "wavematch_consumer_lag_records"
    assert registry.get_sample_value(lag, {"partition": "0"}) == 5  # high-watermark 10
    assert registry.get_sample_value(lag, {"partition": "1"}) == 0


async def test_records_of_a_revoked_partition_are_dropped() -> None:
    fetches = [{tp(0): [Rec(0, 3)], tp(1): [Rec(1, 0)]}]
    direct, journal, consumer = make(fetches)
    await direct.assigned([tp(0), tp(1)])
    await direct.revoked([tp(1)])
    consumer.start = _no_assignment  # type: ignore[method-assign]
    await run_until_idle(direct)
    processed = [call for call in journal.calls if call[0] == "process"]
    commits = [call for call in journal.calls if call[0] == "commit"]
    assert processed == [("process", [(0, 3)])]
    assert commits == [("commit", {0: 4})]


async def _no_assignment() -> None:
    return None


async def test_a_failed_commit_keeps_the_loop_going_and_the_old_offsets() -> None:
    fetches = [{tp(0): [Rec(0, 3)]}, {tp(0): [Rec(0, 4)]}]
    direct, journal, consumer = make(fetches)
    consumer.fail_commits = True
    await run_until_idle(direct)
    processed = [call for call in journal.calls if call[0] == "process"]
    assert processed == [("process", [(0, 3)]), ("process", [(0, 4)])]
    assert direct.committed == {0: 3, 1: 0}  # as loaded: a successor re-folds from there
    registry = direct._worker().registry  # type: ignore[attr-defined]
    assert registry.get_sample_value("wavematch_commit_failures_total") == 2


async def test_a_partition_kept_across_a_rebalance_keeps_its_state() -> None:
    direct, journal, _ = make([])
    await direct.assigned([tp(0), tp(1)])
    await direct.revoked([tp(0), tp(1)])
    await direct.assigned([tp(1), tp(2)])
    loads = [call for call in journal.calls if call[0] == "load"]
    assert loads == [("load", {0: 3, 1: 0}), ("load", {2: 0})]
    assert direct.owned() == {1, 2}


async def test_a_partition_moved_away_takes_its_lag_series_along() -> None:
    fetches = [{tp(0): [Rec(0, 3)], tp(1): [Rec(1, 0)]}]
    direct, _, _ = make(fetches)
    await run_until_idle(direct)
    registry = direct._worker().registry  # type: ignore[attr-defined]
    lag = "wavematch_consumer_lag_records"
    assert registry.get_sample_value(lag, {"partition": "1"}) == 0
    await direct.revoked([tp(0), tp(1)])
    await direct.assigned([tp(0)])
    assert registry.get_sample_value(lag, {"partition": "1"}) is None  # the new owner's to say
    assert registry.get_sample_value(lag, {"partition": "0"}) == 6  # kept: high-watermark 10


async def test_a_failed_assignment_stops_the_loop_instead_of_dropping_records() -> None:
    fetches = [{tp(0): [Rec(0, 3)]}]
    direct, journal, _ = make(fetches)
    worker = direct._worker()

    async def broken(next_offsets: dict[int, int]) -> None:
        raise RuntimeError("partition 0: snapshot checksum mismatch")

    worker.load_owned = broken  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="checksum"):
        await direct.run()
    assert not [call for call in journal.calls if call[0] == "process"]
    assert journal.calls[-1] == "stop"


async def test_a_stop_while_the_consumer_starts_still_closes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C right after "Worker ready" cancelled the loop inside ``start()``; the
    consumer was left open (aiokafka logged "Unclosed AIOKafkaConsumer"). A start that
    never ends is given up after its grace, and the consumer stopped once."""
    monkeypatch.setattr("streams.connection.CLIENT_GRACE_S", 0.05)
    direct, journal, consumer = make([])
    started = asyncio.Event()

    async def slow_start() -> None:
        started.set()
        await asyncio.sleep(3600)

    consumer.start = slow_start  # type: ignore[method-assign]
    task = asyncio.create_task(direct.run())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert journal.calls == ["flush", "stop"]


async def test_undelivered_outputs_are_never_committed_over_but_folded_again() -> None:
    fetches = [{tp(0): [Rec(0, 3), Rec(0, 4)]}, {tp(0): [Rec(0, 3), Rec(0, 4)]}]
    direct, journal, _ = make(fetches)
    worker = direct._worker()
    worker.publisher.checks = ["batch expired"]  # type: ignore[attr-defined]
    await run_until_idle(direct)
    after_load = journal.calls[2:]
    assert after_load[:5] == [
        ("process", [(0, 3), (0, 4)]),
        "flush",
        "flush",  # the rewind waits for what is still in flight
        ("seek", 0, 3),  # back to the committed offsets of the owned partitions
        ("seek", 1, 0),
    ]
    assert after_load[5:7] == [("process", [(0, 3), (0, 4)]), "flush"]
    assert after_load[7] == ("commit", {0: 5})
    assert [call for call in journal.calls if call[0] == "commit"] == [("commit", {0: 5})]
    assert worker.states == {}  # rebuilt from the snapshot at its next record
    registry = worker.registry  # type: ignore[attr-defined]
    assert registry.get_sample_value("wavematch_output_delivery_failures_total") == 1


async def test_a_batch_the_producer_could_not_take_rewinds_without_a_commit() -> None:
    fetches = [{tp(1): [Rec(1, 0)]}]
    direct, journal, _ = make(fetches)
    worker = direct._worker()
    worker.refuse = Undelivered("no room")  # type: ignore[attr-defined]
    await run_until_idle(direct)
    assert not [call for call in journal.calls if call[0] == "commit"]
    assert ("seek", 1, 0) in journal.calls and ("seek", 0, 3) in journal.calls
    assert direct.committed == {0: 3, 1: 0} and direct.records_processed == 0


async def test_undelivered_outputs_found_at_a_revocation_drop_every_state() -> None:
    direct, journal, _ = make([])
    await direct.assigned([tp(0), tp(1)])
    worker = direct._worker()
    worker.publisher.checks = ["batch expired"]  # type: ignore[attr-defined]
    await direct.revoked([tp(1)])
    assert worker.states == {} and direct.owned() == {0}
    assert not [call for call in journal.calls if call[0] == "seek"]  # the rebalance resets them
    registry = worker.registry  # type: ignore[attr-defined]
    assert registry.get_sample_value("wavematch_output_delivery_failures_total") == 1
