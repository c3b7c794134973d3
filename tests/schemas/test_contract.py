"""Each pydantic model and its .avsc agree field for field.

The Avro schema is derived from the model's annotations (names, types, optionality,
defaults, enum symbols, nesting) and compared with the committed .avsc after both are
reduced to what decides the bytes and the resolution: the parsing canonical form plus
every field's default.
"""

from __future__ import annotations

import types
import typing
from enum import Enum
from typing import Any

import annotated_types
import pytest
from fastavro.schema import to_parsing_canonical_form
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from schemas import models as m
from schemas.codec import load_schema

NAMESPACE = "io.wavematch.v1"
AVRO_RANGE = {"int": (-(2**31), 2**31 - 1), "long": (-(2**63), 2**63 - 1)}


def _strip(annotation: Any) -> tuple[Any, list[Any]]:
    metadata: list[Any] = []
    while typing.get_origin(annotation) is typing.Annotated:
        annotation, *extra = typing.get_args(annotation)
        for item in extra:
            metadata += getattr(item, "metadata", [item])
    return annotation, metadata


def avro_type(annotation: Any, metadata: list[Any], seen: set[str]) -> Any:
    """Return the Avro type that ``annotation`` (with its pydantic metadata) stands for."""
    annotation, more = _strip(annotation)
    metadata = metadata + more
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        rest = [arg for arg in args if arg is not type(None)]
        assert len(rest) == 1 and len(args) == 2, f"only X | None unions: {annotation}"
        return ["null", avro_type(rest[0], [], seen)]
    if origin is tuple:
        assert args[1] is Ellipsis, annotation
        return {"type": "array", "items": avro_type(args[0], [], seen)}
    if origin is dict:
        assert _strip(args[0])[0] is str, f"map keys are strings: {annotation}"
        return {"type": "map", "values": avro_type(args[1], [], seen)}
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _named(
            annotation, seen, lambda: {"type": "enum", "symbols": [e.value for e in annotation]}
        )
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _named(annotation, seen, lambda: record_of(annotation, seen))
    if annotation is int:
        marks = [item.name for item in metadata if isinstance(item, m.AvroType)]
        name = marks[0] if marks else "int"
        low, high = _bounds(metadata)
        span = AVRO_RANGE[name]
        assert span[0] <= low and high <= span[1], (
            f"{annotation} bounds {low}..{high} overflow {name}"
        )
        return name
    return {str: "string", bytes: "bytes", float: "double", bool: "boolean"}[annotation]


def _bounds(metadata: list[Any]) -> tuple[float, float]:
    low, high = float("-inf"), float("inf")
    for item in metadata:
        if isinstance(item, annotated_types.Ge):
            low = max(low, item.ge)
        if isinstance(item, annotated_types.Gt):
            low = max(low, item.gt + 1)
        if isinstance(item, annotated_types.Le):
            high = min(high, item.le)
        if isinstance(item, annotated_types.Lt):
            high = min(high, item.lt - 1)
    return low, high


def _named(cls: type, seen: set[str], build: Any) -> Any:
    fullname = f"{NAMESPACE}.{cls.__name__}"
    if fullname in seen:
        return fullname
    seen.add(fullname)
    return {"name": fullname, **build()}


def record_of(model: type[BaseModel], seen: set[str] | None = None) -> dict[str, Any]:
    seen = {f"{NAMESPACE}.{model.__name__}"} if seen is None else seen
    fields = []
    for name, info in model.model_fields.items():
        field: dict[str, Any] = {
            "name": name,
            "type": avro_type(info.annotation, info.metadata, seen),
        }
        if info.default is not PydanticUndefined:
            field["default"] = _avro_default(info.default)
        fields.append(field)
    return {"type": "record", "name": f"{NAMESPACE}.{model.__name__}", "fields": fields}


def _avro_default(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def defaults(schema: Any, path: str = "") -> dict[str, Any]:
    """Return every field default of ``schema`` by dotted path ("players.roles": [])."""
    found: dict[str, Any] = {}
    if isinstance(schema, list):
        for branch in schema:
            found |= defaults(branch, path)
    elif isinstance(schema, dict):
        for field in schema.get("fields", ()):
            at = f"{path}.{field['name']}" if path else field["name"]
            if "default" in field:
                found[at] = field["default"]
            found |= defaults(field["type"], at)
        for key in ("items", "values"):
            found |= defaults(schema.get(key), path)
    return found


@pytest.mark.parametrize("name", sorted(m.EVENTS))
def test_model_and_avsc_agree_field_for_field(name: str) -> None:
    derived = record_of(m.EVENTS[name])
    committed = load_schema(name)
    assert to_parsing_canonical_form(derived) == to_parsing_canonical_form(committed)
    assert defaults(derived) == defaults(committed)


@pytest.mark.parametrize("name", sorted(m.EVENTS))
def test_model_is_frozen_and_forbids_unknown_fields(name: str) -> None:
    config = m.EVENTS[name].model_config
    assert config.get("frozen") is True and config.get("extra") == "forbid"
    assert m.EVENTS[name].__name__ == name


def test_nested_models_are_frozen_too() -> None:
    for model in (m.Player, m.Team, m.Seat):
        assert (
            model.model_config.get("frozen") is True and model.model_config.get("extra") == "forbid"
        )


def test_contract_check_sees_a_drifted_model() -> None:
    class TicketLeft(m.Record):  # the real one, with reason as a free string and a new field
        ticket_id: m.Id
        queue: m.KeyPart
        region: m.KeyPart
        reason: str
        left_at_ms: m.TimestampMs
        note: str | None = None

    derived = record_of(TicketLeft)
    assert to_parsing_canonical_form(derived) != to_parsing_canonical_form(
        load_schema("TicketLeft")
    )


def test_contract_check_sees_a_changed_default() -> None:
    derived = record_of(m.TicketJoined)
    derived["fields"][4]["type"]["items"]["fields"][5]["default"] = True  # can_host
    assert defaults(derived) != defaults(load_schema("TicketJoined"))


def test_an_int_field_without_bounds_is_refused() -> None:
    class Loose(m.Record):
        count: int

    with pytest.raises(AssertionError, match="overflow int"):
        record_of(Loose)
