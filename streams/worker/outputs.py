"""The encoding half of the per-record guard: a folded record's output records.

:meth:`Folder.fold <streams.worker.folding.Folder.fold>` never raises; neither does
:func:`records_of`: an output that cannot be encoded turns the record into one
DeadLetter (``internal_error``), and a DeadLetter is always encodable. The records are
written by the caller's :class:`~streams.wire.outbound.Writer` (one per worker or replay).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from schemas.codec import dead_letter_for, encode
from schemas.errors import InvalidEvent
from schemas.topics import DEADLETTER
from streams.wire.outbound import Record, Writer
from streams.worker.folding import Folded, internal_error, paused_gc

log = logging.getLogger(__name__)


def records_of(
    writer: Writer,
    folded: Folded,
    *,
    topic: str,
    partition: int,
    key: bytes | None,
    value: bytes | None,
) -> Sequence[Record]:
    """Every output record of one folded input record, in publication order: a rejected
    record's one DeadLetter first, then the step's outputs in the core's order."""
    try:
        step = folded.step
        if folded.rejection is not None:
            letter = dead_letter_record(folded, topic, partition, key, value)
            # A failed wave still expires tickets (and decides its deadlines): their
            # records follow its one letter.
            return [letter] if step is None else [letter, *writer.records(step)]
        if step is None:
            return []
        duration_ms = folded.duration_ms
        if duration_ms is None or step.summary is None:  # no wave's records: no GC to hold
            return writer.records(step)
        with paused_gc():
            return writer.records(step, duration_ms)
    except Exception as error:
        log.exception("outputs of the record at offset %d not encoded", folded.offset)
        failed = Folded(folded.offset, rejection=internal_error(error))
        return [dead_letter_record(failed, topic, partition, key, value)]


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
        letter = dead_letter_for(
            value, key, topic, partition, folded.offset, error, now_ms, rejection.unframed
        )
        data = encode(letter)
    except Exception as failure:  # never seen: the limits above make every letter valid
        log.exception("dead letter of offset %d not encodable", folded.offset)
        data = encode(dead_letter_for(None, None, topic, partition, folded.offset, failure, now_ms))
    return (DEADLETTER.name, key, data)
