"""Round trips between players on TicketJoined (r4): bounds, the revision a join is
written as, and the way through the queue's decoders and the region snapshot."""

from __future__ import annotations

import json
from typing import Any

import pytest

from matcher.queue.records import ticket_from_record, ticket_to_record
from schemas import models as m
from schemas.codec import CURRENT, decode, decode_queue_event, encode, encode_json, history
from schemas.codec import schema_fingerprint as fingerprint
from schemas.errors import InvalidEvent
from streams.wire.inbound import fast_queue_event, read
from streams.wire.outbound import _search_copy
from tests.schemas.events import T0


def join(**player: Any) -> dict[str, Any]:
    body = {"player_id": "p-1", "ratings": {"mmr": 1500}, **player}
    return {
        "ticket_id": "t-1",
        "queue": "3v3",
        "region": "eu",
        "players": [body],
        "joined_at_ms": T0,
    }


def as_json(body: dict[str, Any]) -> bytes:
    return json.dumps({"type": "TicketJoined", **body}).encode()


@pytest.mark.parametrize(
    ("peers", "field"),
    [
        ({"p-2": -1}, "players[0].peer_latency_ms['p-2']"),
        ({"p-2": 60_001}, "players[0].peer_latency_ms['p-2']"),
        ({"p-2": 1.5}, "players[0].peer_latency_ms['p-2']"),
        ({"p-1": 20}, "players[0].peer_latency_ms"),
        ({f"p-{i}": 20 for i in range(2, 103)}, "players[0].peer_latency_ms"),
        ({"": 20}, "players[0].peer_latency_ms"),
    ],
    ids=["negative", "over-60s", "not-an-int", "own-id", "101-peers", "empty-id"],
)
def test_a_bad_peer_latency_is_one_line_naming_the_field(peers: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidEvent) as caught:
        decode_queue_event(as_json(join(peer_latency_ms=peers)))
    error = caught.value
    assert error.code == "invalid_field"
    assert error.field is not None and error.field.startswith(field), error.reason
    assert "\n" not in str(error)


def _revision(data: bytes) -> str:
    revisions = {fingerprint(schema): name for name, schema in history("TicketJoined").items()}
    return revisions.get(data[2:10], "?")


def test_a_join_is_written_as_the_oldest_revision_that_holds_it() -> None:
    plain = m.TicketJoined.model_validate(join())
    prioritised = m.TicketJoined.model_validate({**join(), "priority": 5})
    peered = m.TicketJoined.model_validate(join(peer_latency_ms={"p-2": 35}))
    assert _revision(encode(plain)) == "r2"
    assert _revision(encode(prioritised)) == "r3"
    assert _revision(encode(peered)) == "r4"
    assert encode(peered)[2:10] == CURRENT[m.TicketJoined].fingerprint
    for event in (plain, prioritised, peered):
        assert decode(encode(event)) == event
    assert b"peer_latency_ms" not in encode_json(prioritised)
    assert json.loads(encode_json(peered))["players"][0]["peer_latency_ms"] == {"p-2": 35}


def test_peer_latencies_reach_the_matcher_by_every_path() -> None:
    raw = as_json(join(peer_latency_ms={"p-3": 80, "p-2": 35}))
    assert fast_queue_event(raw) is None  # any entry takes the full path
    for data in (
        raw,
        encode(m.TicketJoined.model_validate(join(peer_latency_ms={"p-3": 80, "p-2": 35}))),
    ):
        ticket = read(data).ticket  # type: ignore[union-attr]
        assert ticket.players[0].peer_latency_ms == (("p-2", 35), ("p-3", 80))
        assert ticket_from_record(json.loads(json.dumps(ticket_to_record(ticket)))) == ticket
    empty = fast_queue_event(as_json(join(peer_latency_ms={})))
    assert empty is not None and empty.ticket.players[0].peer_latency_ms == ()  # type: ignore[union-attr]


def test_a_snapshot_without_peers_keeps_its_bytes_and_a_copy_keeps_them() -> None:
    ticket = read(as_json(join(can_host=True))).ticket  # type: ignore[union-attr]
    assert len(ticket_to_record(ticket)[5][0]) == 6  # no optional player item at all
    peered = read(as_json(join(peer_latency_ms={"p-2": 35})))
    _, _, value = _search_copy(peered)  # type: ignore[arg-type]
    assert read(value).ticket == peered.ticket  # type: ignore[union-attr]
