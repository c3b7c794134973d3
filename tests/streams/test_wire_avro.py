"""The Avro binary pieces of streams/wire/avro.py give fastavro's bytes, byte for byte."""

from __future__ import annotations

import io
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_writer
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.codec import CURRENT
from schemas.models import EVENTS
from streams.wire.avro import WRITTEN_FOR, Binary, fresh_string, header, symbols, zigzag_varint

# One memo for the module, as one writer's: remembered values must equal fresh ones.
_BINARY = Binary()
string, optional_string, optional_long = (
    _BINARY.string,
    _BINARY.optional_string,
    _BINARY.optional_long,
)


def fastavro(schema: Any, value: Any) -> bytes:
    buffer = io.BytesIO()
    schemaless_writer(buffer, parse_schema(schema), value)
    return buffer.getvalue()


LONG, STRING = "long", "string"
longs = st.integers(-(2**63), 2**63 - 1)
# 63/64 and 8191/8192: where a zig-zag varint grows by a byte; 2**62: the sign fold.
edges = st.sampled_from(
    [
        *(0, 1, -1, 63, 64, -64, -65, 8191, 8192, 2**14 - 1, 2**14, 2**31 - 1, -(2**31)),
        *(2**62 - 1, 2**62, 2**63 - 1, -(2**63), 1_767_225_600_000),
    ]
)


@settings(max_examples=500, deadline=None)
@given(value=longs | st.integers(-20_000, 20_000) | st.integers(2**61, 2**63 - 1) | edges)
def test_a_long_is_written_as_fastavro_writes_it(value: int) -> None:
    assert zigzag_varint(value) == fastavro(LONG, value)
    assert _BINARY.long(value) == _BINARY.long(value) == fastavro(LONG, value)
    assert optional_long(value) == fastavro(["null", LONG], value)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=80) | st.text(min_size=60, max_size=300))
def test_a_string_is_written_as_fastavro_writes_it(text: str) -> None:
    expected = fastavro(STRING, text)
    assert fresh_string(text) == expected
    assert string(text) == expected
    assert string(text) == expected  # remembered
    assert optional_string(text) == fastavro(["null", STRING], text)


def test_nulls_and_lengths_at_their_byte_boundaries() -> None:
    assert optional_long(None) == optional_string(None) == fastavro(["null", LONG], None)
    for size in (0, 63, 64, 65, 8191, 8192):
        assert string("x" * size)[: -size or None] == zigzag_varint(size)


def test_symbols_are_their_index_in_the_schema() -> None:
    reasons = symbols("TicketDequeued", "reason")
    (enum,) = (
        f["type"]
        for f in CURRENT[EVENTS["TicketDequeued"]].source["fields"]
        if f["name"] == "reason"
    )
    for symbol, data in reasons.items():
        assert data == fastavro(enum, symbol)


def test_the_header_is_the_codecs_for_the_schema_written_for() -> None:
    for name in WRITTEN_FOR:
        assert header(name) == CURRENT[EVENTS[name]].header


def test_a_changed_schema_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(WRITTEN_FOR, "TicketStatus", "0000000000000000")
    with pytest.raises(RuntimeError, match=r"the \.avsc changed"):
        header("TicketStatus")
