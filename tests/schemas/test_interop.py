"""A second Avro implementation (the official ``avro`` package) reads and writes our bytes.

Also an independent CRC-64-AVRO, written from the specification and checked against the
Avro project's published fingerprint vectors, agrees with the fingerprints we write.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import avro.io
import avro.schema
import pytest
from fastavro.schema import to_parsing_canonical_form

from schemas.codec import CURRENT, KNOWN, MAGIC, decode, encode, load_schema, without_unsent
from schemas.models import EVENTS

GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden"
GOLDEN_FILES = sorted(GOLDEN.rglob("*.avro"))


def crc64_avro(data: bytes) -> int:
    """CRC-64-AVRO as the Avro specification defines it (Rabin fingerprint, EMPTY seed)."""
    empty = 0xC15D213AA4D7A795
    table = []
    for i in range(256):
        fp = i
        for _ in range(8):
            fp = (fp >> 1) ^ (empty & -(fp & 1))
        table.append(fp)
    fp = empty
    for byte in data:
        fp = (fp >> 8) ^ table[(fp ^ byte) & 0xFF]
    return fp


# (parsing canonical form, fingerprint as Java's signed long) from the Avro project's
# share/test/data/schema-tests.txt, which the Java implementation cross-checks.
VECTORS = [
    ('"null"', 7195948357588979594),
    ('"int"', 8247732601305521295),
    ('"string"', -8142146995180207161),
    ('{"name":"foo","type":"record","fields":[]}', -4824392279771201922),
    ('{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}', -4448647247586288245),
    ('{"type":"map","values":"string"}', -8732877298790414990),
]


@pytest.mark.parametrize(("canonical", "expected"), VECTORS)
def test_crc64_matches_the_avro_projects_vectors(canonical: str, expected: int) -> None:
    assert crc64_avro(canonical.encode()) == expected % 2**64


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_header_is_marker_and_little_endian_crc64_of_the_canonical_form(name: str) -> None:
    canonical = to_parsing_canonical_form(load_schema(name))
    assert "logicalType" not in canonical and '"doc"' not in canonical
    expected = crc64_avro(canonical.encode()).to_bytes(8, "little")
    assert CURRENT[EVENTS[name]].header == MAGIC + expected


def _avro_schema(name: str) -> avro.schema.Schema:
    return avro.schema.parse(json.dumps(load_schema(name)))


def _without_logical_types(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_logical_types(branch) for branch in schema]
    if isinstance(schema, dict):
        if "logicalType" in schema:
            return schema["type"]
        return {key: _without_logical_types(value) for key, value in schema.items()}
    return schema


def _plain(value: Any) -> Any:
    """avro turns timestamp-millis into datetimes; compare as epoch milliseconds."""
    if isinstance(value, datetime):
        return round(value.timestamp() * 1000)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_official_avro_decodes_our_single_object_payloads(path: Path) -> None:
    data = path.read_bytes()
    assert data[:2] == MAGIC
    # The revision the bytes name: the current one, or the one before fields the record
    # leaves null (schemas.codec.WRITTEN_WITHOUT).
    source = KNOWN[data[2:10]].source
    schema = avro.schema.parse(json.dumps(source))
    # avro 1.12 keeps {"type": "long"} in the canonical form of a primitive that carries a
    # property such as logicalType, against the specification's [PRIMITIVES] rule (Java and
    # fastavro write "long"); without the logical types it agrees with our fingerprint.
    plain = avro.schema.parse(json.dumps(_without_logical_types(source)))
    assert plain.fingerprint("CRC-64-AVRO") == data[2:10]
    decoded = avro.io.DatumReader(schema).read(avro.io.BinaryDecoder(io.BytesIO(data[10:])))
    ours = decode(data).model_dump()
    if KNOWN[data[2:10]].revision != "current":  # the fields it leaves out
        without_unsent(ours, path.parent.name, KNOWN[data[2:10]].revision)
    ours = _plain(ours)
    assert _plain(decoded) == {key: ours[key] for key in decoded}
    assert all(ours[key] is None for key in ours.keys() - decoded.keys())  # newer, unsent


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_we_decode_what_official_avro_encodes(path: Path) -> None:
    name = path.parent.name
    event = decode(path.read_bytes())
    body = event.model_dump()
    revision = KNOWN[path.read_bytes()[2:10]].revision
    if revision != "current":  # the fields it leaves out
        without_unsent(body, name, revision)
    for field in load_schema(name)["fields"]:  # avro wants datetimes for timestamp-millis
        if field["name"].endswith("at_ms") and body[field["name"]] is not None:
            body[field["name"]] = datetime.fromtimestamp(body[field["name"]] / 1000, UTC)
    ours = encode(event)
    known = KNOWN[ours[2:10]]  # the revision our encoder chose (WRITTEN_WITHOUT)
    assert known.model is EVENTS[name]
    written = {field["name"] for field in known.source["fields"]}
    body = {key: value for key, value in body.items() if key in written}
    buffer = io.BytesIO()
    writer = avro.schema.parse(json.dumps(known.source))
    avro.io.DatumWriter(writer).write(_avro_ready(body), avro.io.BinaryEncoder(buffer))
    data = known.header + buffer.getvalue()
    assert decode(data) == event
    assert data == ours


def _avro_ready(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _avro_ready(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [_avro_ready(item) for item in value]
    if isinstance(value, str):
        return str(value)  # StrEnum members -> plain symbols
    return value
