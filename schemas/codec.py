"""Events to bytes and back: Avro single-object encoding, plus JSON input for humans.

Wire format (Avro specification, "Single object encoding")::

    C3 01 | 8-byte little-endian CRC-64-AVRO fingerprint of the schema | Avro binary body

The fingerprint names the exact schema version, so a log decodes without a registry:
:data:`KNOWN` maps every committed schema revision's fingerprint to its model. Input
(``decode_queue_event``) also accepts a plain JSON object with a ``"type"`` member naming
the event (schemas/README.md). Every path ends in the same pydantic validation; every
failure is one :class:`~schemas.errors.InvalidEvent` naming the field.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from fastavro import parse_schema, schemaless_reader, schemaless_writer
from fastavro.schema import fingerprint, to_parsing_canonical_form
from pydantic import ValidationError

from schemas.diagnose import find_problem
from schemas.errors import InvalidEvent, child_path, one_line
from schemas.masking import is_token_path, masked_original
from schemas.models import (
    EVENTS,
    MAX_DEAD_LETTER_KEY_BYTES,
    MAX_DEAD_LETTER_ORIGINAL_BYTES,
    QUEUE_EVENTS,
    DeadLetter,
    QueueEvent,
    Record,
)

MAGIC: Final = b"\xc3\x01"
HEADER_BYTES: Final = 10
#: A schema registry's framing (Confluent's) instead: the byte 00, then the schema id in
#: 4 bytes (streams/wire/avro.py writes and reads it).
REGISTRY_MAGIC: Final = b"\x00"
REGISTRY_HEADER_BYTES: Final = 5
#: The largest accepted event value; larger ones are rejected before parsing.
MAX_EVENT_BYTES: Final = 64 * 1024
#: A DeadLetter carries up to 64 KiB of the original value besides its own fields.
MAX_DEAD_LETTER_BYTES: Final = 96 * 1024

_SCHEMA_ROOT = Path(__file__).resolve().parent / "avro"
_ERROR_CODES: Final = {
    "missing": "missing_field",
    "extra_forbidden": "unknown_field",
    "enum": "unknown_symbol",
}
Event = TypeVar("Event", bound=Record)


@dataclass(frozen=True, slots=True)
class KnownSchema:
    """One committed schema revision that the decoder accepts.

    ``writer`` is the parsed schema of the bytes; ``reader`` is the current schema of the
    same event when this is an older revision (fastavro resolves the difference), else None.
    """

    model: type[Record]
    revision: str
    source: dict[str, Any]
    writer: Any
    reader: Any
    fingerprint: bytes

    @property
    def header(self) -> bytes:
        return MAGIC + self.fingerprint


def schema_fingerprint(schema: dict[str, Any]) -> bytes:
    """Return the 8-byte little-endian CRC-64-AVRO fingerprint of ``schema``."""
    return bytes.fromhex(fingerprint(to_parsing_canonical_form(schema), "CRC-64-AVRO"))


def load_schema(name: str, major: str = "v1") -> dict[str, Any]:
    """Return the current ``.avsc`` of event ``name`` as a JSON object."""
    loaded: dict[str, Any] = json.loads((_SCHEMA_ROOT / major / f"{name}.avsc").read_text())
    return loaded


def history(name: str, major: str = "v1") -> dict[str, dict[str, Any]]:
    """Return every committed revision of event ``name``, oldest first: ``{"r1": schema}``."""
    folder = _SCHEMA_ROOT / "history" / major / name
    files = [entry for entry in folder.iterdir() if entry.name.endswith(".avsc")]
    files.sort(key=lambda entry: int(entry.name.removeprefix("r").removesuffix(".avsc")))
    return {entry.name.removesuffix(".avsc"): json.loads(entry.read_text()) for entry in files}


def _parse(schema: dict[str, Any]) -> Any:
    # Logical types change no byte on the wire; without them fastavro hands back plain
    # ints for timestamps (what the models hold) instead of datetimes to convert back.
    return parse_schema(_without_logical_types(schema))


def _without_logical_types(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_logical_types(branch) for branch in schema]
    if isinstance(schema, dict):
        return {k: _without_logical_types(v) for k, v in schema.items() if k != "logicalType"}
    return schema


def older_revision(current: KnownSchema, revision: str, schema: dict[str, Any]) -> KnownSchema:
    """Return how to read bytes written with an older ``schema`` of ``current``'s event."""
    return KnownSchema(
        current.model, revision, schema, _parse(schema), current.writer, schema_fingerprint(schema)
    )


