"""The committed AsyncAPI document is current, parses as YAML and covers every schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schemas.asyncapi import build, render
from schemas.topics import TOPICS

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
DOCUMENT = SCHEMAS / "asyncapi.yaml"


def test_committed_document_is_what_the_topic_map_renders() -> None:
    assert DOCUMENT.read_text() == render(build()), (
        "regenerate: .venv/bin/python -m schemas.asyncapi > schemas/asyncapi.yaml"
    )


def test_document_parses_as_yaml_into_the_same_data() -> None:
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(DOCUMENT.read_text()) == build()


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [
            ref for key, item in value.items() for ref in ([item] if key == "$ref" else _refs(item))
        ]
    if isinstance(value, list):
        return [ref for item in value for ref in _refs(item)]
    return []


def test_document_references_every_avsc_and_only_existing_ones() -> None:
    files = {ref for ref in _refs(build()) if ref.endswith(".avsc")}
    assert files == {
        f"./{p.relative_to(SCHEMAS).as_posix()}" for p in (SCHEMAS / "avro" / "v1").glob("*.avsc")
    }


def test_every_internal_reference_resolves() -> None:
    document = build()
    for ref in _refs(document):
        if ref.startswith("#/"):
            target: Any = document
            for part in ref[2:].split("/"):
                target = target[part]
            assert isinstance(target, dict), ref


def test_every_topic_is_a_channel_with_an_operation() -> None:
    document = build()
    addresses = {channel["address"] for channel in document["channels"].values()}
    assert addresses == {topic.name for topic in TOPICS}
    assert {op["action"] for op in document["operations"].values()} == {"send", "receive"}
    assert len(document["operations"]) == len(TOPICS)


def test_yaml_writer_quotes_what_yaml_would_misread() -> None:
    yaml = pytest.importorskip("yaml")
    tricky = {
        "on": "yes",
        "a": ["null", "1.0", "- x", "#c", 'q"uote', "é: x"],
        "n": -1,
        "b": True,
        "e": [],
        "f": {},
    }
    assert yaml.safe_load(render(tricky)) == tricky
