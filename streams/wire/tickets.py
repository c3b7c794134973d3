"""TicketDequeued and TicketStatus bytes, written straight from the core's outputs.

A 10,000-player wave publishes 10,000 TicketDequeued records, and nearly every queue
event is a join that publishes one TicketStatus: :class:`TicketWriter` reads the
:class:`~matcher.queue.Dequeued`, :class:`~matcher.queue.Searching` and
:class:`~matcher.queue.lifecycle.StageStatus` fields directly and remembers the bytes
that repeat (a wave's queue, region, wave id and time; a join's queue, region and wait
figures). The bytes are fastavro's for the same records (tests/streams/test_records.py).
"""

from __future__ import annotations

from matcher.queue import Dequeued, DequeueReason, Searching
from matcher.queue.lifecycle import StageStatus
from schemas.codec import WRITTEN_WITHOUT, max_bytes, within_limit
from schemas.models import TicketDequeued, TicketStatus
from streams.wire.avro import (
    NULL,
    SOME,
    Binary,
    fresh_string,
    header,
    revision_header,
    symbols,
)

_DEQUEUED_HEADER = header("TicketDequeued")
_REASONS = symbols("TicketDequeued", "reason")
_CAUSES = symbols("TicketDequeued", "cause")
_MATCHED = _REASONS["MATCHED"]  # the reason of nearly every dequeue: skip Enum.name
_MATCHED_REASON = DequeueReason.MATCHED
_DEQUEUED_LIMIT = max_bytes(TicketDequeued)
#: A status without connection details is written as revision r2, the schema before the
#: ``connection`` field, so it keeps its bytes (ADR 0171); one with them as the current.
_STATUS_HEADER = revision_header("TicketStatus", WRITTEN_WITHOUT["TicketStatus"][0])
_CONNECTED_HEADER = header("TicketStatus")
_SEARCHING = symbols("TicketStatus", "state")["SEARCHING"]
_STAGES = symbols("TicketStatus", "stage")
_STATUS_LIMIT = max_bytes(TicketStatus)
#: Remembered bytes per key, emptied when full (a worker sees few keys at a time).
_MEMO_LIMIT = 4_096
_WAVES_REMEMBERED = 64

#: Dequeue reasons without an r1 ``reason`` symbol: written as the nearest symbol, for
#: readers of the first revision, with the precise one in ``cause`` (docs/adr/0112).
R1_REASON = {
    DequeueReason.DECLINED: DequeueReason.LEFT,
    DequeueReason.ACCEPTANCE_TIMED_OUT: DequeueReason.EXPIRED,
    DequeueReason.PLACEMENT_FAILED: DequeueReason.REJECTED,
    # No cause symbol: the detail says "matched_elsewhere: ..." (docs/adr/0145).
    DequeueReason.MATCHED_ELSEWHERE: DequeueReason.LEFT,
}


def written_reason(reason: DequeueReason) -> str:
    """The reason a ``TicketDequeued`` record tells: its ``cause`` when it has a symbol
    for it, else its ``reason`` (a search ended elsewhere is LEFT, its detail says why).

    >>> written_reason(DequeueReason.DECLINED), written_reason(DequeueReason.MATCHED_ELSEWHERE)
    ('DECLINED', 'LEFT')
    """
    nearest = R1_REASON.get(reason)
    if nearest is None or reason.name in _CAUSES:
        return reason.name
    return nearest.name


MatchedKey = tuple[str, str, str | None, int]
WaitKey = tuple[int, int | None, int | None, str | None]


