"""JSON values stored as zlib'd chunks under keys, checked by sha256 (snapshots, ADR 5).

Kafka's default max message size is 1 MiB, so a value is cut into chunks well below it;
the record that lists the chunks (a manifest) keeps their count and checksum, and is
written after them.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

#: Kafka's default max message size is 1 MiB; stay well below it.
CHUNK_BYTES = 512 * 1024


#: msgspec, the queue topic's JSON parser, also writes the snapshots: a worker encodes
#: all its queued tickets at every snapshot, and msgspec's encoder does it several times
#: faster than ``json.dumps``. Its JSON is the same but for non-ASCII text, written as
#: UTF-8 rather than escaped; ``json.loads`` reads both.
_to_json = msgspec.json.Encoder().encode


class CorruptSnapshot(RuntimeError):
    pass


def pack(value: Any) -> tuple[list[bytes], str]:
    """``value`` as JSON, zlib'd (level 1: snapshots are written often) and cut into
    chunks, with the sha256 of the whole. Notes: O(size)."""
    packed = zlib.compress(_to_json(value), 1)
    chunks = [packed[i : i + CHUNK_BYTES] for i in range(0, len(packed), CHUNK_BYTES)]
    return chunks or [b""], hashlib.sha256(packed).hexdigest()


def unpack(read: Callable[[str], bytes | None], keys: Sequence[str], sha256: str, what: str) -> Any:
    """The value :func:`pack` cut into the chunks stored under ``keys``; ``what`` names it
    in the error if a chunk is missing or the checksum differs."""
    parts = [read(key) for key in keys]
    if any(part is None for part in parts):
        raise CorruptSnapshot(f"{what}: chunks missing")
    packed = b"".join(part for part in parts if part is not None)
    if hashlib.sha256(packed).hexdigest() != sha256:
        raise CorruptSnapshot(f"{what}: checksum mismatch")
    return json.loads(zlib.decompress(packed))
