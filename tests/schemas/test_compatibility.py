"""Schema evolution: each schema stays compatible both ways with every committed revision.

``schemas/avro/history/v1/<Event>/rN.avsc`` holds every revision ever released, oldest
first; the newest must equal the current ``.avsc`` (so a change needs a new revision
file), and the current schema must be backward compatible (it reads every revision's
bytes) and forward compatible (every revision reads its bytes). The official ``avro``
package's checker decides, and fastavro's schema resolution proves it on real bytes.
"""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import avro.schema
import pytest
from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType
from fastavro import parse_schema, schemaless_reader, schemaless_writer

from schemas.codec import history, load_schema, schema_fingerprint
from schemas.models import EVENTS
from tests.schemas.events import sample

NAMES = sorted(EVENTS)


def compatible(reader: dict[str, Any], writer: dict[str, Any]) -> bool:
    """Can data written with ``writer`` be read with ``reader``? (avro's checker)"""
    result = ReaderWriterCompatibilityChecker().get_compatibility(
        reader=avro.schema.parse(json.dumps(reader)), writer=avro.schema.parse(json.dumps(writer))
    )
    return result.compatibility is SchemaCompatibilityType.compatible


def both_ways(old: dict[str, Any], new: dict[str, Any]) -> tuple[bool, bool]:
    """Return (backward, forward): new reads old data, old reads new data."""
    return compatible(reader=new, writer=old), compatible(reader=old, writer=new)


def resolves(
    reader: dict[str, Any], writer: dict[str, Any], body: dict[str, Any]
) -> dict[str, Any]:
    buffer = io.BytesIO()
    schemaless_writer(buffer, parse_schema(writer), body)
    buffer.seek(0)
    record: dict[str, Any] = schemaless_reader(buffer, parse_schema(writer), parse_schema(reader))
    return record


@pytest.mark.parametrize("name", NAMES)
def test_newest_revision_is_the_current_schema(name: str) -> None:
    revisions = history(name)
    assert list(revisions) == [f"r{n}" for n in range(1, len(revisions) + 1)]
    newest = revisions[f"r{len(revisions)}"]
    assert schema_fingerprint(newest) == schema_fingerprint(load_schema(name)), (
        f"{name}.avsc changed: add it as history/v1/{name}/r{len(revisions) + 1}.avsc"
    )


@pytest.mark.parametrize("name", NAMES)
def test_current_schema_is_compatible_both_ways_with_every_revision(name: str) -> None:
    current = load_schema(name)
    body = sample(EVENTS[name]).model_dump(mode="json")
    if name == "DeadLetter":
        body["original"], body["original_key"] = b"x", None
    for revision, old in history(name).items():
        assert both_ways(old, current) == (True, True), f"{name} vs {revision}"
        resolves(reader=current, writer=old, body=body)
        resolves(reader=old, writer=current, body=body)


# --- the checker rejects what the rules forbid -----------------------------------------


def _ticket_left() -> dict[str, Any]:
    return copy.deepcopy(load_schema("TicketLeft"))


def test_a_new_field_with_a_default_is_compatible_both_ways() -> None:
    new = _ticket_left()
    new["fields"].append({"name": "note", "type": ["null", "string"], "default": None, "doc": "."})
    assert both_ways(_ticket_left(), new) == (True, True)
    assert resolves(reader=new, writer=_ticket_left(), body=_left_body())["note"] is None


def test_a_new_field_without_a_default_is_rejected() -> None:
    new = _ticket_left()
    new["fields"].append({"name": "note", "type": "string", "doc": "."})
    assert both_ways(_ticket_left(), new) == (False, True)
    with pytest.raises(Exception, match="note"):
        resolves(reader=new, writer=_ticket_left(), body=_left_body())


def test_removing_a_field_without_a_default_is_rejected() -> None:
    new = _ticket_left()
    new["fields"] = [field for field in new["fields"] if field["name"] != "left_at_ms"]
    assert both_ways(_ticket_left(), new) == (True, False)


def test_a_new_enum_symbol_breaks_old_readers() -> None:
    new = _ticket_left()
    new["fields"][3]["type"]["symbols"].append("KICKED")
    assert both_ways(_ticket_left(), new) == (True, False)


def test_changing_a_field_type_is_rejected() -> None:
    new = _ticket_left()
    new["fields"][4]["type"] = "string"
    assert both_ways(_ticket_left(), new) == (False, False)


def _left_body() -> dict[str, Any]:
    return sample(EVENTS["TicketLeft"]).model_dump(mode="json")
