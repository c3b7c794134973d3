"""The hand-written SearchClaim writer writes fastavro's bytes for every action
(docs/adr/0145), and the inbound decoder reads back the claim event it came from."""

from __future__ import annotations

import pytest

from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested
from schemas.codec import decode, encode
from streams.wire.inbound import read, routing_key
from streams.wire.outbound import Writer

AT = 1_767_225_635_000
OUTPUTS = [
    ClaimRequested("p-1", "t-1", "1v1", "na", AT, "m-1"),
    ClaimRequested("p-é" * 30, "t-1" * 40, "1v1", "na", AT, "m-" + "9" * 100),
    ClaimReleased("p-1", "t-1", "1v1", "na", AT, "m-1"),
    ClaimDecided("p-1", "t-1", "1v1", "na", True, AT, None, "m-1"),
    ClaimDecided("p-1", "t-1", "1v1", "na", False, AT, ("t-1", "2v2", "eu"), "m-1"),
    ClaimDecided(
        "p-1", "t-1", "2v2", "eu", False, AT, ("t-1", "1v1", "na"), "m-2", "matched_elsewhere"
    ),
    ClaimDecided("p-1", "t-1", "2v2", "eu", False, AT, ("t-1", "1v1", "na"), None, "left"),
    # A leave's claim (docs/adr/0146): REQUESTED with a null match id.
    ClaimRequested("p-1", "t-1", "1v1", "eu", AT, ""),
]


@pytest.mark.parametrize("output", OUTPUTS, ids=lambda o: type(o).__name__)
def test_search_claim_bytes_are_fastavros_and_read_back(output) -> None:
    topic, key, value = Writer().record(output)
    assert topic == "wavematch.queue.v1"
    assert value == encode(decode(value))  # fastavro writes the same bytes for the event
    assert read(value) == output
    own = routing_key(read(value))
    assert key == (own if own is not None else f"{output.queue}/{output.region}".encode())


def test_a_leaves_claim_is_a_request_without_a_match_keyed_by_the_ticket() -> None:
    _, key, value = Writer().record(ClaimRequested("p-1", "t-1", "1v1", "eu", AT, ""))
    event = decode(value)
    assert (event.action.value, event.match_id, key) == ("REQUESTED", None, b"search/t-1")
