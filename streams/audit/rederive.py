"""Fold a queue log exactly as the worker does and collect the outputs it must have published."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from schemas.topics import QUEUE
from streams.wire.outbound import Record, Writer
from streams.worker.folding import Folded, Folder, PartitionState
from streams.worker.outputs import records_of


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One record of a topic, as read back from the broker or an exported file."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    #: The Kafka record timestamp (epoch ms); None in logs exported before it was kept.
    timestamp: int | None = None


@dataclass(frozen=True, slots=True)
class Derived:
    source: LogRecord
    folded: Folded
    outputs: tuple[Record, ...]


def rederive(
    folder: Folder,
    queue_log: Iterable[LogRecord],
    on_record: Callable[[LogRecord], None] | None = None,
) -> Iterator[Derived]:
    """Yield, for each queue record in log order per partition, what the worker decided.

    Notes: O(records) plus each wave's strategy cost; one state per partition in memory.
    """
    states: dict[int, PartitionState] = {}
    writer = Writer()
    for record in queue_log:
        state = states.get(record.partition)
        if state is None:
            state = states[record.partition] = folder.new_state(record.partition)
        folded = folder.fold(state, record.key, record.value, record.offset, record.timestamp)
        if on_record is not None:
            on_record(record)
        if folded is None:
            continue
        outputs = records_of(
            writer,
            folded,
            topic=QUEUE.name,
            partition=record.partition,
            key=record.key,
            value=record.value,
        )
        yield Derived(record, folded, tuple(outputs))
