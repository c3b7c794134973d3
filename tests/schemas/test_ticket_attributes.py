"""Player attributes (TicketJoined revision r2): old bytes still decode, new ones carry them
to the matcher, and the fast path reads them as the full path does."""

from __future__ import annotations

from pathlib import Path

from schemas.codec import decode, decode_json, encode
from streams.wire.inbound import fast_queue_event, ticket_from_wire

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden" / "TicketJoined"


def test_a_join_written_before_attributes_decodes_with_none() -> None:
    old = (DATA / "TicketJoined-r1-solo.avro").read_bytes()
    event = decode(old)
    assert event.players[0].attributes == {}
    assert encode(event) == (GOLDEN / "solo.avro").read_bytes()  # re-encoded as r2
    fast = fast_queue_event(old)
    assert fast is not None and fast.ticket.players[0].attributes == ()


def test_attributes_reach_the_matcher_sorted_by_both_paths() -> None:
    for path in (GOLDEN / "attributes.avro", GOLDEN / "attributes.json"):
        data = path.read_bytes()
        wire = decode(data) if path.suffix == ".avro" else decode_json(data)
        full = ticket_from_wire(wire)
        fast = fast_queue_event(data)
        assert full.players[0].attributes == (("language", "de"), ("platform", "pc"))
        assert fast is not None and fast.ticket == full
