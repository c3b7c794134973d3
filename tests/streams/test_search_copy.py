"""A copy of a join searching several places carries every field of the join."""

from __future__ import annotations

from matcher.core import Player, Ticket
from matcher.queue import TicketJoined
from matcher.queue.events import Search
from schemas.codec import decode_json
from streams.wire.inbound import ticket_from_wire
from streams.wire.outbound import _search_copy


def test_a_copy_carries_every_field_of_the_join() -> None:
    """Each place matches the same ticket: a copy loses none of the players' fields."""
    player = Player(
        "p1",
        (("mmr", 1500),),
        latency_ms=(("eu", 20), ("na", 90)),
        attributes=(("language", "de"),),
        blocked=("p9",),
        deviation=0,
        numbers=(("level", 42.0),),
        data=(("skin", "red"),),
    )
    ticket = Ticket("t1", "1v1", "na", (player,), 1_767_225_600_000, data=(("build", "1.2"),))
    places = (Search("1v1", "eu", 0), Search("1v1", "na", 30_000))
    _, _, value = _search_copy(TicketJoined(ticket, places, None))
    assert ticket_from_wire(decode_json(value)) == ticket
