"""The schema registry at the edge: output schemas registered, input schema ids resolved.

With ``WAVEMATCH_SCHEMA_REGISTRY_URL`` set, a worker registers each output topic's schema
under ``<topic>-value`` as it starts (the registry's compatibility check refuses an
incompatible change, and the worker does not start) and writes those topics in the
registry framing (:class:`streams.wire.avro.Framing`). Whatever the setting, a
registry-framed value on the queue topic is read: its schema id is resolved here, once per
id, to the committed schema revision with the same fingerprint, and the value is then
decoded as the single-object form it is equivalent to (one decoder, schemas.codec). An id
the registry does not know, or a schema wavematch has no revision of, is the record's dead
letter (field ``schema_id``), never a crash (docs/adr/0165); a registry that does not
answer holds the records back until it does (docs/adr/0168). The audit commands read a
framed log through the same class (docs/adr/0167).

The HTTP client is confluent-kafka's ``AsyncSchemaRegistryClient``: maintained with the
Confluent API it speaks (Confluent, Apicurio's ccompat, Karapace), asyncio-native like the
worker, with basic auth and TLS as the broker connection has them. It brings librdkafka,
which the worker does not otherwise use; a hand-written client of the three calls would
have to grow those features and follow the API's changes itself.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from schemas.codec import (
    CURRENT,
    KNOWN,
    MAGIC,
    REGISTRY_HEADER_BYTES,
    REGISTRY_MAGIC,
    schema_fingerprint,
)
from schemas.errors import InvalidEvent
from schemas.topics import CLEANUP, DEADLETTER, MATCHES, STATUS, WAVES, Topic
from streams.wire.avro import Framing

#: The topics others read: written in the registry framing when a registry is set. The
#: queue, config and snapshot topics stay single-object: the worker reads them itself, and
#: its ticks and claims must not wait on a registry (docs/adr/0165).
OUTPUT_TOPICS: Final[tuple[Topic, ...]] = (MATCHES, CLEANUP, STATUS, WAVES, DEADLETTER)


#: The first pause before asking a registry that did not answer again, and the longest.
_RETRY_FIRST_S: Final = 0.5
_RETRY_MAX_S: Final = 30.0

#: Unresolved ids remembered (each with its reason) before the memory starts over.
_PROBLEMS_LIMIT: Final = 4_096


class RegistryError(RuntimeError):
    """The registry refused or could not take a schema: one line saying which and why."""


def subject(topic: Topic) -> str:
    """The subject of ``topic``'s values (Confluent's TopicNameStrategy)."""
    return f"{topic.name}-value"


def subject_schema(topic: Topic) -> Any:
    """The schema registered for ``topic``: its record's ``.avsc``, or the union of its
    records in :attr:`Topic.values` order (a new type is appended: a compatible change),
    each named type defined once."""
    sources = [CURRENT[model].source for model in topic.values]
    if len(sources) == 1:
        return sources[0]
    defined: dict[str, Any] = {}
    return [_defined_once(source, "", defined) for source in sources]


def _defined_once(schema: Any, namespace: str, defined: dict[str, Any]) -> Any:
    """``schema`` with every named type already in ``defined`` replaced by its full name."""
    if isinstance(schema, list):
        return [_defined_once(branch, namespace, defined) for branch in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind in ("array", "map"):
        part = "items" if kind == "array" else "values"
        return {**schema, part: _defined_once(schema[part], namespace, defined)}
    if kind not in ("record", "enum", "fixed"):
        return schema
    space = schema.get("namespace", namespace)
    full = schema["name"] if "." in schema["name"] else f"{space}.{schema['name']}"
    if full in defined:
        if schema_fingerprint(defined[full]) != schema_fingerprint(schema):
            raise ValueError(f"{full} is defined differently by two records of one topic")
        return full
    defined[full] = schema
    if kind != "record":
        return schema
    fields = [{**f, "type": _defined_once(f["type"], space, defined)} for f in schema["fields"]]
    return {**schema, "fields": fields}


#: Seconds a registry request may take before it counts as unanswered. The client waits
#: forever without one, and a registry that accepts connections but never answers would
#: then hold every region back with no alert (docs/adr/0168 alerts on failures only).
REQUEST_TIMEOUT_S = 5
#: The client's own retries of a request that failed: one, then the worker's outage loop
#: (0.5 s doubling to 30 s, with its alert) asks again.
REQUEST_RETRIES = 1


def client_config(
    url: str,
    username: str | None = None,
    password: str | None = None,
    cafile: str | None = None,
    certfile: str | None = None,
    keyfile: str | None = None,
    *,
    timeout_s: float = REQUEST_TIMEOUT_S,
) -> dict[str, str | float]:
    """The registry client's configuration (confluent-kafka's keys)."""
    config: dict[str, str | float] = {
        "url": url,
        "timeout": timeout_s,
        "max.retries": REQUEST_RETRIES,
    }
    if username is not None and password is not None:
        config["basic.auth.user.info"] = f"{username}:{password}"
    for key, path in (
        ("ssl.ca.location", cafile),
        ("ssl.certificate.location", certfile),
        ("ssl.key.location", keyfile),
    ):
        if path is not None:
            config[key] = path
    return config


def no_registry(value: bytes) -> bytes:
    """The unframing of a worker without a registry: every registry-framed value is refused."""
    raise InvalidEvent(
        "no_registry",
        f"the value is registry-framed (schema id {schema_id_of(value)}) and no schema registry "
        "is set (WAVEMATCH_SCHEMA_REGISTRY_URL)",
        "schema_id",
    )


class SchemaRegistry:
    """One worker's registry: its output framing, and the input schema ids it resolved.

    ``client`` is an ``AsyncSchemaRegistryClient`` (or anything with its ``register_schema``
    and ``get_schema`` coroutines). Resolved ids are kept for the process's life (a schema
    id never changes its schema); a failed one is asked again in the next batch.
    """

    def __init__(self, client: Any) -> None:
        self._client = client
        #: Schema id -> the single-object header of the same schema (of each branch, in
        #: order, when it is a union: a topic of several record types).
        self._headers: dict[int, tuple[bytes, ...]] = {}
        #: Schema id -> why it could not be resolved when last asked.
        self._problems: dict[int, InvalidEvent] = {}

    async def register_outputs(
        self,
        topics: Iterable[Topic] = OUTPUT_TOPICS,
        schema_of: Callable[[Topic], Any] = subject_schema,
    ) -> Framing:
        """Register each topic's schema (``schema_of``) under its subject; the framing of
        their ids. Raises RegistryError when the registry refuses one or does not answer."""
        from confluent_kafka.schema_registry import Schema

        ids: dict[str, tuple[int, tuple[bytes, ...]]] = {}
        for topic in topics:
            text = json.dumps(schema_of(topic))
            try:
                schema_id = await self._client.register_schema(subject(topic), Schema(text, "AVRO"))
            except Exception as error:  # the client's errors, HTTP and network alike
                raise RegistryError(
                    f"schema registry: cannot register {subject(topic)}: {_said(error)}"
                ) from None
            fingerprints = tuple(CURRENT[model].fingerprint for model in topic.values)
            ids[topic.name] = (int(schema_id), fingerprints)
        return Framing.registry(ids)

    async def resolve(self, values: Iterable[bytes | None]) -> None:
        """Look up the schema ids of the registry-framed ``values`` not yet known.

        An id that failed is asked again once per call (the registry may be back), and
        keeps its last answer until then, so every fold of the batch sees one.
        """
        asked: set[int] = set()
        for value in values:
            if not value or value[:1] != REGISTRY_MAGIC or len(value) < REGISTRY_HEADER_BYTES:
                continue
            schema_id = schema_id_of(value)
            if schema_id in self._headers or schema_id in asked:
                continue
            asked.add(schema_id)
            if len(self._problems) >= _PROBLEMS_LIMIT:  # random ids must not grow it forever
                self._problems.clear()
            try:
                found = await self._client.get_schema(schema_id)
                self._headers[schema_id] = known_headers(schema_id, found.schema_str)
            except InvalidEvent as problem:
                self._problems[schema_id] = problem
            except Exception as error:  # the client's errors, HTTP and network alike
                self._problems[schema_id] = _lookup_failed(schema_id, error)
            else:
                self._problems.pop(schema_id, None)

    def unreachable(self, values: Iterable[bytes | None]) -> InvalidEvent | None:
        """Why the registry could not be asked about one of ``values``' ids, if it could
        not: a ``registry_unreachable`` problem left from the last :meth:`resolve`."""
        for value in values:
            if not value or value[:1] != REGISTRY_MAGIC or len(value) < REGISTRY_HEADER_BYTES:
                continue
            problem = self._problems.get(schema_id_of(value))
            if problem is not None and problem.code == "registry_unreachable":
                return problem
        return None

    async def resolve_through_outage(
        self,
        values: Sequence[bytes | None],
        waiting: Callable[[InvalidEvent | None, float], None],
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """:meth:`resolve` ``values``, asking again while the registry does not answer.

        A registry outage holds the records back instead of dead-lettering valid joins
        (docs/adr/0168): ``waiting(problem, seconds)`` is told of each failed round, and
        ``waiting(None, seconds)`` once when it answers again after an outage. The
        seconds are those since the first look-up, by ``clock``: the look-ups that timed
        out count as much as the pauses between them.
        """
        delay, started, held = _RETRY_FIRST_S, clock(), False
        await self.resolve(values)
        while (problem := self.unreachable(values)) is not None:
            held = True
            waiting(problem, clock() - started)
            await sleep(delay)
            delay = min(delay * 2, _RETRY_MAX_S)
            await self.resolve(values)
        if held:
            waiting(None, clock() - started)

    def unframe(self, value: bytes) -> bytes:
        """``value`` (registry-framed, its id resolved) in the single-object form.

        Raises InvalidEvent (field ``schema_id``) when its id could not be resolved.
        """
        if len(value) < REGISTRY_HEADER_BYTES:
            raise InvalidEvent(
                "truncated",
                f"the value ends inside the 5-byte registry header ({len(value)} bytes)",
                "schema_id",
            )
        schema_id = schema_id_of(value)
        headers = self._headers.get(schema_id)
        if headers is None:
            raise self._problems.get(schema_id) or InvalidEvent(
                "registry_unreachable", f"schema id {schema_id} was not looked up", "schema_id"
            )
        if len(headers) == 1:
            return headers[0] + value[REGISTRY_HEADER_BYTES:]
        # A union's body starts with its branch's index: a zig-zag varint, one byte here.
        branch = value[REGISTRY_HEADER_BYTES] if len(value) > REGISTRY_HEADER_BYTES else 0x80
        if branch & 0x80 or branch >> 1 >= len(headers) or branch & 1:
            raise InvalidEvent(
                "bad_avro",
                f"schema id {schema_id} is a union of {len(headers)} records and the value "
                "does not start with one of their indexes",
                "schema_id",
            )
        return headers[branch >> 1] + value[REGISTRY_HEADER_BYTES + 1 :]


def known_headers(schema_id: int, text: str) -> tuple[bytes, ...]:
    """The single-object header of the committed revision whose schema ``text`` is; of
    each branch's, in order, when ``text`` is a union of records."""
    try:
        schema = json.loads(text)
        branches = _expanded_branches(schema) if isinstance(schema, list) else [schema]
        fingerprints = [schema_fingerprint(branch) for branch in branches]
    except Exception as error:
        raise InvalidEvent(
            "unknown_schema", f"schema id {schema_id} is not an Avro schema: {error}", "schema_id"
        ) from None
    for branch, fingerprint in zip(branches, fingerprints, strict=True):
        if fingerprint not in KNOWN:
            name = branch.get("name", "a schema") if isinstance(branch, Mapping) else "a schema"
            raise InvalidEvent(
                "unknown_schema",
                f"schema id {schema_id} is {name} with no committed wavematch revision "
                f"(fingerprint {fingerprint.hex()}); register the .avsc of schemas/avro",
                "schema_id",
            )
    return tuple(MAGIC + fingerprint for fingerprint in fingerprints)


