"""Numeric player attributes (TicketJoined revision r3): old bytes decode with none, new
ones reach the matcher by both decoders alike, and a bad value is refused naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.codec import decode, decode_json
from schemas.errors import InvalidEvent
from streams.wire.inbound import fast_queue_event, ticket_from_wire

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden" / "TicketJoined"


def test_a_join_written_before_numbers_decodes_with_none() -> None:
    old = (DATA / "TicketJoined-r1-solo.avro").read_bytes()
    assert decode(old).players[0].numbers == {}
    fast = fast_queue_event(old)
    assert fast is not None and fast.ticket.players[0].numbers == ()


def test_numbers_reach_the_matcher_sorted_by_both_paths() -> None:
    for path in (GOLDEN / "numbers.avro", GOLDEN / "numbers.json"):
        data = path.read_bytes()
        wire = decode(data) if path.suffix == ".avro" else decode_json(data)
        full = ticket_from_wire(wire)
        fast = fast_queue_event(data)
        assert full.players[0].numbers == (("account_age_days", 380.5), ("level", 42.0))
        assert full.players[0].number("level") == 42.0
        assert fast is not None and fast.ticket == full


@pytest.mark.parametrize("value", ["high", None, True])
def test_a_number_that_is_not_one_is_refused_naming_the_field(value: object) -> None:
    body = json.loads((GOLDEN / "numbers.json").read_bytes())
    body["players"][0]["numbers"]["level"] = value
    data = json.dumps(body).encode()
    assert fast_queue_event(data) is None  # the full path decides
    with pytest.raises(InvalidEvent, match=r"players\[0\]\.numbers\.level"):
        decode_json(data)
