"""Connection tokens (ADR 0171) kept out of everything but the status topic: dead letters'
original bytes and reasons, and so the logs and the console that show them."""

from __future__ import annotations

import re
from typing import Final

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
    if known is None or "Connection" not in str(known.source):
        return value
    try:
        event = decode(value)
    except InvalidEvent:
        return b""
    connection = getattr(event, "connection", None)
    if connection is None or connection.token is None:
        return value
    masked = connection.model_copy(update={"token": MASK})
    return encode(event.model_copy(update={"connection": masked}))


def is_token_path(path: str) -> bool:
    """True for the field path of a connection token, whose value no message may quote."""
    return path == "connection.token" or path.endswith(".connection.token")
