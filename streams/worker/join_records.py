"""The output records of a join or a leave, written for the worker's busiest path.

Nearly every queue event is a join, and a join publishes one record: its TicketStatus
(SEARCHING, its place and the expected wait). :func:`~streams.worker.wave_records.ticket_status`
remembers the bytes a wave's statuses share, keyed by the wave's instant; a join's
status carries its own instant (the join's time) and a position no other status has,
so that memo missed on every join, and the remembered longs (``schemas.direct``'s memo,
which a wave's writers lean on) were refilled and emptied every 65,536 joins. Here the
bytes shared by joins are remembered by what decides them (queue and region; wait,
estimate, next wave), and the two longs of each join are written without a memo.
The bytes are those of ``encoder_for("TicketStatus")(translate.ticket_status(...))``:
tests/streams/test_join_records.py compares them on generated statuses.
"""

from __future__ import annotations

from matcher.queue import Searching, Step
from schemas.codec import max_bytes, within_limit
from schemas.direct import KNOWN_STRINGS, header, optional_long, optional_string, string, symbols
from schemas.direct import zigzag_varint as _remembered_long
from schemas.models import TicketStatus
from schemas.topics import CLEANUP, STATUS
from streams.worker.wave_records import ticket_dequeued

_HEADER = header("TicketStatus")
_SEARCHING = symbols("TicketStatus", "state")["SEARCHING"]
_LIMIT = max_bytes(TicketStatus)
_STATUS, _CLEANUP = STATUS.name, CLEANUP.name
#: Remembered bytes per key, emptied when full (a worker sees few keys at a time).
_MEMO_LIMIT = 4_096


def step_records(step: Step) -> list[tuple[str, bytes, bytes]]:
    """Every output record of a step without a wave (a join, a leave, a refusal), in
    publication order: its dequeues, then its statuses.

    Notes: O(records).
    """
    statuses = step.statuses
    if not step.dequeued and len(statuses) == 1:  # a join
        status = statuses[0]
        return [(_STATUS, status.ticket_id.encode(), searching_status(status))]
    out = [(_CLEANUP, d.ticket_id.encode(), ticket_dequeued(d)) for d in step.dequeued]
    out += [(_STATUS, s.ticket_id.encode(), searching_status(s)) for s in statuses]
    return out


def searching_status(status: Searching) -> bytes:
    """The TicketStatus record (state SEARCHING) of ``status``.

    >>> from schemas.codec import decode
    >>> decode(searching_status(Searching("t-1", "1v1", "eu", 3, 0, 1767225600000))).position
    3

    Notes: O(length of its strings).
    """
    place = _PLACES.get((status.queue, status.region))
    if place is None:
        place = _place(status.queue, status.region)
    wait = (status.waves_waited, status.estimated_wait_ms, status.next_wave_at_ms, status.wave_id)
    figures = _WAITS.get(wait) or _waits(wait)
    ticket_id = status.ticket_id
    data = b"".join(
        (
            _HEADER,
            KNOWN_STRINGS.get(ticket_id) or string(ticket_id),
            place,
            long_bytes(status.position),
            figures,
            long_bytes(status.at_ms),
        )
    )
    return data if len(data) <= _LIMIT else within_limit(TicketStatus, data)


def _place(queue: str, region: str) -> bytes:
    """The bytes between a status's ticket id and its position."""
    if len(_PLACES) >= _MEMO_LIMIT:
        _PLACES.clear()
    place = _PLACES[queue, region] = string(queue) + string(region) + _SEARCHING
    return place


def _waits(key: tuple[int, int | None, int | None, str | None]) -> bytes:
    """The bytes between a status's position and its time."""
    waited, estimate, next_wave, wave_id = key
    if len(_WAITS) >= _MEMO_LIMIT:
        _WAITS.clear()
    figures = _WAITS[key] = (
        _remembered_long(waited)
        + optional_long(estimate)
        + optional_long(next_wave)
        + optional_string(wave_id)
    )
    return figures


_PLACES: dict[tuple[str, str], bytes] = {}
_WAITS: dict[tuple[int, int | None, int | None, str | None], bytes] = {}


def long_bytes(value: int) -> bytes:
    """An Avro long, as :func:`schemas.direct.zigzag_varint` writes it, without its memo:
    for values seldom written twice (a join's time and position).

    The low two 7-bit groups of a value of 2**13 or more come from a table; the rest
    (a timestamp's changes every ~8 seconds) is remembered.

    >>> [long_bytes(v).hex() for v in (0, -1, 63, 64, 8192, 1767225600000)]
    ['00', '01', '7e', '8001', '808001', '80a0d5edee66']

    Notes: O(1).
    """
    if 0 <= value < _SMALL_LIMIT:
        return _SMALL[value]
    if value < 0 or value >= _LARGEST:
        return _remembered_long(value)
    encoded = value << 1
    high = encoded >> 14
    rest = _HIGH.get(high)
    if rest is None:
        if len(_HIGH) >= _MEMO_LIMIT:
            _HIGH.clear()
        rest = _HIGH[high] = _unsigned_varint(high)
    return _LOW[encoded & 0x3FFF] + rest


def _unsigned_varint(value: int) -> bytes:
    out = bytearray()
    while value > 127:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


#: Values below 2**13 zig-zag below 2**14: one or two bytes, all tabled.
_SMALL_LIMIT = 1 << 13
_SMALL = tuple(_unsigned_varint(value << 1) for value in range(_SMALL_LIMIT))
#: Two 7-bit groups, each marked "more follows" (the value is at least 2**14 zig-zagged).
_LOW = tuple(bytes(((low & 0x7F) | 0x80, (low >> 7) | 0x80)) for low in range(1 << 14))
_HIGH: dict[int, bytes] = {}
#: Above this, zig-zag needs the sign fold of 64-bit longs: the remembered writer.
_LARGEST = 1 << 62
