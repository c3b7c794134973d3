"""The schema registry at the edge, without a registry process: the framing of each output
topic (read back by fastavro with the registered schema alone), the resolution of input
schema ids and each way it fails (a dead letter naming ``schema_id``), and the settings'
one-line refusals. tests/registry/test_registry.py runs the same against Apicurio."""

from __future__ import annotations

import asyncio
import io
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_reader, schemaless_writer

from schemas.codec import CURRENT, decode, encoder_for
from schemas.errors import InvalidEvent
from schemas.models import MatchCreated, TicketJoined, TicketStatus
from schemas.topics import MATCHES, STATUS
from streams.settings import SettingsError, load_settings
from streams.wire.avro import registry_header
from streams.wire.registry import (
    OUTPUT_TOPICS,
    RegistryError,
    SchemaRegistry,
    known_headers,
    subject,
    subject_schema,
)
from streams.worker.folding import Folder

GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden"
JOIN = {
    "ticket_id": "t-1",
    "queue": "1v1",
    "region": "eu",
    "party_id": None,
    "players": [{"player_id": "p-1", "ratings": {"bw": 1500}}],
    "joined_at_ms": 1767225600000,
}


class FakeClient:
    """The two calls of confluent-kafka's AsyncSchemaRegistryClient the worker makes."""

    def __init__(self, schemas: dict[int, str], failing: BaseException | None = None) -> None:
        self.schemas = schemas
        self.failing = failing
        self.registered: dict[str, str] = {}
        self.lookups = 0

    async def register_schema(self, name: str, schema: Any) -> int:
        self.registered[name] = schema.schema_str
        return 40 + len(self.registered)

    async def get_schema(self, schema_id: int) -> Any:
        self.lookups += 1
        if self.failing is not None:
            raise self.failing
        if schema_id not in self.schemas:
            raise _HttpError(404, f"schema {schema_id} not found")
        return SimpleNamespace(schema_str=self.schemas[schema_id])


