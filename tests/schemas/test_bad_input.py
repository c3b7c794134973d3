"""Bad input: each message becomes exactly one InvalidEvent naming the field, then a DeadLetter."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import models as m
from schemas.codec import (
    CURRENT,
    MAX_EVENT_BYTES,
    dead_letter_for,
    decode,
    decode_as,
    decode_queue_event,
    encode,
    encode_json,
)
from schemas.errors import CODES, InvalidEvent
from tests.schemas.events import STRATEGIES, T0, sample, ticket_joined


def zigzag(number: int) -> bytes:
    value = (number << 1) ^ (number >> 63)
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | 0x80 if value else byte)
        if not value:
            return bytes(out)


def text(value: str | bytes) -> bytes:
    raw = value.encode() if isinstance(value, str) else value
    return zigzag(len(raw)) + raw


def ticket_left_bytes(ticket_id: bytes = b"t-1", reason_index: int = 0) -> bytes:
    body = text(ticket_id) + text("1v1") + text("eu") + zigzag(reason_index) + zigzag(T0)
    return CURRENT[m.TicketLeft].header + body


def joined_json(**changes: Any) -> bytes:
    body = json.loads(encode_json(ticket_joined()))
    for path, value in changes.items():
        target = body
        *parents, leaf = path.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if value is _DELETE:
            del target[leaf]
        else:
            target[leaf] = value
    return json.dumps(body).encode()


_DELETE = object()
SOLO = encode(ticket_joined())

# (id, raw value, expected code, expected field)
CASES: list[tuple[str, bytes | None, str, str | None]] = [
    ("empty", b"", "empty", None),
    ("tombstone", None, "empty", None),
    ("blank", b"  \n", "empty", None),
    ("garbage-binary", b"\x00\x01\x02\xff", "garbage", None),
    ("garbage-text", b"hello", "garbage", None),
    ("json-array", b"[1, 2]", "garbage", None),
    ("oversize-json", b"{" + b" " * MAX_EVENT_BYTES + b"}", "oversize", None),
    ("oversize-avro", SOLO + b"\x00" * MAX_EVENT_BYTES, "oversize", None),
    ("header-truncated", SOLO[:6], "truncated", None),
    ("body-truncated", SOLO[:-1], "truncated", "joined_at_ms"),
    ("body-truncated-in-player", SOLO[:40], "truncated", "players[0].ratings"),
    ("body-truncated-in-rating", SOLO[:43], "truncated", "players[0].ratings.zerg"),
    ("trailing-bytes", SOLO + b"\x00", "trailing_bytes", None),
    ("wrong-fingerprint", SOLO[:2] + bytes(8) + SOLO[10:], "unknown_fingerprint", None),
    ("bad-utf8", ticket_left_bytes(b"t-\xff"), "bad_avro", "ticket_id"),
    ("negative-length", CURRENT[m.TicketLeft].header + zigzag(-3), "bad_avro", "ticket_id"),
    ("unknown-enum-index", ticket_left_bytes(reason_index=2), "unknown_symbol", "reason"),
    ("output-event-on-input", encode(sample(m.MatchCreated)), "unexpected_event", None),
    ("bad-json", b'{"type": "TicketLeft",', "bad_json", None),
    ("json-trailing-data", b'{"type": "TicketLeft"} {}', "bad_json", None),
    ("json-duplicate-key", b'{"type": "TicketLeft", "type": "WaveTick"}', "bad_json", None),
    ("json-nan", joined_json(joined_at_ms=None).replace(b"null", b"NaN"), "bad_json", None),
    ("json-not-utf8", b'{"type": "TicketLeft", "ticket_id": "\xff"}', "bad_json", None),
    ("json-too-deep", b'{"a":' + b"[" * 30_000 + b"]" * 30_000 + b"}", "bad_json", None),
    ("json-no-type", b'{"ticket_id": "t-1"}', "unknown_type", "type"),
    ("json-unknown-type", b'{"type": "TicketJumped"}', "unknown_type", "type"),
    ("json-output-type", b'{"type": "MatchCreated"}', "unknown_type", "type"),
    ("json-missing-field", joined_json(ticket_id=_DELETE), "missing_field", "ticket_id"),
    ("json-unknown-field", joined_json(colour="red"), "unknown_field", "colour"),
    (
        "json-unknown-symbol",
        encode_json(sample(m.TicketLeft)).replace(b"DISCONNECTED", b"BORED"),
        "unknown_symbol",
        "reason",
    ),
    (
        "rating-as-string",
        joined_json(players__0__ratings__zerg="1850"),
        "invalid_field",
        "players[0].ratings.zerg",
    ),
    (
        "rating-as-bool",
        joined_json(players__0__ratings__zerg=True),
        "invalid_field",
        "players[0].ratings.zerg",
    ),
    ("timestamp-as-float", joined_json(joined_at_ms=1.5e12), "invalid_field", "joined_at_ms"),
    ("players-not-a-list", joined_json(players="p-1"), "invalid_field", "players"),
    (
        "rating-too-high",
        joined_json(players__0__ratings__zerg=10_001),
        "invalid_field",
        "players[0].ratings.zerg",
    ),
    (
        "rating-negative",
        joined_json(players__0__ratings__zerg=-1),
        "invalid_field",
        "players[0].ratings.zerg",
    ),
    ("no-ratings", joined_json(players__0__ratings={}), "invalid_field", "players[0].ratings"),
    (
        "latency-too-high",
        joined_json(players__0__latency_ms={"us-east": 60_001}),
        "invalid_field",
        "players[0].latency_ms['us-east']",
    ),
    ("empty-ticket-id", joined_json(ticket_id=""), "invalid_field", "ticket_id"),
    ("long-ticket-id", joined_json(ticket_id="t" * 129), "invalid_field", "ticket_id"),
    ("control-char-id", joined_json(ticket_id="t\n1"), "invalid_field", "ticket_id"),
    ("slash-in-queue", joined_json(queue="1v1/eu"), "invalid_field", "queue"),
    ("timestamp-1999", joined_json(joined_at_ms=946_684_799_999), "invalid_field", "joined_at_ms"),
    (
        "timestamp-2200",
        joined_json(joined_at_ms=7_258_118_400_000),
        "invalid_field",
        "joined_at_ms",
    ),
    ("no-players", joined_json(players=[]), "invalid_field", "players"),
    (
        "eleven-players",
        joined_json(players=[{"player_id": f"p{i}", "ratings": {"r": 1}} for i in range(11)]),
        "invalid_field",
        "players",
    ),
    (
        "same-player-twice",
        joined_json(players=[{"player_id": "p", "ratings": {"r": 1}}] * 2),
        "invalid_field",
        "players",
    ),
    (
        "65-vetoed-maps",
        joined_json(players__0__vetoed_maps=[f"m{i}" for i in range(65)]),
        "invalid_field",
        "players[0].vetoed_maps",
    ),
    (
        "long-map-name",
        joined_json(players__0__vetoed_maps=["m" * 65]),
        "invalid_field",
        "players[0].vetoed_maps[0]",
    ),
    (
        "long-rating-key",
        joined_json(players__0__ratings={"r" * 65: 1}),
        "invalid_field",
        "players[0].ratings." + "r" * 65,
    ),
]


@pytest.mark.parametrize(
    ("raw", "code", "field"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input_raises_one_invalid_event_naming_the_field(
    raw: bytes | None, code: str, field: str | None
) -> None:
    with pytest.raises(InvalidEvent) as caught:
        decode_queue_event(raw)  # type: ignore[arg-type]
    error = caught.value
    assert (error.code, error.field) == (code, field), error.reason
    assert code in CODES
    line = str(error)
    assert line == error.reason and "\n" not in line and 0 < len(line) <= 1024
    if field is not None:
        assert field in line, line


@pytest.mark.parametrize(("raw", "code"), [c[1:3] for c in CASES], ids=[c[0] for c in CASES])
def test_each_bad_input_becomes_exactly_one_dead_letter(raw: bytes | None, code: str) -> None:
    letters = []
    for offset, value in enumerate([raw]):
        try:
            decode_queue_event(value)  # type: ignore[arg-type]
        except InvalidEvent as error:
            letters.append(
                dead_letter_for(value, b"1v1/eu", "wavematch.queue.v1", 2, offset, error, T0)
            )
    assert len(letters) == 1
    letter = letters[0]
    assert letter.error_code == code and letter.original_size == len(raw or b"")
    assert letter.original == (raw or b"")[: m.MAX_DEAD_LETTER_ORIGINAL_BYTES]
    assert decode(encode(letter)) == letter


def test_dead_letter_keeps_the_head_of_an_oversize_value_and_its_size() -> None:
    raw = b"{" + b"x" * 200_000
    letter = dead_letter_for(
        raw, b"k" * 5000, "wavematch.queue.v1", 0, 7, InvalidEvent("oversize", "too big"), T0
    )
    assert letter.original == raw[:65_536] and letter.original_size == 200_001
    assert letter.original_key == b"k" * 1024
    assert decode(encode(letter)) == letter


def test_dead_letter_records_a_worker_failure_as_unhandled() -> None:
    letter = dead_letter_for(
        SOLO, None, "wavematch.queue.v1", 0, 9, KeyError("ticket\nvanished"), T0
    )
    assert (letter.error_code, letter.field, letter.original_key) == ("unhandled", None, None)
    assert letter.reason == "KeyError: 'ticket\\nvanished'"


def test_decode_as_refuses_another_event() -> None:
    with pytest.raises(InvalidEvent) as caught:
        decode_as(SOLO, m.TicketLeft)
    assert caught.value.code == "unexpected_event"
    assert decode_as(SOLO, m.TicketJoined) == ticket_joined()


def test_avro_values_get_the_same_validation_as_json() -> None:
    event = ticket_joined()
    writer = CURRENT[m.TicketJoined].writer
    body = event.model_dump()
    body["players"][0]["ratings"]["zerg"] = 12_000  # bypass pydantic: write raw Avro
    from schemas.codec import encoder_for

    data = encoder_for("TicketJoined")(body)
    assert writer is not None
    with pytest.raises(InvalidEvent) as caught:
        decode_queue_event(data)
    assert (caught.value.code, caught.value.field) == ("invalid_field", "players[0].ratings.zerg")
    assert "12000" in str(caught.value)


def test_cross_field_rules() -> None:
    base = sample(m.TicketDequeued).model_dump()
    with pytest.raises(InvalidEvent, match="match_id: is required when reason is MATCHED"):
        decode(encode_via_dict(m.TicketDequeued, {**base, "match_id": None}))
    with pytest.raises(InvalidEvent, match="match_id: must be null when reason is LEFT"):
        decode(encode_via_dict(m.TicketDequeued, {**base, "reason": "LEFT"}))
    wave = sample(m.WaveClosed).model_dump()
    with pytest.raises(InvalidEvent, match="max_rating_diff: must be at least min_rating_diff"):
        decode(encode_via_dict(m.WaveClosed, {**wave, "max_rating_diff": 1.0}))
    with pytest.raises(InvalidEvent, match="matched_players: must be at most players_in_snapshot"):
        decode(encode_via_dict(m.WaveClosed, {**wave, "matched_players": 38}))
    match = sample(m.MatchCreated).model_dump()
    match["teams"][1]["players"][0]["player_id"] = "p-1"
    with pytest.raises(InvalidEvent, match="one seat per match"):
        decode(encode_via_dict(m.MatchCreated, match))
    with pytest.raises(InvalidEvent, match=r"quality\.rating_diff: Input should be a finite"):
        decode(
            encode_via_dict(
                m.MatchCreated,
                {**sample(m.MatchCreated).model_dump(), "quality": {"rating_diff": float("nan")}},
            )
        )


def encode_via_dict(model: type[m.Record], body: dict[str, Any]) -> bytes:
    from schemas.codec import encoder_for

    return encoder_for(model)(body)


def test_encode_refuses_what_decode_would_refuse_as_oversize() -> None:
    wide = "é" * 60  # two UTF-8 bytes per character
    huge = [
        {
            "player_id": f"p{i}",
            "ratings": {f"{wide}{j}": 1 for j in range(16)},
            "vetoed_maps": [f"{wide}{j}" for j in range(64)],
        }
        for i in range(10)
    ]
    event = ticket_joined(players=huge)  # valid field by field, too big as a whole
    for encoder in (encode, encode_json):
        with pytest.raises(InvalidEvent) as caught:
            encoder(event)
        assert caught.value.code == "oversize"


# --- fuzzing: nothing but InvalidEvent ever escapes -------------------------------------


def _only_invalid_event(decoder: Callable[[bytes], Any], raw: bytes) -> None:
    try:
        decoder(raw)
    except InvalidEvent as error:
        assert error.code in CODES and "\n" not in str(error)
        letter = dead_letter_for(raw, None, "wavematch.queue.v1", 0, 0, error, T0)
        assert decode(encode(letter)) == letter


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_only_ever_raise_invalid_event(raw: bytes) -> None:
    _only_invalid_event(decode_queue_event, raw)
    _only_invalid_event(decode, raw)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(m.EVENTS)).flatmap(lambda name: STRATEGIES[m.EVENTS[name]]), st.data()
)
def test_damaged_payloads_only_ever_raise_invalid_event(
    event: m.Record, data: st.DataObject
) -> None:
    raw = encode(event)
    at = data.draw(st.integers(2, len(raw) - 1))
    damaged = data.draw(
        st.sampled_from(
            [
                raw[:at],
                raw[:at] + bytes([raw[at] ^ data.draw(st.integers(1, 255))]) + raw[at + 1 :],
                raw[:at] + data.draw(st.binary(min_size=1, max_size=4)) + raw[at:],
                raw[:at] + raw[at + 1 :],
            ]
        )
    )
    _only_invalid_event(decode, damaged)
    _only_invalid_event(decode_queue_event, damaged)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["TicketJoined", "TicketLeft", "WaveTick", None]),
    st.dictionaries(
        st.sampled_from(
            [
                "ticket_id",
                "queue",
                "region",
                "players",
                "reason",
                "joined_at_ms",
                "left_at_ms",
                "sequence",
                "x",
            ]
        ),
        json_values,
        max_size=6,
    ),
)
def test_random_json_objects_only_ever_raise_invalid_event(
    kind: str | None, body: dict[str, Any]
) -> None:
    if kind is not None:
        body = {"type": kind, **body}
    _only_invalid_event(decode_queue_event, json.dumps(body).encode())
