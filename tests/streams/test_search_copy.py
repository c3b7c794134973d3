"""The copy a home writes of a join searching several places (docs/adr/0145) is read
back in its other place as the same join: every player field, every place."""

from __future__ import annotations

import json

import pytest

from matcher.core import Player, Ticket
from matcher.queue import TicketJoined
from matcher.queue.events import Search
from schemas.codec import decode_json
from schemas.errors import InvalidEvent
from schemas.topics import QUEUE, queue_key
from streams.wire import inbound
from streams.wire.inbound import ticket_from_wire
from streams.wire.outbound import Writer, _search_copy

FULL = Player(
    "p-1",
    (("bw", 1500), ("sc2", 1550)),
    roles=("tank",),
    vetoed_maps=("Polypoid",),
    latency_ms=(("eu-west", 30),),
    can_host=True,
    attributes=(("lang", "fr"),),
    blocked=("p-9", "p-8"),
    deviation=120,
    numbers=(("height", 1.5), ("level", 3.0)),
)
PLAIN = Player("p-2", (("bw", 1400),))
#: Floats whose exponent form msgspec writes without "+" and leading zeros (1e16, 1e-7).
EXPONENTS = Player("p-3", (("bw", 1400),), numbers=(("reach", 1e16), ("tiny", 1e-07)))


def copy_of(players: tuple[Player, ...], searches: tuple[Search, ...], party: str | None):
    ticket = Ticket("t-1", searches[1].queue, searches[1].region, players, 1767225600000, party)
    return TicketJoined(ticket, searches)


@pytest.mark.parametrize(
    "players, searches, party",
    [
        ((FULL,), (Search("1v1", "eu"), Search("1v1", "na")), None),
        ((FULL, PLAIN), (Search("1v1", "eu"), Search("1v1", "na", 30_000)), "party-1"),
        ((PLAIN,), (Search("1v1", "eu"), Search("2v2", "eu", 5_000), Search("1v1", "na")), None),
        ((EXPONENTS,), (Search("1v1", "eu"), Search("1v1", "na")), None),
    ],
)
def test_a_copy_reads_back_as_the_same_join(players, searches, party):
    copy = copy_of(players, searches, party)
    topic, key, value = Writer().record(copy)
    assert (topic, key) == (QUEUE.name, queue_key(copy.ticket.queue, copy.ticket.region))
    assert inbound.fast_queue_event(value) == copy  # the worker's usual path
    assert inbound.decode(value) == copy  # the validating path agrees


def test_a_copy_leaves_out_what_its_reader_would_default():
    copy = copy_of((PLAIN,), (Search("1v1", "eu"), Search("1v1", "na"), Search("2v2", "na")), None)
    body = json.loads(Writer().record(copy)[2])
    assert body["searches"] == [
        {"region": "eu"},
        {"region": "na"},
        {"region": "na", "queue": "2v2"},
    ]


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
    ticket = Ticket(
        "t1", "1v1", "na", (player,), 1_767_225_600_000, data=(("build", "1.2"),), priority=3
    )
    places = (Search("1v1", "eu", 0), Search("1v1", "na", 30_000))
    _, _, value = _search_copy(TicketJoined(ticket, places, None))
    assert ticket_from_wire(decode_json(value)) == ticket


def test_a_copy_in_the_standard_librarys_form_reads_as_the_one_written_now():
    """Copies in existing logs were written by ``json`` (``1e+16``): each reads as the
    same join as the copy written now (schemas/README.md, "Copies of a join")."""
    copy = copy_of((EXPONENTS, FULL), (Search("1v1", "eu"), Search("1v1", "na", 30_000)), "pa")
    value = Writer().record(copy)[2]
    old = json.dumps(json.loads(value), ensure_ascii=False, separators=(",", ":")).encode()
    assert old != value and b"1e+16" in old
    assert inbound.fast_queue_event(old) == inbound.fast_queue_event(value) == copy
    assert inbound.decode(old) == inbound.decode(value) == copy


def joined(ticket: str, region: str, places: str) -> bytes:
    return (
        f'{{"type":"TicketJoined","ticket_id":"{ticket}","queue":"1v1","region":"{region}",'
        f'"players":[{{"player_id":"p-{ticket}","ratings":{{"bw":1500}}}}],'
        f'"joined_at_ms":1767225600000,"searches":{places}}}'
    ).encode()


def test_copies_naming_the_same_places_share_them_and_a_bad_list_is_still_refused():
    places = '[{"region":"eu"},{"region":"na","open_after_ms":30000}]'
    first = inbound.fast_queue_event(joined("t-1", "na", places))
    second = inbound.fast_queue_event(joined("t-2", "na", places))
    assert isinstance(first, TicketJoined) and isinstance(second, TicketJoined)
    assert first.searches == (Search("1v1", "eu"), Search("1v1", "na", 30_000))
    assert second.searches is first.searches  # checked and built once
    # The same list read in a place it omits, or with a place twice: the full path refuses.
    for value in (joined("t-3", "sa", places), joined("t-4", "na", places[:-1] + "," + places[1:])):
        assert inbound.fast_queue_event(value) is None
        with pytest.raises(InvalidEvent) as refused:
            inbound.read(value)
        assert (refused.value.code, refused.value.field) == ("invalid_field", "searches")
