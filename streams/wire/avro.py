"""Avro binary primitives for the outbound writers of the bulk records (streams/wire/).

A wave publishes thousands of MatchCreated, TicketDequeued and TicketStatus records
and nearly every join publishes one TicketStatus; fastavro's ``schemaless_writer``
walks the schema for each record, so those are written from these pieces instead.
:func:`header` refuses a schema other than the one each writer was written for, so an
edited ``.avsc`` cannot drift silently; tests/streams/test_wire_avro.py compares the
pieces with fastavro and tests/streams/test_records.py the records. The remembered
bytes live in a :class:`Binary`, one per writer (a worker's), never in the module.

Avro binary, as used here (specification, "Binary encoding"): int and long are zig-zag
varints; a string is its UTF-8 length as a long, then the bytes; a double is 8 bytes
little-endian; an enum is its symbol's index; a union is the branch index, then the
value; arrays and maps are a count, the items, and a zero count.
"""

from __future__ import annotations

import io
import struct
from typing import Final

from fastavro import schemaless_reader, schemaless_writer

from schemas.codec import (
    CURRENT,
    HEADER_BYTES,
    KNOWN,
    MAGIC,
    REGISTRY_MAGIC,
    WRITTEN_WITHOUT,
    history,
    schema_fingerprint,
)
from schemas.models import EVENTS

NULL: Final = b"\x00"  # union branch 0 ("null")
SOME: Final = b"\x02"  # union branch 1 (the value's type)
END: Final = b"\x00"  # the zero count that closes an array or a map
double = struct.Struct("<d").pack

#: The schema each hand-written writer was written for: the CRC-64-AVRO fingerprint of
#: its Parsing Canonical Form, which covers field order, types, unions and enum symbols
#: (everything that decides the bytes) and nothing else (docs, defaults).
WRITTEN_FOR: Final = {
    "MatchCreated": "53e3e005d031e367",
    "TicketDequeued": "13177aff4f3e842c",
    "TicketStatus": "8ca7109e83f8bc21",
    "MatchProposed": "deb251c9cf7e70c5",
    "SearchClaim": "128059dc385153c7",
}


def zigzag_varint(value: int) -> bytes:
    """An Avro int or long: zig-zag, then 7 bits a byte, least significant first.

    Values below 2**13 (counts, ratings, positions) come from a table; for larger ones
    below 2**62 the low two 7-bit groups come from a table (:meth:`Binary.long` also
    remembers the rest).

    >>> [zigzag_varint(v).hex() for v in (0, -1, 1, 63, 64, -65, 8192, 1767225600000)]
    ['00', '01', '02', '7e', '8001', '8101', '808001', '80a0d5edee66']

    Notes: O(1); ``value`` must fit a signed 64-bit long, as Avro requires.
    """
    if 0 <= value < _SMALL_LIMIT:
        return _SMALL[value]
    if value < 0 or value >= _LARGEST:
        return _unsigned_varint((value << 1) ^ (value >> 63))
    encoded = value << 1
    return _LOW[encoded & 0x3FFF] + _unsigned_varint(encoded >> 14)


def _unsigned_varint(value: int) -> bytes:
    out = bytearray()
    while value > 127:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


#: Values below 2**13 zig-zag below 2**14: one or two bytes, all tabled.
_SMALL_LIMIT: Final = 1 << 13
_SMALL: Final = tuple(_unsigned_varint(value << 1) for value in range(_SMALL_LIMIT))
#: Two 7-bit groups, each marked "more follows" (the value is at least 2**14 zig-zagged).
_LOW: Final = tuple(bytes(((low & 0x7F) | 0x80, (low >> 7) | 0x80)) for low in range(1 << 14))
#: From here on, zig-zag needs the sign fold of 64-bit longs (and negative values too).
_LARGEST: Final = 1 << 62
#: The length prefix of a string of 0 to 63 bytes: one byte, zig-zag ``2 * size``.
_SHORT: Final = tuple(bytes((2 * size,)) for size in range(64))


def fresh_string(text: str) -> bytes:
    """An Avro string: the UTF-8 byte length as a long, then the bytes (not remembered:
    for a text written once, such as a player id in its match).

    >>> fresh_string("é").hex()
    '04c3a9'

    Notes: O(length).
    """
    data = text.encode()
    size = len(data)
    return (_SHORT[size] if size < 64 else zigzag_varint(size)) + data


