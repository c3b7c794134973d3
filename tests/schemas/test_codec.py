"""Round trips of every event through both encodings, and reading older schema revisions."""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_writer
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import codec
from schemas import models as m
from schemas.codec import (
    CURRENT,
    decode,
    decode_json,
    decode_queue_event,
    encode,
    encode_json,
    encoder_for,
    load_schema,
    older_revision,
)
from tests.schemas.events import STRATEGIES, sample

EVENT_NAMES = sorted(m.EVENTS)


@settings(max_examples=40, deadline=None)
@given(st.data())
@pytest.mark.parametrize("name", EVENT_NAMES)
def test_random_valid_events_round_trip_both_encodings(name: str, data: st.DataObject) -> None:
    event = data.draw(STRATEGIES[m.EVENTS[name]])
    raw = encode(event)
    assert decode(raw) == event
    assert encode(decode(raw)) == raw
    assert decode_json(encode_json(event)) == event
    if type(event) in m.QUEUE_EVENTS:
        assert decode_queue_event(raw) == event
        assert decode_queue_event(encode_json(event)) == event


@pytest.mark.parametrize("name", EVENT_NAMES)
def test_dict_encoder_writes_exactly_what_encode_writes(name: str) -> None:
    event = sample(m.EVENTS[name])
    body = event.model_dump()
    assert encoder_for(name)(body) == encode(event)
    assert encoder_for(m.EVENTS[name], validate=True)(body) == encode(event)


def test_validating_dict_encoder_refuses_a_bad_dict() -> None:
    body = sample(m.TicketStatus).model_dump() | {"position": 0}
    with pytest.raises(codec.InvalidEvent) as caught:
        encoder_for("TicketStatus", validate=True)(body)
    assert caught.value.field == "position"


def test_json_form_accepts_omitted_optional_fields_and_whitespace() -> None:
    text = b"""
      {"type": "TicketJoined", "ticket_id": "t-9", "queue": "1v1", "region": "eu",
       "players": [{"player_id": "p-9", "ratings": {"terran": 1500}}],
       "joined_at_ms": 1767225600000}
    """
    event = decode_queue_event(text)
    assert isinstance(event, m.TicketJoined)
    assert event.party_id is None and event.players[0].roles == () and not event.players[0].can_host


def test_json_form_of_a_dead_letter_carries_bytes_as_base64() -> None:
    letter = sample(m.DeadLetter)
    body = json.loads(encode_json(letter))
    assert body["original"] == "eyJ0eXBlIjogIlRpY2tldEpvaW5lZCJ9"
    assert decode_json(encode_json(letter)) == letter


def test_a_ticket_written_with_an_older_revision_decodes_with_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = copy.deepcopy(load_schema("TicketJoined"))
    player_fields = old["fields"][4]["type"]["items"]["fields"]
    player_fields[:] = [field for field in player_fields if field["name"] != "can_host"]
    revision = older_revision(CURRENT[m.TicketJoined], "r0", old)
    monkeypatch.setitem(codec.KNOWN, revision.fingerprint, revision)
    body = sample(m.TicketJoined).model_dump()
    for player in body["players"]:
        del player["can_host"]
    buffer = io.BytesIO()
    schemaless_writer(buffer, parse_schema(old), body)
    data = revision.header + buffer.getvalue()
    assert revision.fingerprint != CURRENT[m.TicketJoined].fingerprint
    assert decode(data) == sample(m.TicketJoined)
    assert decode_queue_event(data) == sample(m.TicketJoined)


def test_every_kind_of_output_event_has_its_own_fingerprint() -> None:
    headers: dict[bytes, Any] = {encode(sample(model))[:10]: model for model in m.EVENTS.values()}
    assert len(headers) == len(m.EVENTS)