class TicketWriter:
    """Writes TicketDequeued and TicketStatus records; one per worker's writer."""

    def __init__(self, binary: Binary) -> None:
        self._binary = binary
        self._matched_parts: dict[MatchedKey, tuple[bytes, bytes, bytes]] = {}
        self._places: dict[tuple[str, str], bytes] = {}
        self._waits: dict[WaitKey, bytes] = {}
        self._searching_stage = self.stage_fields("SEARCHING", None, None, None)

    def dequeued(self, dequeued: Dequeued) -> bytes:
        """The TicketDequeued record of ``dequeued``. Notes: O(length of its strings)."""
        binary = self._binary
        string, long, known = binary.string, binary.long, binary.strings.get
        match_id, detail = dequeued.match_id, dequeued.detail
        if match_id is not None and detail is None and dequeued.reason is _MATCHED_REASON:
            # A wave's matched tickets (all but a few dequeues): the fields around the
            # ticket id, match id and wait are the wave's, written once (_matched).
            key = (dequeued.queue, dequeued.region, dequeued.wave_id, dequeued.at_ms)
            head, wave, tail = self._matched_parts.get(key) or self._matched(key)
            data = b"".join(
                (
                    _DEQUEUED_HEADER,
                    known(dequeued.ticket_id) or string(dequeued.ticket_id),
                    head,
                    known(match_id) or string(match_id),
                    wave,
                    long(dequeued.waves_waited),
                    tail,
                )
            )
            return data if len(data) <= _DEQUEUED_LIMIT else within_limit(TicketDequeued, data)
        reason, wave_id = dequeued.reason, dequeued.wave_id
        cause = NULL
        nearest = R1_REASON.get(reason)
        if nearest is not None:
            symbol = _CAUSES.get(reason.name)
            cause = NULL if symbol is None else SOME + symbol
            reason = nearest
        data = b"".join(
            (
                _DEQUEUED_HEADER,
                known(dequeued.ticket_id) or string(dequeued.ticket_id),
                known(dequeued.queue) or string(dequeued.queue),
                known(dequeued.region) or string(dequeued.region),
                _REASONS[reason.name],
                NULL if match_id is None else SOME + (known(match_id) or string(match_id)),
                NULL if wave_id is None else SOME + (known(wave_id) or string(wave_id)),
                long(dequeued.waves_waited),
                NULL if detail is None else SOME + string(detail),
                long(dequeued.at_ms),
                cause,
            )
        )
        return data if len(data) <= _DEQUEUED_LIMIT else within_limit(TicketDequeued, data)

    def _matched(self, key: MatchedKey) -> tuple[bytes, bytes, bytes]:
        """Bytes of a matched dequeue between its ticket id and match id, between the
        match id and its wait, and after the wait (remembered for recent waves)."""
        queue, region, wave_id, at_ms = key
        string = self._binary.string
        parts = (
            string(queue) + string(region) + _MATCHED + SOME,
            NULL if wave_id is None else SOME + string(wave_id),
            NULL + self._binary.long(at_ms) + NULL,  # no detail; the time; no cause
        )
        if len(self._matched_parts) >= _WAVES_REMEMBERED:
            self._matched_parts.clear()
        self._matched_parts[key] = parts
        return parts

    def searching(self, status: Searching) -> bytes:
        """The TicketStatus record (state and stage SEARCHING) of ``status``.

        Nearly every queue event is a join that writes one: :meth:`_status`, inlined.
        Notes: O(length of its strings).
        """
        binary = self._binary
        queue, region, ticket_id = status.queue, status.region, status.ticket_id
        place = self._places.get((queue, region)) or self._place(queue, region)
        wait = (
            status.waves_waited,
            status.estimated_wait_ms,
            status.next_wave_at_ms,
            status.wave_id,
        )
        # A join's status (outside a wave) is its id's first write: not remembered. A
        # wave writes every queued ticket's status again, so a wave's are remembered.
        written_id = (
            fresh_string(ticket_id)
            if status.wave_id is None
            else binary.strings.get(ticket_id) or binary.string(ticket_id)
        )
        data = b"".join(
            (
                _STATUS_HEADER,
                written_id,
                place,
                binary.long(status.position),
                self._waits.get(wait) or self._wait_bytes(wait),
                binary.long(status.at_ms),
                self._searching_stage,
            )
        )
        return data if len(data) <= _STATUS_LIMIT else within_limit(TicketStatus, data)

    def stage(self, status: StageStatus) -> bytes:
        """The TicketStatus of a lifecycle stage (docs/adr/0112: ``state`` stays SEARCHING,
        at place 1 and without an estimate; ``stage``, ``match_id``, ``deadline_at_ms`` and
        ``detail`` say where the ticket is)."""
        stage = self.stage_fields(
            status.stage.name, status.match_id, status.deadline_ms, status.detail
        )
        wait = (status.waves_waited, None, None, None)
        data = self._status(
            status.ticket_id, status.queue, status.region, 1, wait, status.at_ms, stage
        )
        connection = status.connection
        if connection is None:
            return data
        binary = self._binary
        data = b"".join(
            (
                _CONNECTED_HEADER,
                data[len(_STATUS_HEADER) :],
                SOME,
                binary.string(connection.address),
                binary.long(connection.port),
                NULL if connection.token is None else SOME + fresh_string(connection.token),
            )
        )
        return data if len(data) <= _STATUS_LIMIT else within_limit(TicketStatus, data)

    def stage_fields(
        self, stage: str, match_id: str | None, deadline_at_ms: int | None, detail: str | None
    ) -> bytes:
        """The bytes of a status's ``stage``, ``match_id``, ``deadline_at_ms``, ``detail``.

        >>> TicketWriter(Binary()).stage_fields("SEARCHING", None, None, None).hex()
        '0200000000'
        """
        binary = self._binary
        return b"".join(
            (
                SOME + _STAGES[stage],
                binary.optional_string(match_id),
                binary.optional_long(deadline_at_ms),
                binary.optional_string(detail),
            )
        )

    def _status(
        self,
        ticket_id: str,
        queue: str,
        region: str,
        position: int,
        wait: WaitKey,
        at_ms: int,
        stage: bytes,
    ) -> bytes:
        binary = self._binary
        place = self._places.get((queue, region))
        if place is None:
            place = self._place(queue, region)
        figures = self._waits.get(wait) or self._wait_bytes(wait)
        data = b"".join(
            (
                _STATUS_HEADER,
                binary.strings.get(ticket_id) or binary.string(ticket_id),
                place,
                binary.long(position),
                figures,
                binary.long(at_ms),
                stage,
            )
        )
        return data if len(data) <= _STATUS_LIMIT else within_limit(TicketStatus, data)

    def _place(self, queue: str, region: str) -> bytes:
        """The bytes between a status's ticket id and its position."""
        if len(self._places) >= _MEMO_LIMIT:
            self._places.clear()
        string = self._binary.string
        place = self._places[queue, region] = string(queue) + string(region) + _SEARCHING
        return place

    def _wait_bytes(self, key: WaitKey) -> bytes:
        """The bytes between a status's position and its time."""
        waited, estimate, next_wave, wave_id = key
        if len(self._waits) >= _MEMO_LIMIT:
            self._waits.clear()
        binary = self._binary
        figures = self._waits[key] = (
            binary.long(waited)
            + binary.optional_long(estimate)
            + binary.optional_long(next_wave)
            + binary.optional_string(wave_id)
        )
        return figures