class _HttpError(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.http_status_code = status


def joined_source() -> str:
    return json.dumps(CURRENT[TicketJoined].source)


def current_join() -> bytes:
    """JOIN single-object encoded with the current schema (the one registered), not the
    older revision the encoder picks for a join without data (ADR 0171)."""
    known = CURRENT[TicketJoined]
    buffer = io.BytesIO(known.header)
    buffer.seek(0, io.SEEK_END)
    schemaless_writer(buffer, known.writer, TicketJoined.model_validate(JOIN).model_dump())
    return buffer.getvalue()


def framed_join(schema_id: int) -> bytes:
    return registry_header(schema_id) + current_join()[10:]


def test_each_output_topic_is_framed_so_its_registered_schema_alone_reads_it() -> None:
    client = FakeClient({})
    framing = asyncio.run(SchemaRegistry(client).register_outputs())
    assert set(client.registered) == {subject(topic) for topic in OUTPUT_TOPICS}
    assert subject(MATCHES) == "wavematch.matches.v1-value"
    single = (GOLDEN / "MatchCreated" / "duel.avro").read_bytes()  # the worker's bytes
    assert CURRENT[MatchCreated].header != single[:10]  # the revision before seats' data
    framed = framing.frame(MATCHES.name, single)
    assert framed[:5] == registry_header(41)  # the matches topic's id, registered first
    registered = json.loads(client.registered[subject(MATCHES)])
    assert registered == subject_schema(MATCHES)  # a union of its three records
    body = schemaless_reader(io.BytesIO(framed[5:]), parse_schema(registered), None)
    # fastavro gives the timestamp's logical type (a datetime); the model holds its ms.
    body["created_at_ms"] = round(body["created_at_ms"].timestamp() * 1000)
    assert MatchCreated.model_validate(body) == decode(single)
    # Values of topics that are not framed (the queue topic's claims) pass unchanged.
    assert framing.frame("wavematch.queue.v1", single) == single


def test_a_registry_that_refuses_or_is_away_at_start_is_one_line() -> None:
    class Refusing(FakeClient):
        async def register_schema(self, name: str, schema: Any) -> int:
            raise _HttpError(409, "Incompatible artifact:\n  new_required at /fields/17")

    with pytest.raises(RegistryError) as refused:
        asyncio.run(SchemaRegistry(Refusing({})).register_outputs())
    assert str(refused.value) == (
        "schema registry: cannot register wavematch.matches.v1-value: "
        "Incompatible artifact: new_required at /fields/17"
    )


def test_a_union_defines_each_shared_record_once() -> None:
    union = subject_schema(MATCHES)
    text = json.dumps(union)
    assert text.count('"name": "Seat"') == 1 and text.count('"name": "Team"') == 1
    assert [branch["name"] for branch in union] == [m.__name__ for m in MATCHES.values]


def fold_value(folder: Folder, value: bytes) -> Any:
    return folder.fold(folder.new_state(0), b"1v1/eu", value, 0, None)


@pytest.fixture
def folder() -> Folder:
    return Folder.from_settings(load_settings(partitions=1))


def test_without_a_registry_a_framed_value_is_refused_naming_the_setting(folder: Folder) -> None:
    rejection = fold_value(folder, framed_join(7)).rejection
    assert (rejection.code, rejection.field) == ("no_registry", "schema_id")
    assert "schema id 7" in rejection.reason and "WAVEMATCH_SCHEMA_REGISTRY_URL" in rejection.reason


def test_a_resolved_id_folds_as_the_single_object_value_would(folder: Folder) -> None:
    client = FakeClient({5: joined_source()})
    registry = SchemaRegistry(client)
    folder = replace(folder, unframe=registry.unframe)
    values = [framed_join(5), framed_join(5)]
    asyncio.run(registry.resolve(values))
    asyncio.run(registry.resolve(values))
    assert client.lookups == 1  # one look-up per id for the process's life
    folded = fold_value(folder, values[0])
    assert folded.rejection is None
    assert registry.unframe(values[0]) == current_join()
    assert decode(current_join()) == decode(encoder_for("TicketJoined", validate=True)(JOIN))


@pytest.mark.parametrize(
    ("schemas", "failing", "code", "said"),
    [
        ({}, None, "unknown_schema_id", "no schema id 5"),
        ({}, OSError("connection refused"), "registry_unreachable", "connection refused"),
        ({5: '{"type": "record", "name": "Other", "fields": []}'}, None, "unknown_schema", "Other"),
        ({5: "not json"}, None, "unknown_schema", "not an Avro schema"),
    ],
)
def test_an_unresolved_id_is_a_dead_letter_naming_schema_id(
    folder: Folder, schemas: dict[int, str], failing: BaseException | None, code: str, said: str
) -> None:
    registry = SchemaRegistry(FakeClient(schemas, failing))
    folder = replace(folder, unframe=registry.unframe)
    asyncio.run(registry.resolve([framed_join(5)]))
    rejection = fold_value(folder, framed_join(5)).rejection
    assert (rejection.code, rejection.field) == (code, "schema_id")
    assert said in rejection.reason and "\n" not in rejection.reason


def test_a_registry_that_did_not_answer_is_asked_again_in_the_next_batch() -> None:
    client = FakeClient({5: joined_source()}, OSError("timed out"))
    registry = SchemaRegistry(client)
    asyncio.run(registry.resolve([framed_join(5)]))
    client.failing = None
    asyncio.run(registry.resolve([framed_join(5)]))
    assert registry.unframe(framed_join(5))[:2] == b"\xc3\x01"


def test_the_time_held_back_counts_the_look_ups_that_timed_out() -> None:
    """A registry that does not answer costs each look-up its timeout (5 s, asked twice):
    the seconds the worker reports (and reminds of once a minute) are those since the
    records were held, not only the pauses between the rounds (docs/operations.md)."""
    now = [0.0]

    class Hung(FakeClient):  # each look-up times out after 10 s, three rounds long
        async def get_schema(self, schema_id: int) -> Any:
            now[0] += 10.0
            self.failing = OSError("timed out") if self.lookups < 3 else None
            return await super().get_schema(schema_id)

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    told: list[tuple[bool, float]] = []
    registry = SchemaRegistry(Hung({5: joined_source()}))
    asyncio.run(
        registry.resolve_through_outage(
            [framed_join(5)],
            lambda problem, seconds: told.append((problem is None, seconds)),
            sleep=sleep,
            clock=lambda: now[0],
        )
    )
    # Look-ups at 0-10, 10.5-20.5, 21.5-31.5 fail; the one at 33.5-43.5 answers.
    assert told == [(False, 10.0), (False, 20.5), (False, 31.5), (True, 43.5)]


def test_a_truncated_registry_header_is_refused() -> None:
    registry = SchemaRegistry(FakeClient({}))
    with pytest.raises(Exception, match="5-byte registry header"):
        registry.unframe(b"\x00\x00\x01")


def test_an_older_revision_of_a_schema_resolves_to_its_own_header() -> None:
    assert known_headers(1, joined_source()) == (CURRENT[TicketJoined].header,)


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"schema_registry_url": "registry:8081"}, "schema_registry_url: 'registry:8081' is not"),
        ({"schema_registry_url": "ftp://r"}, "is not an http:// or https:// URL"),
        (
            {"schema_registry_url": "http://r:8081", "schema_registry_username": "u"},
            "schema_registry_username: set it and schema_registry_password, or neither",
        ),
        ({"schema_registry_username": "u"}, "schema_registry_username: set, but schema_registry_"),
        (
            {"schema_registry_url": "http://r:8081", "schema_registry_cafile": "CA"},
            "schema_registry_cafile: set, but http://r:8081 is not https://",
        ),
        (
            {"schema_registry_url": "https://r:8081", "schema_registry_cafile": "/nowhere/ca.pem"},
            "schema_registry_cafile: /nowhere/ca.pem not found",
        ),
        (
            {"schema_registry_url": "https://r:8081", "schema_registry_keyfile": "KEY"},
            "schema_registry_keyfile: a client certificate needs both",
        ),
    ],
)
def test_registry_settings_are_refused_in_one_line(
    settings: dict[str, str], said: str, tmp_path: Path
) -> None:
    for name, value in list(settings.items()):
        if value in ("CA", "KEY"):
            (tmp_path / value).write_text("x")
            settings[name] = str(tmp_path / value)
    with pytest.raises(SettingsError) as refused:
        load_settings(**settings)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_the_registry_password_is_secret_and_no_registry_setting_is_fingerprinted() -> None:
    plain = load_settings()
    with_registry = load_settings(
        schema_registry_url="https://registry.example:8081",
        schema_registry_username="wavematch",
        schema_registry_password="s3cret-registry",
    )
    assert "s3cret-registry" not in repr(with_registry)
    assert with_registry.config_fingerprint() == plain.config_fingerprint()