class Binary:
    """Longs and strings as Avro bytes, remembering those a writer repeats.

    A wave writes the same queue, region and wave id thousands of times and each ticket
    id twice (its match and its dequeue); a timestamp's high bytes change every ~8
    seconds. The memos are bounded (emptied when full) and can only return what the
    computation would: output never depends on them.

    >>> binary = Binary()
    >>> binary.string("eu") == binary.string("eu") == fresh_string("eu")
    True
    """

    __slots__ = ("_high", "strings")

    def __init__(self) -> None:
        #: The remembered strings; ``strings.get(text) or string(text)`` skips a call.
        self.strings: dict[str, bytes] = {}
        self._high: dict[int, bytes] = {}

    def long(self, value: int) -> bytes:
        """:func:`zigzag_varint`, the high groups of a large value remembered.

        Notes: O(1).
        """
        if 0 <= value < _SMALL_LIMIT:
            return _SMALL[value]
        if value < 0 or value >= _LARGEST:
            return _unsigned_varint((value << 1) ^ (value >> 63))
        encoded = value << 1
        high = encoded >> 14
        rest = self._high.get(high)
        if rest is None:
            if len(self._high) >= _HIGH_LIMIT:
                self._high.clear()
            rest = self._high[high] = _unsigned_varint(high)
        return _LOW[encoded & 0x3FFF] + rest

    def string(self, text: str) -> bytes:
        """:func:`fresh_string`, remembered.

        Notes: O(1) for a remembered string, else O(length).
        """
        known = self.strings.get(text)
        if known is not None:
            return known
        if len(self.strings) >= _MEMO_LIMIT:
            self.strings.clear()
        encoded = self.strings[text] = fresh_string(text)
        return encoded

    def optional_string(self, text: str | None) -> bytes:
        return NULL if text is None else SOME + self.string(text)

    def optional_long(self, value: int | None) -> bytes:
        return NULL if value is None else SOME + self.long(value)


_HIGH_LIMIT: Final = 4_096
_MEMO_LIMIT: Final = 1 << 16


def symbols(name: str, field: str) -> dict[str, bytes]:
    """The encoding of each symbol of the enum ``field`` of record ``name``, by symbol.

    >>> symbols("TicketDequeued", "reason")["LEFT"]
    b'\\x02'
    """
    schema = CURRENT[EVENTS[name]].source
    (enum,) = (f["type"] for f in schema["fields"] if f["name"] == field)
    if isinstance(enum, list):  # a nullable enum: ["null", {...}]
        (enum,) = (branch for branch in enum if isinstance(branch, dict))
    return {symbol: zigzag_varint(index) for index, symbol in enumerate(enum["symbols"])}


def header(name: str) -> bytes:
    """The single-object header of record ``name``, for a writer made for its schema.

    Raises RuntimeError when the ``.avsc`` is no longer the one :data:`WRITTEN_FOR` names.
    """
    fingerprint = CURRENT[EVENTS[name]].fingerprint
    if fingerprint.hex() != WRITTEN_FOR[name]:
        raise RuntimeError(
            f"{name}: the .avsc changed (fingerprint {fingerprint.hex()}, the writer in "
            f"streams/wire/ was written for {WRITTEN_FOR[name]}); update it "
            "and its test"
        )
    return CURRENT[EVENTS[name]].header


# --- framing ---------------------------------------------------------------------------
# A body is framed one of two ways; the body itself (Avro binary) is the same either way,
# so the writers above and the decoders in schemas.codec stay one per direction:
#   single-object: C3 01 | 8-byte fingerprint of the schema | body (the default; no registry)
#   registry:      00 | 4-byte big-endian schema id | body (Confluent's wire format, read by
#                  Java's serdes, Kafka Connect, ksqlDB, Flink; docs/adr/0165)
# A topic carrying several record types registers the union of them under its subject
# (``<topic>-value``), so its body starts with the union branch's index.


def registry_header(schema_id: int) -> bytes:
    """The registry framing's header: a zero byte, then the schema id as 4 bytes big-endian.

    >>> registry_header(7).hex()
    '0000000007'
    """
    return REGISTRY_MAGIC + schema_id.to_bytes(4, "big")


