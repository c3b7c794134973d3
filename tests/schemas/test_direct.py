"""The direct writers of schemas/direct.py give fastavro's bytes, byte for byte."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import models as m
from schemas.codec import decode, encoder_for
from schemas.direct import WRITTEN_FOR, direct_encoder_for, string, zigzag_varint
from schemas.errors import InvalidEvent
from tests.schemas.events import (
    STRATEGIES,
    _printable,
    ids,
    key_parts,
    names,
    ratings,
    sample,
    timestamps,
)

HOT = {
    "MatchCreated": m.MatchCreated,
    "TicketDequeued": m.TicketDequeued,
    "TicketStatus": m.TicketStatus,
    "WaveClosed": m.WaveClosed,
}
FASTAVRO = {name: encoder_for(name) for name in HOT}
DIRECT = {name: direct_encoder_for(name) for name in HOT}


def same_bytes(name: str, body: dict[str, Any]) -> bytes:
    expected = FASTAVRO[name](body)
    assert DIRECT[name](body) == expected
    return expected


@pytest.mark.parametrize("name", sorted(HOT))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_every_valid_event_is_written_as_fastavro_writes_it(name: str, data: st.DataObject) -> None:
    event = data.draw(STRATEGIES[HOT[name]])
    assert decode(same_bytes(name, event.model_dump())) == event


# Wider than the model strategies: several seats per team, empty roles, long strings
# (two-byte lengths), -0.0 and extreme doubles, 64-bit and negative numbers (the
# writers must agree with fastavro even on values the models would refuse).
long_text = st.text(_printable, min_size=60, max_size=300)
any_text = st.text(max_size=80) | long_text
doubles = st.floats(allow_nan=False) | st.sampled_from([0.0, -0.0, 5e-324, 1.7976931348623157e308])
any_long = st.integers(-(2**63), 2**63 - 1)


@st.composite
def wide_match(draw: st.DrawFn) -> dict[str, Any]:
    seat = st.fixed_dictionaries(
        {
            "ticket_id": ids | long_text,
            "player_id": ids,
            "role": st.just("") | names,
            "rating": ratings | st.integers(-(2**31), 2**31 - 1),
        }
    )
    team = st.fixed_dictionaries({"name": names, "players": st.lists(seat, max_size=6)})
    return {
        "match_id": draw(ids),
        "queue": draw(key_parts),
        "region": draw(key_parts),
        "wave_id": draw(any_text),
        "teams": draw(st.lists(team, max_size=5)),
        "map": draw(any_text),
        "server": draw(ids),
        "channel": draw(ids),
        "quality": draw(st.dictionaries(any_text, doubles, max_size=70)),
        "strategy": draw(names),
        "config_fingerprint": draw(ids),
        "created_at_ms": draw(any_long),
    }


@settings(max_examples=150, deadline=None)
@given(body=wide_match())
def test_match_created_agrees_beyond_the_model(body: dict[str, Any]) -> None:
    same_bytes("MatchCreated", body)


@settings(max_examples=150, deadline=None)
@given(
    body=st.fixed_dictionaries(
        {
            "ticket_id": any_text,
            "queue": any_text,
            "region": any_text,
            "reason": st.sampled_from([reason.name for reason in m.DequeueReason]),
            "match_id": st.none() | any_text,
            "wave_id": st.none() | any_text,
            "waves_waited": any_long,
            "detail": st.none() | any_text,
            "at_ms": any_long,
        }
    )
)
def test_ticket_dequeued_agrees_beyond_the_model(body: dict[str, Any]) -> None:
    same_bytes("TicketDequeued", body)


@settings(max_examples=150, deadline=None)
@given(
    body=st.fixed_dictionaries(
        {
            "ticket_id": any_text,
            "queue": key_parts,
            "region": key_parts,
            "state": st.just("SEARCHING"),
            "position": any_long,
            "waves_waited": any_long,
            "estimated_wait_ms": st.none() | any_long,
            "next_wave_at_ms": st.none() | any_long,
            "wave_id": st.none() | any_text,
            "at_ms": timestamps,
        }
    )
)
def test_ticket_status_agrees_beyond_the_model(body: dict[str, Any]) -> None:
    same_bytes("TicketStatus", body)


counts = st.integers(-(2**31), 2**31 - 1)


@settings(max_examples=150, deadline=None)
@given(
    body=st.fixed_dictionaries(
        {
            "queue": key_parts,
            "region": key_parts,
            "wave_id": any_text,
            "wave_number": any_long,
            "players_in_snapshot": counts,
            "tickets_in_snapshot": counts,
            "matches": counts,
            "matched_players": counts,
            "unmatched": counts,
            "expired": counts,
            "avg_rating_diff": st.none() | doubles,
            "min_rating_diff": st.none() | doubles,
            "max_rating_diff": st.none() | doubles,
            "strategy": names,
            "config_fingerprint": ids,
            "closed_at_ms": timestamps,
            "duration_ms": doubles,
        }
    )
)
def test_wave_closed_agrees_beyond_the_model(body: dict[str, Any]) -> None:
    same_bytes("WaveClosed", body)


def test_the_typical_samples_agree() -> None:
    for name, model in HOT.items():
        same_bytes(name, sample(model).model_dump())


def test_varints_and_strings_at_their_byte_boundaries() -> None:
    # 63/64 and 8191/8192: where a zig-zag varint grows by a byte.
    for value in (0, 1, -1, 63, 64, -64, -65, 8191, 8192, 2**31 - 1, -(2**31), 2**63 - 1):
        body = {**sample(m.TicketStatus).model_dump(), "position": value}
        same_bytes("TicketStatus", body)
    assert zigzag_varint(-(2**63)).hex() == "ffffffffffffffffff01"
    for size in (0, 63, 64, 65, 8191, 8192):
        assert string("x" * size)[: -size or None] == zigzag_varint(size)


def test_an_oversize_record_is_refused_like_the_codec_refuses_it() -> None:
    body = sample(m.TicketDequeued).model_dump() | {"detail": "x" * 70_000}
    for encode in (FASTAVRO["TicketDequeued"], DIRECT["TicketDequeued"]):
        with pytest.raises(InvalidEvent, match="over the 65536-byte limit") as refused:
            encode(body)
        assert refused.value.code == "oversize"


def test_a_changed_schema_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(WRITTEN_FOR, "WaveClosed", "0000000000000000")
    with pytest.raises(RuntimeError, match=r"the \.avsc changed"):
        direct_encoder_for("WaveClosed")


def test_a_value_of_the_wrong_type_fails_instead_of_writing_something() -> None:
    body = sample(m.TicketDequeued).model_dump() | {"queue": None}
    with pytest.raises((AttributeError, TypeError)):
        DIRECT["TicketDequeued"](body)