def test_a_failed_id_keeps_its_reason_through_a_look_up_of_other_values() -> None:
    """A takeover's catch-up resolves its own records between a batch's resolution and
    its folds: the batch's unresolved id must still say why."""
    registry = SchemaRegistry(FakeClient({}, OSError("connection refused")))
    asyncio.run(registry.resolve([framed_join(5)]))
    asyncio.run(registry.resolve([encoder_for("TicketJoined", validate=True)(JOIN)]))
    with pytest.raises(InvalidEvent) as refused:
        registry.unframe(framed_join(5))
    assert refused.value.code == "registry_unreachable"
    assert "connection refused" in refused.value.reason


@pytest.mark.parametrize("name", ["MatchCreated", "MatchProposed", "BackfillResult"])
def test_a_union_framed_value_reads_back_as_its_own_record(name: str) -> None:
    """The matches topic's own records, read back through the registry (`wavematch tail`,
    or a platform writing with the union): the branch index picks the record."""
    writer = FakeClient({})
    framing = asyncio.run(SchemaRegistry(writer).register_outputs((MATCHES,)))
    single = next((GOLDEN / name).glob("*.avro")).read_bytes()
    framed = framing.frame(MATCHES.name, single)
    reader = SchemaRegistry(FakeClient({41: writer.registered[subject(MATCHES)]}))
    asyncio.run(reader.resolve([framed]))
    # An older revision (no seat carries data, ADR 0173) is framed as the current one.
    assert decode(reader.unframe(framed)) == decode(single)
    assert reader.unframe(framed)[:10] == CURRENT[type(decode(single))].header
    with pytest.raises(InvalidEvent, match="union of 3 records"):
        reader.unframe(framed[:5] + b"\x06" + framed[6:])  # branch 3 of 0-2