def _load_known() -> tuple[dict[type[Record], KnownSchema], dict[bytes, KnownSchema]]:
    current: dict[type[Record], KnownSchema] = {}
    by_fingerprint: dict[bytes, KnownSchema] = {}
    for name, model in EVENTS.items():
        source = load_schema(name)
        known = KnownSchema(
            model, "current", source, _parse(source), None, schema_fingerprint(source)
        )
        current[model] = by_fingerprint[known.fingerprint] = known
        for revision, schema in history(name).items():
            old = older_revision(known, revision, schema)
            by_fingerprint.setdefault(old.fingerprint, old)
    return current, by_fingerprint


CURRENT, KNOWN = _load_known()

#: Optional fields that earlier outputs never carried, by record: while a record leaves
#: all of them empty (null, or an empty map) it is written as the named revision (the
#: schema before them), so its bytes stay those of earlier releases and of the golden
#: files (docs/adr/0171); readers resolve either revision. A field added here must
#: default to null or to an empty map. A field nested in arrays of records is named by
#: its path, ``[]`` marking an array: ``teams[].players[].data`` is every seat's data
#: (docs/adr/0173).
WRITTEN_WITHOUT: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "TicketStatus": ("r2", frozenset({"connection"})),
    "PlacementReported": ("r1", frozenset({"connection"})),
    "TicketJoined": (
        "r2",
        frozenset(
            {"players[].blocked_players", "players[].deviation", "players[].numbers"}
            | {"players[].data", "searches", "data", "nearby", "priority"}
            | {"players[].peer_latency_ms"}
        ),
    ),
    "MatchCreated": ("r1", frozenset({"teams[].players[].data"})),
    "MatchProposed": ("r1", frozenset({"teams[].players[].data"})),
    "BackfillResult": ("r1", frozenset({"teams[].players[].data"})),
}

#: The same for a record with a revision between the named one above and the current
#: one: while it leaves these (later) fields empty, but not all of the above, it is
#: written as this revision, so a join that was written as r3 stays r3 (docs/adr/0185).
THEN_WRITTEN_WITHOUT: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "TicketJoined": ("r3", frozenset({"players[].peer_latency_ms"})),
}


def _values_at(body: Any, path: str) -> list[Any]:
    """The values of the field ``path`` (``a[].b``: field b of every item of array a)."""
    head, _, rest = path.partition("[].")
    value = body.get(head) if isinstance(body, Mapping) else getattr(body, head, None)
    if not rest:
        return [value]
    return [found for item in value or () for found in _values_at(item, rest)]


def _empty(value: Any) -> bool:
    """Null or an empty collection; 0 and false are values (a deviation of 0 is sent)."""
    return value is None or (isinstance(value, Mapping | list | tuple | str) and not value)


def leaves_out(body: Any, path: str) -> bool:
    """True when every value of the field ``path`` in ``body`` is empty (null, {}, [])."""
    return all(_empty(value) for value in _values_at(body, path))


def without_unsent(
    body: dict[str, Any], name: str | None = None, revision: str | None = None
) -> dict[str, Any]:
    """``body`` (a record ``name``, else the one its ``"type"`` names) without the empty
    fields of :data:`WRITTEN_WITHOUT` and :data:`THEN_WRITTEN_WITHOUT`, as the revision
    before them has it (only those the older ``revision`` lacks, when given); in place."""
    record = name or body["type"]
    tiers = [
        tier
        for tier in (WRITTEN_WITHOUT.get(record), THEN_WRITTEN_WITHOUT.get(record))
        if tier is not None and revision in (None, tier[0])
    ]
    for path in frozenset().union(*(fields for _, fields in tiers)):
        _drop_empty(body, path)
    return body


def _drop_empty(body: Any, path: str) -> None:
    head, _, rest = path.partition("[].")
    if not rest:
        if _empty(body.get(head)):
            body.pop(head, None)
        return
    for item in body.get(head) or ():
        _drop_empty(item, rest)


_OLDER: Final = {
    EVENTS[name]: (fields, older_revision(CURRENT[EVENTS[name]], revision, history(name)[revision]))
    for name, (revision, fields) in WRITTEN_WITHOUT.items()
}
_LATER: Final = {
    EVENTS[name]: (fields, older_revision(CURRENT[EVENTS[name]], revision, history(name)[revision]))
    for name, (revision, fields) in THEN_WRITTEN_WITHOUT.items()
}


