"""Encode what a fold decided and hand it to the producer, in per-partition batches.

A 10,000-player wave publishes ~15,000 records; one ``producer.send()`` coroutine per
record costs ~20 us, so records are appended to aiokafka batch builders (~3 us each)
and sent per (topic, partition). Partitions are chosen with the same murmur2 as the
Java client, so keys land where any other client would put them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Sequence

from aiokafka import AIOKafkaProducer

from matcher.core import Match
from matcher.queue import Dequeued, Searching, Step, WaveSummary
from schemas.codec import dead_letter_for, encode, encoder_for
from schemas.errors import InvalidEvent
from schemas.topics import (
    CLEANUP,
    DEADLETTER,
    MATCHES,
    STATUS,
    WAVES,
    murmur2_partitions,
    queue_key,
)
from streams import lifecycle_wire, translate
from streams.worker.folding import Folded, internal_error, paused_gc
from streams.worker.records import match_created_writer, ticket_dequeued, ticket_status

#: (topic, key, value). The key is None only on a dead letter of an input without a key.
Record = tuple[str, bytes | None, bytes]

# Matches, dequeues and statuses are written from the fold's objects (records.py); the
# wave's one summary goes through fastavro, the dead letters through the validating
# encoder (codec.dead_letter_for's model).
_encode_wave = encoder_for("WaveClosed")
log = logging.getLogger(__name__)


def records_of(
    folded: Folded, *, topic: str, partition: int, key: bytes | None, value: bytes | None
) -> Sequence[Record]:
    """Every output record of one folded input record, in publication order.

    Matches come before the dequeues that reference them, and the wave summary last,
    so a consumer that sees WaveClosed has been sent everything of the wave.

    The encoding half of the per-record guard (the other is :meth:`Folder.fold`): an
    output that cannot be encoded turns the record into one DeadLetter (``internal_error``)
    instead of raising, and a DeadLetter is always encodable.
    """
    try:
        return _records_of_step(folded, topic, partition, key, value)
    except Exception as error:
        log.exception("outputs of the record at offset %d not encoded", folded.offset)
        failed = Folded(folded.offset, rejection=internal_error(error))
        return [dead_letter_record(failed, topic, partition, key, value)]


def _records_of_step(
    folded: Folded, topic: str, partition: int, key: bytes | None, value: bytes | None
) -> Sequence[Record]:
    step = folded.step
    if folded.rejection is not None:
        letter = dead_letter_record(folded, topic, partition, key, value)
        # A failed wave still expires tickets (and decides its deadlines): their records
        # follow its one letter.
        if step is None:
            return [letter]
        return [letter, *step_records(step, folded.duration_ms)]
    if step is None:
        return []
    if step.summary is None:  # a join's or a leave's few records: nothing to hold the GC for
        return step_records(step, folded.duration_ms)
    with paused_gc():
        return step_records(step, folded.duration_ms)


def step_records(step: Step, duration_ms: float = 0.0) -> list[Record]:
    """The records of ``step``'s outputs, in their order (the core's publication order)."""
    outputs = step.outputs
    if len(outputs) == 1 and type(outputs[0]) is Searching:  # a join
        status = outputs[0]
        return [(_STATUS_TOPIC, status.ticket_id.encode(), ticket_status(status))]
    summary = step.summary
    created: Callable[[Match], bytes] = _no_wave
    if summary is not None:
        created = match_created_writer(
            summary.queue,
            summary.region,
            summary.wave_id,
            summary.strategy,
            summary.config_fingerprint,
            summary.closed_at_ms,
        )
    out: list[Record] = []
    append = out.append
    for output in outputs:
        kind = type(output)
        if kind is Match:
            append((MATCHES.name, output.match_id.encode(), created(output)))  # type: ignore[union-attr,arg-type]
        elif kind is Dequeued:
            append((CLEANUP.name, output.ticket_id.encode(), ticket_dequeued(output)))  # type: ignore[union-attr,arg-type]
        elif kind is Searching:
            append((STATUS.name, output.ticket_id.encode(), ticket_status(output)))  # type: ignore[union-attr,arg-type]
        elif kind is WaveSummary:
            wave = _encode_wave(translate.wave_closed(output, duration_ms))  # type: ignore[arg-type]
            append((WAVES.name, queue_key(output.queue, output.region), wave))  # type: ignore[union-attr]
        else:
            append(lifecycle_wire.record(output))  # type: ignore[arg-type]
    return out


def _no_wave(match: Match) -> bytes:
    raise AssertionError("a Match output outside a wave close")


_STATUS_TOPIC = STATUS.name


def dead_letter_record(
    folded: Folded, topic: str, partition: int, key: bytes | None, value: bytes | None
) -> Record:
    """The one DeadLetter of a rejected record, keyed by the record's key unchanged (None:
    none; as long as the broker took it in, it fits in a record again).

    :func:`schemas.codec.dead_letter_for` cuts every variable-size field to the
    contract's limit (value 64 KiB, key 1 KiB, reason 1,024 characters, field 512), so
    the letter always encodes; should it not, a letter without the original says why.
    """
    rejection = folded.rejection
    assert rejection is not None
    now_ms = int(time.time() * 1000)
    error = InvalidEvent(rejection.code, rejection.reason, rejection.field)
    try:
        letter = dead_letter_for(value, key, topic, partition, folded.offset, error, now_ms)
        data = encode(letter)
    except Exception as failure:  # never seen: the limits above make every letter valid
        log.exception("dead letter of offset %d not encodable", folded.offset)
        data = encode(dead_letter_for(None, None, topic, partition, folded.offset, failure, now_ms))
    return (DEADLETTER.name, key, data)


class Publisher:
    """Groups records per (topic, partition) and sends each group as one batch."""

    def __init__(self, producer: AIOKafkaProducer, partitions_of: Callable[[str], int]) -> None:
        self._producer = producer
        self._partitions_of = partitions_of

    async def publish(self, records: Iterable[Record]) -> int:
        """Send ``records``: per topic in order of first appearance, then per partition
        in order of first appearance, each partition's records in their given order.

        With the cyclic GC paused, as for the fold and the encoding (:func:`paused_gc`):
        a wave's 15,000 records and their batches would otherwise be walked by young
        collections while they are handed over (measured: 10-20 ms a 10,000-player wave).

        The batches are closed (complete: the producer need not linger for more records)
        and the producer's sender is let run before returning (:func:`_sender_turn`): it
        writes them to the broker in one request while the caller goes on (frees the
        wave's objects, folds the rest of its batch). Otherwise nothing left before the
        caller's flush, which a wave's records waited for, and the last batches for the
        linger time on top.
        """
        with paused_gc():
            return await self._publish(records)

    async def _publish(self, records: Iterable[Record]) -> int:
        by_topic: dict[str, tuple[list[bytes | None], list[bytes]]] = {}
        for topic, key, value in records:
            columns = by_topic.get(topic)
            if columns is None:
                columns = by_topic[topic] = ([], [])
            columns[0].append(key)
            columns[1].append(value)
        sent = 0
        for topic, (keys, values) in by_topic.items():
            grouped: dict[int, list[tuple[bytes | None, bytes]]] = {}
            # A null key goes where the empty key would: one fixed partition, as in replay.
            hashed = [b"" if key is None else key for key in keys]
            partitions = murmur2_partitions(hashed, self._partitions_of(topic))
            for partition, item in zip(partitions, zip(keys, values, strict=True), strict=True):
                items = grouped.get(partition)
                if items is None:
                    items = grouped[partition] = []
                items.append(item)
            for partition, items in grouped.items():
                sent += await self._send(topic, partition, items)
        await _sender_turn()
        return sent

    async def _send(
        self, topic: str, partition: int, items: list[tuple[bytes | None, bytes]]
    ) -> int:
        batch = self._producer.create_batch()
        for key, value in items:
            if batch.append(key=key, value=value, timestamp=None) is None:
                batch.close()
                await self._producer.send_batch(batch, topic, partition=partition)
                batch = self._producer.create_batch()
                batch.append(key=key, value=value, timestamp=None)
        if batch.record_count():
            batch.close()
            await self._producer.send_batch(batch, topic, partition=partition)
        return len(items)


async def _sender_turn() -> None:
    """Let the producer's sender write what was handed to it. ``send_batch`` never gives
    up the loop while a partition has room; aiokafka 0.14's sender then needs two or
    three turns of the loop (its wait wakes, it drains the batches into a request, the
    request's task writes it): without them nothing is sent before the caller's next
    real wait (tests/integration/test_publisher_hand_over.py)."""
    for _ in range(_SENDER_TURNS):
        await asyncio.sleep(0)


#: Turns of the event loop given to the sender after a hand-over (a turn with nothing
#: to do costs ~10 us; a publish is once a batch of records).
_SENDER_TURNS = 4