@pytest.mark.parametrize(
    "golden", ["TicketStatus/searching.avro", "MatchCreated/duel.avro", "MatchCreated/data.avro"]
)
def test_a_record_written_as_an_older_revision_is_framed_in_the_registered_schema(
    golden: str,
) -> None:
    """A status without connection details (ADR 0171), a match without seat data (ADR
    0173): their single-object bytes name the older revision, but the registry has the
    current schema: the framed body is the current schema's, which it alone reads."""
    client = FakeClient({})
    framing = asyncio.run(SchemaRegistry(client).register_outputs())
    single = (GOLDEN / golden).read_bytes()
    event = decode(single)
    topic = STATUS if isinstance(event, TicketStatus) else MATCHES
    framed = framing.frame(topic.name, single)
    assert framed[:1] == b"\x00"
    registered = parse_schema(json.loads(client.registered[subject(topic)]))
    stream = io.BytesIO(framed[5:])  # the matches topic's union reads its branch index
    body = schemaless_reader(stream, registered, None)
    assert stream.tell() == len(framed) - 5
    for name, value in body.items():  # fastavro gives timestamps as datetimes
        if name.endswith("at_ms") and value is not None:
            body[name] = round(value.timestamp() * 1000)
    assert type(event).model_validate(body) == event


SECRET = "registry-framed-secret"


@pytest.mark.parametrize("cut", [0, 4])
def test_a_registry_framed_report_s_dead_letter_keeps_no_token(folder: Folder, cut: int) -> None:
    """ADR 0171 for the registry's framing: a placement report for no known match is
    dead-lettered with its token masked; cut short inside it, with no bytes at all."""
    from schemas.models import Connection, DeadLetter, PlacementOutcome, PlacementReported
    from streams.wire.outbound import Writer
    from streams.worker.outputs import records_of

    report = PlacementReported(
        match_id="m-unknown",
        queue="1v1",
        region="eu",
        outcome=PlacementOutcome.STARTED,
        reported_at_ms=1767225612000,
        connection=Connection(address="203.0.113.9", port=7777, token=SECRET),
    )
    single = encoder_for("PlacementReported", validate=True)(report.model_dump())
    registry = SchemaRegistry(FakeClient({9: json.dumps(CURRENT[PlacementReported].source)}))
    folder = replace(folder, unframe=registry.unframe)
    framed = registry_header(9) + single[10:]
    framed = framed[: len(framed) - cut]
    asyncio.run(registry.resolve([framed]))
    folded = fold_value(folder, framed)
    assert folded.rejection is not None
    records = records_of(
        Writer(), folded, topic="wavematch.queue.v1", partition=0, key=b"1v1/eu", value=framed
    )
    (letter,) = [decode(value) for _, _, value in records]
    assert isinstance(letter, DeadLetter) and SECRET.encode() not in letter.original
    assert letter.original_size == len(framed)
    if cut:
        assert letter.original == b""
    else:
        assert letter.original[:5] == framed[:5]
        masked = decode(registry.unframe(letter.original))
        assert isinstance(masked, PlacementReported) and masked.connection is not None
        assert masked.connection.token == "****"
        assert masked.model_copy(update={"connection": report.connection}) == report


def test_a_registry_that_accepts_but_never_answers_counts_as_unreachable() -> None:
    """A hung registry must end in ``registry_unreachable`` (the worker's alert and
    retries), not hold every region back in silence: the client has a timeout."""
    import socket
    import time

    from confluent_kafka.schema_registry import AsyncSchemaRegistryClient

    from streams.wire.registry import client_config

    silent = socket.create_server(("127.0.0.1", 0))  # accepts (backlog), never answers
    try:
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        assert client_config(url)["timeout"] == 5
        registry = SchemaRegistry(AsyncSchemaRegistryClient(client_config(url, timeout_s=0.3)))
        started = time.monotonic()
        asyncio.run(registry.resolve([framed_join(5)]))
        problem = registry.unreachable([framed_join(5)])
        assert problem is not None and problem.field == "schema_id"
        assert time.monotonic() - started < 5
    finally:
        silent.close()