def _expanded_branches(union: list[Any]) -> list[Any]:
    """Each branch of ``union`` standing alone: a named type defined in an earlier branch
    is written out where a later one names it (the inverse of :func:`subject_schema`)."""
    defined: dict[str, Any] = {}
    return [_expanded(branch, "", defined) for branch in union]


def _expanded(schema: Any, namespace: str, defined: dict[str, Any]) -> Any:
    if isinstance(schema, str):
        return defined.get(f"{namespace}.{schema}", defined.get(schema, schema))
    if isinstance(schema, list):
        return [_expanded(branch, namespace, defined) for branch in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind in ("array", "map"):
        part = "items" if kind == "array" else "values"
        return {**schema, part: _expanded(schema[part], namespace, defined)}
    if kind not in ("record", "enum", "fixed"):
        return schema
    space = schema.get("namespace", namespace)
    full = schema["name"] if "." in schema["name"] else f"{space}.{schema['name']}"
    if kind == "record":
        fields = [{**f, "type": _expanded(f["type"], space, defined)} for f in schema["fields"]]
        schema = {**schema, "fields": fields}
    defined[full] = schema
    return schema


def schema_id_of(value: bytes) -> int:
    """The schema id in the registry header of ``value``."""
    return int.from_bytes(value[1:REGISTRY_HEADER_BYTES], "big")


def _lookup_failed(schema_id: int, error: Exception) -> InvalidEvent:
    status = getattr(error, "http_status_code", None)
    if status == 404:
        return InvalidEvent(
            "unknown_schema_id", f"the registry has no schema id {schema_id}", "schema_id"
        )
    return InvalidEvent(
        "registry_unreachable",
        f"schema id {schema_id}: the registry did not answer: {_said(error)}",
        "schema_id",
    )


def _said(error: Exception) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:300]