def _writer_schema(model: type[Record], body: Mapping[str, Any]) -> KnownSchema:
    """The revision to write ``body`` with: the older one of :data:`WRITTEN_WITHOUT` when
    the record leaves its fields null, else the one of :data:`THEN_WRITTEN_WITHOUT` when it
    leaves those null, else the current schema."""
    for older in (_OLDER.get(model), _LATER.get(model)):
        if older is not None and all(leaves_out(body, path) for path in older[0]):
            return older[1]
    return CURRENT[model]


def max_bytes(model: type[Record]) -> int:
    """Return the largest encoded size accepted for events of ``model``."""
    return MAX_DEAD_LETTER_BYTES if model is DeadLetter else MAX_EVENT_BYTES


# --- encoding --------------------------------------------------------------------------


def encode(event: Record) -> bytes:
    """Return ``event`` in Avro single-object encoding.

    Raises InvalidEvent("oversize") when the result would be refused by :func:`decode`.
    """
    body = event.model_dump()
    known = _writer_schema(type(event), body)
    buffer = io.BytesIO()
    buffer.write(known.header)
    # An older revision's parsed schema is its ``writer`` (``reader`` is the current one).
    schemaless_writer(buffer, known.writer, body)
    return within_limit(type(event), buffer.getvalue())


def encode_json(event: Record) -> bytes:
    """Return ``event`` as the JSON input form: one UTF-8 object with a ``"type"`` member."""
    body = {"type": type(event).__name__, **event.model_dump(mode="json")}
    # As in Avro: a field earlier outputs never carried is left out while empty.
    text = json.dumps(without_unsent(body), ensure_ascii=False, separators=(",", ":"))
    return within_limit(type(event), text.encode("utf-8"))


def within_limit(model: type[Record], data: bytes) -> bytes:
    """Return ``data``, or raise InvalidEvent("oversize") if a ``model`` may not be that long."""
    if len(data) > max_bytes(model):
        raise InvalidEvent(
            "oversize",
            f"{model.__name__} is {len(data)} bytes, over the {max_bytes(model)}-byte limit",
        )
    return data


# --- decoding --------------------------------------------------------------------------


def decode(data: bytes) -> Record:
    """Return the event in ``data`` (Avro single-object encoding), whatever its schema."""
    known = _known_schema(data)
    return _read(known, data)


def decode_as(data: bytes, model: type[Event]) -> Event:
    """Return the event in ``data``, which must be a ``model`` (else InvalidEvent)."""
    known = _known_schema(data)
    if known.model is not model:
        raise InvalidEvent(
            "unexpected_event", f"expected {model.__name__}, the value is a {known.model.__name__}"
        )
    event: Event = _read(known, data)  # type: ignore[assignment]
    return event


def decode_queue_event(data: bytes) -> QueueEvent:
    """Return the queue-topic event in ``data`` (a ``QUEUE_EVENTS`` model): Avro or JSON.

    >>> event = decode_queue_event(b'{"type": "TicketLeft", "ticket_id": "t-1", "queue": "1v1",'
    ...     b' "region": "eu", "reason": "REQUESTED", "left_at_ms": 1767225630000}')
    >>> event.reason
    <LeaveReason.REQUESTED: 'REQUESTED'>
    >>> decode_queue_event(b'{"type": "TicketLeft"}')
    Traceback (most recent call last):
    ...
    schemas.errors.InvalidEvent: TicketLeft ticket_id: Field required (and 4 more problems)
    """
    if data and len(data) > MAX_EVENT_BYTES:
        raise _oversize(len(data), MAX_EVENT_BYTES)
    if data and data[:2] == MAGIC:
        known = _known_schema(data)
        if known.model not in QUEUE_EVENTS:
            raise InvalidEvent(
                "unexpected_event",
                f"a {known.model.__name__} is not a queue event "
                f"({', '.join(model.__name__ for model in QUEUE_EVENTS)})",
            )
        event: QueueEvent = _read(known, data)  # type: ignore[assignment]
        return event
    if data and data.lstrip()[:1] == b"{":
        queued: QueueEvent = decode_json(data, QUEUE_EVENTS)  # type: ignore[assignment]
        return queued
    if not data or not data.strip():
        raise InvalidEvent("empty", "the message value is empty")
    raise InvalidEvent(
        "garbage",
        f"the value is neither Avro single-object encoded (C3 01 ...) nor a JSON object "
        f"(starts with {bytes(data[:4]).hex(' ')})",
    )


