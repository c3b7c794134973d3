"""TicketJoined.searches and SearchClaim on the wire (docs/adr/0145): a bad place list is
one line naming the field; a good one reaches the fold with every place spelled out."""

from __future__ import annotations

import json

import pytest

from matcher.queue.events import Search
from schemas.codec import decode_queue_event
from schemas.errors import InvalidEvent
from streams.wire.inbound import fast_queue_event, read

JOIN = {
    "type": "TicketJoined",
    "ticket_id": "t-1",
    "queue": "1v1",
    "region": "eu",
    "players": [{"player_id": "p-1", "ratings": {"mmr": 1500}}],
    "joined_at_ms": 1_767_225_600_000,
}


def join(**fields: object) -> bytes:
    return json.dumps(JOIN | fields).encode()


@pytest.mark.parametrize(
    ("searches", "reason"),
    [
        ([{"region": "na"}], "must name the join's own place 1v1/eu"),
        ([{"region": "eu"}, {"region": "eu", "queue": "1v1"}], "named twice"),
        ([{"region": "eu", "open_after_ms": 5}], "opens at once"),
        ([{"region": "eu"}, {"region": "na", "open_after_ms": -1}], "greater than or equal"),
        ([{"region": "e/u"}], "should match pattern"),
    ],
)
def test_a_bad_place_list_is_one_line_naming_searches(searches: list, reason: str) -> None:
    assert fast_queue_event(join(searches=searches)) is None  # the full path says why
    with pytest.raises(InvalidEvent) as caught:
        decode_queue_event(join(searches=searches))
    assert caught.value.field is not None and caught.value.field.startswith("searches")
    assert reason in str(caught.value) and "\n" not in str(caught.value)


def test_a_place_list_reaches_the_fold_with_its_queues_spelled_out() -> None:
    places = [
        {"region": "eu"},
        {"region": "na", "open_after_ms": 30_000},
        {"region": "eu", "queue": "2v2"},
    ]
    event = read(join(searches=places))
    assert event.searches == (  # type: ignore[union-attr]
        Search("1v1", "eu", 0),
        Search("1v1", "na", 30_000),
        Search("2v2", "eu", 0),
    )
    assert fast_queue_event(join(searches=places)) == event
    assert decode_queue_event(join(searches=places)).searches[1].open_after_ms == 30_000


def test_an_empty_place_list_keeps_the_fast_path() -> None:
    event = fast_queue_event(join(searches=[]))
    assert event is not None and event.searches == ()  # type: ignore[union-attr]
