"""Connection tokens (ADR 0171) kept out of everything but the status topic: dead letters'
original bytes and reasons, and so the logs and the console that show them."""

from __future__ import annotations

import functools
import re
from typing import Any, Final

MASK: Final = "****"
#: A JSON member named "token" with a string value (escapes included), or one the
#: value's end cuts short.
_JSON_TOKEN = re.compile(rb'("token"\s*:\s*)"(?:[^"\\]|\\.)*(?:"|\\?\Z)')


def masked_original(value: bytes, single_object: bytes | None = None) -> bytes:
    """``value`` with every connection token replaced by :data:`MASK`.

    JSON by pattern (whatever else is wrong with it); Avro by decoding and encoding the
    record again when it carries a token, and by keeping none of its bytes when a record
    of a schema that may carry one cannot be decoded. A registry-framed value is masked
    through ``single_object``, the same record in the single-object form (its schema
    resolved), and framed again; without it, its schema is unknown: no bytes are kept.

    >>> masked_original(b'{"connection": {"port": 1, "token": "s3cr\\\\"et"}}')
    b'{"connection": {"port": 1, "token": "****"}}'
    >>> masked_original(b'{"connection": {"port": 1, "token": "s3cr')
    b'{"connection": {"port": 1, "token": "****"'
    >>> masked_original(b"\\x00\\x00\\x00\\x00\\x07\\x02")  # schema 7's record, unresolved
    b''
    """
    from schemas.codec import HEADER_BYTES, REGISTRY_HEADER_BYTES, REGISTRY_MAGIC

    if value[:1] == REGISTRY_MAGIC and len(value) > REGISTRY_HEADER_BYTES:
        if single_object is None:
            return b""
        masked = masked_original(single_object)
        if masked == single_object:
            return value
        if masked[:HEADER_BYTES] != single_object[:HEADER_BYTES]:
            return b""  # undecodable, or written again in another revision than its id's
        body = len(single_object) - HEADER_BYTES
        return value[: len(value) - body] + masked[HEADER_BYTES:]
    if value[:1] != b"\xc3":
        return _JSON_TOKEN.sub(rb'\1"' + MASK.encode() + b'"', value)
    from schemas.codec import KNOWN, decode, encode
    from schemas.errors import InvalidEvent

    known = KNOWN.get(value[2:10])
    if known is None or not _carries_token(known):
        return b"" if _may_hide_a_token(value, known is not None) else value
    try:
        event = decode(value)
    except InvalidEvent:  # its fields break the model: masked in the record as written
        return _masked_as_written(value, known.writer)
    connection = getattr(event, "connection", None)
    if connection is None or connection.token is None:
        return value
    masked = connection.model_copy(update={"token": MASK})
    return encode(event.model_copy(update={"connection": masked}))


def _may_hide_a_token(value: bytes, known: bool) -> bool:
    """Whether a single-object record whose header names a schema without a connection
    (or no schema we know) is, beneath it, a record of one that carries a token: a
    platform's placement report framed with another record's header would otherwise
    keep its token in plain text. A record valid under its own schema hides none."""
    from schemas.codec import decode
    from schemas.errors import InvalidEvent

    if known:
        try:
            decode(value)
        except InvalidEvent:
            pass
        else:
            return False
    for writer in _token_writers():
        record = _read_whole(value, writer)
        connection = record.get("connection") if isinstance(record, dict) else None
        if isinstance(connection, dict) and connection.get("token") is not None:
            return True
    return False


def _carries_token(known: Any) -> bool:
    """Whether records of the committed schema revision ``known`` may carry a token."""
    return "Connection" in str(known.source)


@functools.cache
def _token_writers() -> tuple[Any, ...]:
    """The writer schemas of every committed revision that may carry a token."""
    from schemas.codec import KNOWN

    return tuple(known.writer for known in KNOWN.values() if _carries_token(known))


def _read_whole(value: bytes, writer: Any) -> Any:
    """The record ``value``'s body holds under ``writer``, read to its last byte; None
    when it does not read, or leaves bytes over."""
    import io

    from fastavro import schemaless_reader

    from schemas.codec import HEADER_BYTES

    stream = io.BytesIO(value)
    stream.seek(HEADER_BYTES)
    try:
        record = schemaless_reader(stream, writer, None)
    except Exception:  # fastavro raises several kinds on bad bytes
        return None
    return record if stream.tell() == len(value) else None


def _masked_as_written(value: bytes, writer: Any) -> bytes:
    """An Avro record whose fields the model refuses, its token masked through its own
    writer schema; no bytes when even that cannot read it (cut short, say)."""
    import io

    from fastavro import schemaless_writer

    from schemas.codec import HEADER_BYTES

    record = _read_whole(value, writer)
    if not isinstance(record, dict):
        return b""
    connection = record.get("connection")
    if not isinstance(connection, dict) or connection.get("token") is None:
        return value
    connection["token"] = MASK
    out = io.BytesIO()
    out.write(value[:HEADER_BYTES])
    schemaless_writer(out, writer, record)
    return out.getvalue()


def is_token_path(path: str) -> bool:
    """True for the field path of a connection token, whose value no message may quote."""
    return path == "connection.token" or path.endswith(".connection.token")