class Framing:
    """How a worker frames its output values: single-object (no prefixes) or per topic
    the registry's header (and union branch) in place of each single-object header.

    >>> fingerprint = CURRENT[EVENTS["WaveClosed"]].fingerprint
    >>> framing = Framing({("waves", fingerprint): registry_header(3)})
    >>> framing.frame("waves", b"\\xc3\\x01" + fingerprint + b"body")
    b'\\x00\\x00\\x00\\x00\\x03body'
    """

    __slots__ = ("_prefixes",)

    def __init__(self, prefixes: dict[tuple[str, bytes], bytes] | None = None) -> None:
        #: (topic, single-object fingerprint) -> the registry prefix that replaces its header.
        self._prefixes = prefixes or {}

    @classmethod
    def registry(cls, topics: dict[str, tuple[int, tuple[bytes, ...]]]) -> Framing:
        """Per topic its schema id and the fingerprints of its record types, in the order
        of the registered schema (one type: the record; several: the union's branches)."""
        prefixes: dict[tuple[str, bytes], bytes] = {}
        for topic, (schema_id, fingerprints) in topics.items():
            header = registry_header(schema_id)
            for index, fingerprint in enumerate(fingerprints):
                branch = b"" if len(fingerprints) == 1 else zigzag_varint(index)
                prefixes[(topic, fingerprint)] = header + branch
        return cls(prefixes)

    def frame(self, topic: str, value: bytes) -> bytes:
        """``value`` (single-object) as this framing writes it on ``topic``.

        Notes: O(len(value)) when reframed (one copy), O(1) otherwise.
        """
        if not self._prefixes:
            return value
        prefix = self._prefixes.get((topic, value[2:HEADER_BYTES]))
        if prefix is None:
            return self._as_current(topic, value)
        return prefix + value[HEADER_BYTES:]

    def _as_current(self, topic: str, value: bytes) -> bytes:
        """An older revision's value (written without a new empty field, ADR 0171) in the
        current schema, the one registered: its body differs, so it is written again.

        Notes: O(len(value)), through fastavro; only records without the new fields.
        """
        older = KNOWN.get(bytes(value[2:HEADER_BYTES]))
        if older is None or older.reader is None:
            return value
        current = CURRENT[older.model]
        prefix = self._prefixes.get((topic, current.fingerprint))
        if prefix is None:
            return value
        tail = _TAILS.get((older.model.__name__, older.revision))
        if tail is not None:  # the usual status: only empty fields appended at the end
            return prefix + value[HEADER_BYTES:] + tail
        body = schemaless_reader(io.BytesIO(value[HEADER_BYTES:]), older.writer, older.reader)
        buffer = io.BytesIO()
        buffer.write(prefix)
        schemaless_writer(buffer, current.writer, body)
        return buffer.getvalue()


def _empty_tail(name: str, revision: str) -> bytes | None:
    """The bytes the current schema of ``name`` adds to a body of ``revision`` when the
    fields after it are all top-level, at the end, and empty (a null, an empty map: one
    zero byte each); None when they are not (a nested field: write the body again)."""
    fields = [field["name"] for field in CURRENT[EVENTS[name]].source["fields"]]
    old = [field["name"] for field in history(name)[revision]["fields"]]
    added = fields[len(old) :]
    plain = fields[: len(old)] == old and set(added) == WRITTEN_WITHOUT[name][1]
    return b"\x00" * len(added) if plain else None


#: Per record of :data:`WRITTEN_WITHOUT` and its older revision: :func:`_empty_tail`.
_TAILS: Final = {
    (name, revision): _empty_tail(name, revision) for name, (revision, _) in WRITTEN_WITHOUT.items()
}


def revision_header(name: str, revision: str) -> bytes:
    """The single-object header of the committed ``revision`` of record ``name``.

    A writer whose record leaves a newer optional field out writes the older revision,
    so its bytes stay those of the releases before the field (ADR 0171); readers resolve
    either revision to the current schema.

    >>> revision_header("TicketStatus", "r2").hex()
    'c301c1fd194b60aa7bc0'
    """
    return MAGIC + schema_fingerprint(history(name)[revision])
