"""Avro binary written directly for the four record types a wave publishes by the thousand.

A 10,000-player wave publishes ~15,000 MatchCreated, TicketDequeued, TicketStatus and
WaveClosed records. fastavro's ``schemaless_writer`` walks the schema for each of them
(~6.5 us a record); these writers know the field order and write the bytes in one join
(~1-2 us). They take the same dicts as :func:`schemas.codec.encoder_for` and return the
very same bytes, header included: ``tests/schemas/test_direct.py`` compares them with
fastavro on generated values over the schemas' whole ranges (unions, nulls, unicode,
negative and 64-bit numbers), and :func:`direct_encoder_for` refuses a schema other than
the one each writer was written for, so an edited ``.avsc`` cannot drift silently.

Avro binary, as used here (specification, "Binary encoding"): int and long are zig-zag
varints; a string is its UTF-8 length as a long, then the bytes; a double is 8 bytes
little-endian; an enum is its symbol's index; a union is the branch index, then the
value; arrays and maps are a count, the items, and a zero count.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from schemas.codec import CURRENT, max_bytes, within_limit
from schemas.models import EVENTS

Encoder = Callable[[Mapping[str, Any]], bytes]

_NULL: Final = b"\x00"  # union branch 0 ("null")
_SOME: Final = b"\x02"  # union branch 1 (the value's type)
_END: Final = b"\x00"  # the zero count that closes an array or a map
double = struct.Struct("<d").pack

#: The schema each writer below was written for: the CRC-64-AVRO fingerprint of its
#: Parsing Canonical Form, which covers field order, types, unions and enum symbols
#: (everything that decides the bytes) and nothing else (docs, defaults).
WRITTEN_FOR: Final = {
    "MatchCreated": "10ac60f1145a4bd1",
    "TicketDequeued": "eba8a4d37daf9be9",
    "TicketStatus": "0f4ddeba3d1ac3e6",
    "WaveClosed": "d5de94f6cc9fcf14",
}


def zigzag_varint(value: int) -> bytes:
    """An Avro int or long: zig-zag, then 7 bits a byte, least significant first.

    >>> [zigzag_varint(v).hex() for v in (0, -1, 1, 63, 64, -65, 1767225600000)]
    ['00', '01', '02', '7e', '8001', '8101', '80a0d5edee66']

    Notes: O(1) for a remembered value, else O(bytes); ``value`` must fit a signed
    64-bit long, as Avro requires.
    """
    known = _VARINTS.get(value)
    if known is not None:
        return known
    encoded = (value << 1) ^ (value >> 63)
    out = bytearray()
    while encoded > 127:
        out.append((encoded & 0x7F) | 0x80)
        encoded >>= 7
    out.append(encoded)
    return _remember(_VARINTS, value, bytes(out))


def string(text: str) -> bytes:
    """An Avro string: the UTF-8 byte length as a long, then the bytes.

    >>> string("é").hex()
    '04c3a9'

    Notes: O(1) for a remembered string, else O(length).
    """
    known = _STRINGS.get(text)
    if known is not None:
        return known
    data = text.encode()
    size = len(data)
    encoded = (_SHORT[size] if size < 64 else zigzag_varint(size)) + data
    if len(_STRINGS) >= _MEMO_LIMIT:
        _STRINGS.clear()
    _STRINGS[text] = encoded
    return encoded


# A wave writes the same queue, region, wave id, timestamps, ratings and small counts
# thousands of times, and each ticket id twice (its match and its dequeue): remembered
# encodings cost one dict lookup. Both memos are bounded (emptied when full), and a
# memo can only return what the computation would: output never depends on them.
_MEMO_LIMIT: Final = 1 << 16
_VARINTS: Final[dict[int, bytes]] = {}
#: The length prefix of a string of 0 to 63 bytes: one byte, zig-zag ``2 * size``.
_SHORT: Final = tuple(bytes((2 * size,)) for size in range(64))
_STRINGS: Final[dict[str, bytes]] = {}
#: The remembered strings; ``KNOWN_STRINGS.get(text) or string(text)`` skips a call.
KNOWN_STRINGS: Final = _STRINGS
#: The remembered longs; ``KNOWN_VARINTS.get(value) or zigzag_varint(value)`` skips a call.
KNOWN_VARINTS: Final = _VARINTS
_Key = TypeVar("_Key", int, str)


def _remember(memo: dict[_Key, bytes], key: _Key, data: bytes) -> bytes:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = data
    return data


def optional_string(text: str | None) -> bytes:
    return _NULL if text is None else _SOME + string(text)


def optional_long(value: int | None) -> bytes:
    return _NULL if value is None else _SOME + zigzag_varint(value)


def _optional_double(value: float | None) -> bytes:
    return _NULL if value is None else _SOME + double(value)


def symbols(name: str, field: str) -> dict[str, bytes]:
    """The encoding of each symbol of the enum ``field`` of record ``name``, by symbol.

    >>> symbols("TicketDequeued", "reason")["LEFT"]
    b'\\x02'
    """
    schema = CURRENT[EVENTS[name]].source
    (enum,) = (f["type"] for f in schema["fields"] if f["name"] == field)
    return {symbol: zigzag_varint(index) for index, symbol in enumerate(enum["symbols"])}


_REASONS: Final = symbols("TicketDequeued", "reason")
_STATES: Final = symbols("TicketStatus", "state")


def _teams(teams: Any) -> bytes:
    if not teams:
        return _END
    parts = [zigzag_varint(len(teams))]
    append = parts.append
    for team in teams:
        seats = team["players"]
        append(string(team["name"]))
        if seats:
            append(zigzag_varint(len(seats)))
            for seat in seats:
                append(string(seat["ticket_id"]))
                append(string(seat["player_id"]))
                append(string(seat["role"]))
                append(zigzag_varint(seat["rating"]))
        append(_END)
    append(_END)
    return b"".join(parts)


def _quality(quality: Mapping[str, float]) -> bytes:
    if not quality:
        return _END
    parts = [zigzag_varint(len(quality))]
    for name, value in quality.items():
        parts.append(string(name))
        parts.append(double(value))
    parts.append(_END)
    return b"".join(parts)


def _match_created(header: bytes) -> Encoder:
    def encode(body: Mapping[str, Any]) -> bytes:
        return b"".join(
            (
                header,
                string(body["match_id"]),
                string(body["queue"]),
                string(body["region"]),
                string(body["wave_id"]),
                _teams(body["teams"]),
                string(body["map"]),
                string(body["server"]),
                string(body["channel"]),
                _quality(body["quality"]),
                string(body["strategy"]),
                string(body["config_fingerprint"]),
                zigzag_varint(body["created_at_ms"]),
            )
        )

    return encode


def _ticket_dequeued(header: bytes) -> Encoder:
    def encode(body: Mapping[str, Any]) -> bytes:
        return b"".join(
            (
                header,
                string(body["ticket_id"]),
                string(body["queue"]),
                string(body["region"]),
                _REASONS[body["reason"]],
                optional_string(body["match_id"]),
                optional_string(body["wave_id"]),
                zigzag_varint(body["waves_waited"]),
                optional_string(body["detail"]),
                zigzag_varint(body["at_ms"]),
            )
        )

    return encode


def _ticket_status(header: bytes) -> Encoder:
    def encode(body: Mapping[str, Any]) -> bytes:
        return b"".join(
            (
                header,
                string(body["ticket_id"]),
                string(body["queue"]),
                string(body["region"]),
                _STATES[body["state"]],
                zigzag_varint(body["position"]),
                zigzag_varint(body["waves_waited"]),
                optional_long(body["estimated_wait_ms"]),
                optional_long(body["next_wave_at_ms"]),
                optional_string(body["wave_id"]),
                zigzag_varint(body["at_ms"]),
            )
        )

    return encode


def _wave_closed(header: bytes) -> Encoder:
    def encode(body: Mapping[str, Any]) -> bytes:
        return b"".join(
            (
                header,
                string(body["queue"]),
                string(body["region"]),
                string(body["wave_id"]),
                zigzag_varint(body["wave_number"]),
                zigzag_varint(body["players_in_snapshot"]),
                zigzag_varint(body["tickets_in_snapshot"]),
                zigzag_varint(body["matches"]),
                zigzag_varint(body["matched_players"]),
                zigzag_varint(body["unmatched"]),
                zigzag_varint(body["expired"]),
                _optional_double(body["avg_rating_diff"]),
                _optional_double(body["min_rating_diff"]),
                _optional_double(body["max_rating_diff"]),
                string(body["strategy"]),
                string(body["config_fingerprint"]),
                zigzag_varint(body["closed_at_ms"]),
                double(body["duration_ms"]),
            )
        )

    return encode


_WRITERS: Final[dict[str, Callable[[bytes], Encoder]]] = {
    "MatchCreated": _match_created,
    "TicketDequeued": _ticket_dequeued,
    "TicketStatus": _ticket_status,
    "WaveClosed": _wave_closed,
}


def direct_encoder_for(name: str) -> Encoder:
    """Return an encoder of ``name``'s dicts equal, byte for byte, to ``encoder_for(name)``.

    Only the four record types a wave publishes in bulk have one; like
    :func:`~schemas.codec.encoder_for`, it trusts the dict to honour the model's bounds.

    >>> from schemas.codec import decode
    >>> encode_status = direct_encoder_for("TicketStatus")
    >>> decode(encode_status({"ticket_id": "t-1", "queue": "1v1", "region": "eu",
    ...     "state": "SEARCHING", "position": 1, "waves_waited": 0, "estimated_wait_ms": None,
    ...     "next_wave_at_ms": None, "wave_id": None, "at_ms": 1767225605000})).position
    1

    Notes: O(record size) per call.
    """
    model = EVENTS[name]
    encode = _WRITERS[name](header(name))
    limit = max_bytes(model)

    def bounded(body: Mapping[str, Any]) -> bytes:
        data = encode(body)
        return data if len(data) <= limit else within_limit(model, data)

    return bounded


def header(name: str) -> bytes:
    """The single-object header of record ``name``, for a writer made for its schema.

    Raises RuntimeError when the ``.avsc`` is no longer the one :data:`WRITTEN_FOR` names.
    """
    fingerprint = CURRENT[EVENTS[name]].fingerprint
    if fingerprint.hex() != WRITTEN_FOR[name]:
        raise RuntimeError(
            f"{name}: the .avsc changed (fingerprint {fingerprint.hex()}, the direct writer "
            f"was written for {WRITTEN_FOR[name]}); update schemas/direct.py and its test"
        )
    return CURRENT[EVENTS[name]].header