def decode_json(data: bytes, accepted: tuple[type[Record], ...] = tuple(EVENTS.values())) -> Record:
    """Return the event in the JSON input form ``data``; its ``"type"`` must be ``accepted``."""
    if len(data) > MAX_DEAD_LETTER_BYTES:
        raise _oversize(len(data), MAX_DEAD_LETTER_BYTES)
    body = _json_object(data)
    name = body.pop("type", None)
    model = next((model for model in accepted if model.__name__ == name), None)
    if model is None:
        names = ", ".join(model.__name__ for model in accepted)
        got = "is missing" if name is None else f"is {one_line(repr(name), 80)}"
        raise InvalidEvent("unknown_type", f'"type" {got}; expected one of {names}', "type")
    if len(data) > max_bytes(model):
        raise _oversize(len(data), max_bytes(model))
    if model is DeadLetter:  # bytes travel as base64 strings, which only JSON mode decodes
        return validate_as(model, json.dumps(body), json_mode=True)
    return validate_as(model, body)


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    body = dict(pairs)
    if len(body) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return body


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _json_object(data: bytes) -> dict[str, Any]:
    try:
        body = json.loads(
            bytes(data).decode("utf-8"), object_pairs_hook=_unique_keys, parse_constant=_no_constant
        )
    except UnicodeDecodeError as error:
        raise InvalidEvent(
            "bad_json", f"the JSON value is not UTF-8 (byte {error.start})"
        ) from None
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        raise InvalidEvent("bad_json", f"not valid JSON: {error.msg} at {where}") from None
    except _DuplicateKey as error:
        raise InvalidEvent("bad_json", f'the JSON object repeats the key "{error}"') from None
    except (ValueError, RecursionError) as error:
        raise InvalidEvent("bad_json", f"not valid JSON: {error}") from None
    if not isinstance(body, dict):
        raise InvalidEvent("bad_json", f"expected a JSON object, got a JSON {type(body).__name__}")
    return body


def _known_schema(data: bytes) -> KnownSchema:
    if not data:
        raise InvalidEvent("empty", "the message value is empty")
    if len(data) > MAX_DEAD_LETTER_BYTES:
        raise _oversize(len(data), MAX_DEAD_LETTER_BYTES)
    if data[:2] != MAGIC:
        raise InvalidEvent(
            "bad_marker",
            f"expected the Avro single-object marker c3 01, got {bytes(data[:2]).hex(' ')}",
        )
    if len(data) < HEADER_BYTES:
        raise InvalidEvent(
            "truncated", f"the value ends inside the 10-byte header ({len(data)} bytes)"
        )
    known = KNOWN.get(bytes(data[2:HEADER_BYTES]))
    if known is None:
        mark = bytes(data[2:HEADER_BYTES]).hex()
        raise InvalidEvent("unknown_fingerprint", f"no known schema has the fingerprint {mark}")
    if len(data) > max_bytes(known.model):
        raise _oversize(len(data), max_bytes(known.model))
    return known


def _oversize(size: int, limit: int) -> InvalidEvent:
    return InvalidEvent("oversize", f"the value is {size} bytes, over the {limit}-byte limit")


def _read(known: KnownSchema, data: bytes) -> Record:
    stream = io.BytesIO(data)
    stream.seek(HEADER_BYTES)
    try:
        record = schemaless_reader(stream, known.writer, known.reader)
    except Exception as error:  # any fastavro failure on untrusted bytes is bad input
        raise _unreadable(known, data, error) from None
    if stream.tell() != len(data):
        extra = len(data) - stream.tell()
        raise InvalidEvent(
            "trailing_bytes", f"{known.model.__name__}: {extra} byte(s) after the end of the record"
        )
    return validate_as(known.model, record)


def _unreadable(known: KnownSchema, data: bytes, error: Exception) -> InvalidEvent:
    problem = find_problem(known.source, bytes(data[HEADER_BYTES:]))
    name = known.model.__name__
    if problem is None:  # fastavro refused what the spec allows: say what it said
        return InvalidEvent("bad_avro", f"{name}: {type(error).__name__}: {error}")
    return InvalidEvent(problem.code, f"{name} {problem.reason}", problem.field)


def validate_as(model: type[Event], body: Any, json_mode: bool = False) -> Event:
    """``body`` as a ``model`` (a Python value; ``json_mode``: JSON text); InvalidEvent
    names the first failing field, as a dead letter does."""
    try:
        if json_mode:
            return model.model_validate_json(body)
        return model.model_validate(body)
    except ValidationError as error:
        raise _invalid(model, error) from None


