"""Registry-framed records of a log in their single-object form, for the audit commands.

A log whose joins were framed by a schema registry, or whose outputs a worker framed
(docs/adr/0165), replays only when each value is read as the worker read it: the same
:class:`~streams.wire.registry.SchemaRegistry` resolves the ids and unframes the values
(one codec), and the fold and the comparison then see single-object records
(docs/adr/0167).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace

from schemas.codec import REGISTRY_MAGIC
from schemas.errors import InvalidEvent
from schemas.topics import QUEUE
from streams.audit.rederive import LogRecord
from streams.wire.registry import SchemaRegistry, schema_id_of


class UnreadableLog(ValueError):
    """The log holds registry-framed records the audit cannot read: one line saying why."""


def is_framed(value: bytes | None) -> bool:
    """Whether ``value`` is in the registry framing (``00`` + schema id)."""
    return value is not None and value[:1] == REGISTRY_MAGIC


def unframed(records: Iterable[LogRecord], registry: SchemaRegistry | None) -> list[LogRecord]:
    """``records``, each registry-framed value in its single-object form.

    Without ``registry``, a framed output is an UnreadableLog naming the setting (framed
    inputs alone are what a worker without a registry dead-lettered); so is a
    registry that does not answer (a replay must not judge a log it could not read). An
    id the registry does not have, or a schema with no committed revision, stays framed:
    the fold dead-letters it as the worker did, and a framed output it cannot read is
    published, not re-derived (a difference).
    """
    records = list(records)
    framed = [r for r in records if is_framed(r.value)]
    if not framed:
        return records
    if registry is None and all(r.topic == QUEUE.name for r in framed):
        # Outputs in the single-object form: the workers ran without a registry and
        # dead-lettered these inputs (no_registry, or garbage that starts with 00); the
        # fold does the same.
        return records
    if registry is None:
        first = framed[0]
        raise UnreadableLog(
            f"schema_registry_url: {len(framed)} records of the log are registry-framed "
            f"(the first: {first.topic} partition {first.partition} offset {first.offset}, "
            f"schema id {schema_id_of(first.value or b'')}) and no schema registry is set: "
            "give --schema-registry URL or WAVEMATCH_SCHEMA_REGISTRY_URL"
        )
    asyncio.run(registry.resolve(r.value for r in framed))
    read = []
    for record in records:
        if is_framed(record.value):
            try:
                record = replace(record, value=registry.unframe(record.value or b""))
            except InvalidEvent as problem:
                if problem.code == "registry_unreachable":
                    raise UnreadableLog(f"schema_registry_url: {problem.reason}") from None
        read.append(record)
    return read
