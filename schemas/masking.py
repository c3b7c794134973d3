"""Connection tokens (ADR 0171) kept out of everything but the status topic: dead letters'
original bytes and reasons, and so the logs and the console that show them."""

from __future__ import annotations

import re
from typing import Final

MASK: Final = "****"
#: A JSON member named "token" with a string value (escapes included).
_JSON_TOKEN = re.compile(rb'("token"\s*:\s*)"(?:[^"\\]|\\.)*"')


def masked_original(value: bytes) -> bytes:
    """``value`` with every connection token replaced by :data:`MASK`.

    JSON by pattern (whatever else is wrong with it); Avro by decoding and encoding the
    record again when it carries a token, and by keeping none of its bytes when a record
    of a schema that may carry one cannot be decoded.

    >>> masked_original(b'{"connection": {"port": 1, "token": "s3cr\\\\"et"}}')
    b'{"connection": {"port": 1, "token": "****"}}'
    """
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