def _invalid(model: type[Record], error: ValidationError) -> InvalidEvent:
    problems = _independent(error.errors(include_url=False))
    first = problems[0]
    location = list(first["loc"])
    is_key = bool(location) and location[-1] == "[key]"
    path = ""
    for part in location[:-1] if is_key else location:
        path = child_path(path, part)
    message = first["msg"].removeprefix("Value error, ")
    if is_key:
        message = f"map key: {message}"
    if first["type"] != "missing" and is_token_path(path):  # a secret (ADR 0171)
        message += f" (got a token of {len(str(first.get('input')))} characters)"
    elif first["type"] != "missing":
        message += f" (got {_shown(first.get('input'))})"
    if len(problems) > 1:
        message += f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})"
    code = _ERROR_CODES.get(first["type"], "invalid_field")
    return InvalidEvent(code, f"{model.__name__} {path or 'record'}: {message}", path or None)


def _independent(problems: list[Any]) -> list[Any]:
    # pydantic adds "Tuple should have at least 1 item" on a list whose only item failed:
    # an echo of the item's problem, not a second one.
    locations = [tuple(problem["loc"]) for problem in problems]
    return [
        problem
        for problem, at in zip(problems, locations, strict=True)
        if not any(len(other) > len(at) and other[: len(at)] == at for other in locations)
    ] or problems


def _shown(value: Any) -> str:
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return one_line(repr(value), 60)
    if isinstance(value, (list, tuple, dict)):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__}"


# --- dead letters ----------------------------------------------------------------------


def dead_letter_for(
    raw: bytes | None,
    key: bytes | None,
    topic: str,
    partition: int,
    offset: int,
    error: BaseException,
    now_ms: int,
    single_object: bytes | None = None,
) -> DeadLetter:
    """Return the DeadLetter for a message that failed with ``error``; never drop a message.

    An :class:`InvalidEvent` gives its code, field and reason; any other exception is
    recorded as ``unhandled`` (a worker bug, kept with the bytes that triggered it).
    The value is cut to 64 KiB and the key to 1 KiB; ``original_size`` keeps the length.
    ``single_object``: a registry-framed value's record in the single-object form, which
    its connection token is masked through (:func:`schemas.masking.masked_original`).
    """
    value = bytes(raw or b"")
    if isinstance(error, InvalidEvent):
        code, reason, field = error.code, error.reason, error.field
    else:
        code, reason, field = "unhandled", f"{type(error).__name__}: {error}", None
    # No connection token kept (ADR 0171).
    size, value = len(value), masked_original(value, single_object)
    return DeadLetter(
        original=value[:MAX_DEAD_LETTER_ORIGINAL_BYTES],
        original_size=max(size, len(value)),
        original_key=None if key is None else bytes(key)[:MAX_DEAD_LETTER_KEY_BYTES],
        topic=topic,
        partition=partition,
        offset=offset,
        error_code=code,
        reason=one_line(reason),
        field=None if not field else field[:512],
        failed_at_ms=now_ms,
    )


def encoder_for(
    event: str | type[Record], *, validate: bool = False
) -> Callable[[Mapping[str, Any]], bytes]:
    """Return a fast encoder of plain dicts shaped like ``event``'s schema.

    The worker encodes its wave summaries and dead letters this way, skipping pydantic
    (its bulk records have their own writers in streams/wire/). Such a dict must already
    honour the model's bounds, or consumers that decode with :func:`decode` will reject
    it: tests should build the encoder with ``validate=True``, which routes every dict
    through the model first.

    >>> encode_status = encoder_for("TicketStatus", validate=True)
    >>> data = encode_status({"ticket_id": "t-1", "queue": "1v1", "region": "eu",
    ...     "state": "SEARCHING", "position": 1, "waves_waited": 0, "estimated_wait_ms": None,
    ...     "next_wave_at_ms": None, "wave_id": None, "at_ms": 1767225605000})
    >>> decode(data).position
    1
    """
    model = EVENTS[event] if isinstance(event, str) else event
    limit = max_bytes(model)

    def encode_dict(body: Mapping[str, Any]) -> bytes:
        if validate:
            return encode(validate_as(model, body))
        known = _writer_schema(model, body)
        buffer = io.BytesIO()
        buffer.write(known.header)
        schemaless_writer(buffer, known.writer, body)
        data = buffer.getvalue()
        return data if len(data) <= limit else within_limit(model, data)

    return encode_dict
