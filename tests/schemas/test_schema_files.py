"""Every .avsc parses in two Avro implementations and documents every field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import avro.schema
import fastavro
import pytest

from schemas.codec import schema_fingerprint
from schemas.models import EVENTS

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas" / "avro" / "v1"
NAMES = sorted(EVENTS)


def _load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.avsc").read_text())
    return loaded


def test_one_schema_file_per_event() -> None:
    assert sorted(path.stem for path in SCHEMAS.glob("*.avsc")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_schema_parses_in_fastavro_and_avro(name: str) -> None:
    text = (SCHEMAS / f"{name}.avsc").read_text()
    parsed = avro.schema.parse(text)
    assert parsed.fullname == f"io.wavematch.v1.{name}"
    assert fastavro.parse_schema(json.loads(text))["name"] == f"io.wavematch.v1.{name}"


def _documented(schema: Any, where: str) -> list[str]:
    """Return what lacks a doc in ``schema``: records, enums and every field, recursively."""
    missing: list[str] = []
    if isinstance(schema, list):
        for branch in schema:
            missing += _documented(branch, where)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "enum") and not _is_sentence(schema.get("doc")):
            missing.append(f"{where} ({schema['name']})")
        for field in schema.get("fields", ()):
            if not _is_sentence(field.get("doc")) or "for example" not in field["doc"]:
                missing.append(f"{where}.{field['name']}")
            missing += _documented(field["type"], f"{where}.{field['name']}")
        for key in ("items", "values"):
            missing += _documented(schema.get(key), where)
    return missing


def _is_sentence(doc: object) -> bool:
    return isinstance(doc, str) and doc[:1].isupper() and doc.endswith(".") and len(doc) > 20


@pytest.mark.parametrize("name", NAMES)
def test_record_and_every_field_has_a_doc_with_an_example(name: str) -> None:
    assert _documented(_load(name), name) == []


def test_doc_check_catches_an_undocumented_nested_field() -> None:
    schema = _load("TicketJoined")
    del schema["fields"][4]["type"]["items"]["fields"][1]["doc"]
    assert _documented(schema, "TicketJoined") == ["TicketJoined.players.ratings"]


@pytest.mark.parametrize("name", NAMES)
def test_every_named_type_lives_in_the_major_version_namespace(name: str) -> None:
    schema = avro.schema.parse((SCHEMAS / f"{name}.avsc").read_text())
    named = _named(schema)
    assert named and all(n.startswith("io.wavematch.v1.") for n in named), named


def _named(schema: Any) -> list[str]:
    names = [schema.fullname] if isinstance(schema, avro.schema.NamedSchema) else []
    for field in getattr(schema, "fields", ()):
        names += _named(field.type)
    for attribute in ("items", "values"):
        if hasattr(schema, attribute):
            names += _named(getattr(schema, attribute))
    for branch in getattr(schema, "schemas", ()):
        names += _named(branch)
    return names


@pytest.mark.parametrize("name", NAMES)
def test_timestamps_are_timestamp_millis_longs(name: str) -> None:
    for field in _load(name)["fields"]:
        if field["name"].endswith("_at_ms"):
            branches = field["type"] if isinstance(field["type"], list) else [field["type"]]
            assert {"type": "long", "logicalType": "timestamp-millis"} in branches, field["name"]


def test_fingerprints_are_distinct() -> None:
    prints = {schema_fingerprint(_load(name)) for name in NAMES}
    assert len(prints) == len(NAMES)


def test_readme_lists_the_current_fingerprints() -> None:
    readme = (SCHEMAS.parents[1] / "README.md").read_text()
    for name in NAMES:
        row = f"| `{name}` | `{schema_fingerprint(_load(name)).hex()}` |"
        assert row in readme, f"schemas/README.md lacks the row {row}"
