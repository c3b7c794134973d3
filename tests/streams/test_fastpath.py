"""The hot-path decoder agrees with the full one: same event when it accepts, never accepts
what the full path rejects (so dead letters keep their code, field and reason)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import models as m
from schemas.codec import decode_queue_event, encode, encode_json
from schemas.errors import InvalidEvent
from streams.wire.inbound import fast_queue_event, to_domain
from tests.schemas.events import STRATEGIES, sample

QUICK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def full_path(data: bytes) -> Any:
    """The validating decoder's verdict: the matcher event, or the InvalidEvent."""
    try:
        return to_domain(decode_queue_event(data))
    except InvalidEvent as error:
        return error


def assert_agrees(data: bytes) -> bool:
    """Whether the fast path took ``data``; fails if it disagrees with the full path."""
    fast = fast_queue_event(data)
    if fast is None:
        return False
    expected = full_path(data)
    assert not isinstance(expected, InvalidEvent), f"fast path accepted {data!r}: {expected}"
    assert fast == expected
    return True


def test_the_usual_join_and_leave_take_the_fast_path_in_json_and_avro() -> None:
    for model in (m.TicketJoined, m.TicketLeft):
        event = sample(model)
        assert assert_agrees(encode_json(event))
        assert assert_agrees(encode(event))
        assert assert_agrees(json.dumps(json.loads(encode_json(event)), indent=2).encode())
        assert assert_agrees(b" \r\n\t" + encode_json(event) + b"\n ")
    joined = encode_json(sample(m.TicketJoined))
    for refused in (joined + b" x", b"\x0b" + joined, joined.replace(b"[", b"[NaN, ", 1)):
        assert refused != joined
        assert fast_queue_event(refused) is None
        assert isinstance(full_path(refused), InvalidEvent)


def test_ticks_and_other_events_take_the_full_path() -> None:
    assert fast_queue_event(encode(sample(m.WaveTick))) is None
    assert fast_queue_event(encode_json(sample(m.WaveTick))) is None
    assert fast_queue_event(encode(sample(m.TicketStatus))) is None


def test_every_join_of_a_region_holds_one_copy_of_its_queue_and_region_names() -> None:
    """A queued ticket holds the decoder's first copy of each name, not one of its own."""
    joins = []
    for number in range(3):
        join = sample(m.TicketJoined)
        player = join.players[0].model_copy(update={"player_id": f"p-{number}"})
        join = join.model_copy(update={"ticket_id": f"t-{number}", "players": (player,)})
        for data in (encode_json(join), encode(join)):
            event = fast_queue_event(data)
            assert event is not None
            joins.append(event.ticket)
    first = joins[0]
    for ticket in joins[1:]:
        assert (ticket.queue, ticket.region) == (first.queue, first.region)
        assert ticket.queue is first.queue and ticket.region is first.region
    left = fast_queue_event(encode_json(sample(m.TicketLeft)))
    assert left is not None and left.queue == first.queue
    assert left.queue is first.queue


@QUICK
@given(STRATEGIES[m.TicketJoined] | STRATEGIES[m.TicketLeft], st.booleans())
def test_every_valid_join_and_leave_decodes_as_the_full_path_does(
    event: m.Record, avro: bool
) -> None:
    assert_agrees(encode(event) if avro else encode_json(event))


def test_most_generated_events_do_take_the_fast_path() -> None:
    taken: list[bool] = []

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(STRATEGIES[m.TicketJoined] | STRATEGIES[m.TicketLeft])
    def run(event: m.Record) -> None:
        taken.append(assert_agrees(encode(event)))

    run()
    assert sum(taken) > len(taken) * 0.9  # Avro has no escapes: nearly all are fast


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats() | st.text(max_size=70),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += paths(item, (*prefix, index))
    return out


@st.composite
def broken_bodies(draw: st.DrawFn) -> bytes:
    """A valid join or leave in JSON with one value replaced, deleted or added."""
    event = draw(STRATEGIES[m.TicketJoined] | STRATEGIES[m.TicketLeft])
    body = json.loads(encode_json(event))
    where = draw(st.sampled_from(paths(body)[1:]))
    parent = body
    for step in where[:-1]:
        parent = parent[step]
    action = draw(st.sampled_from(("replace", "delete", "add")))
    if action == "replace":
        parent[where[-1]] = draw(json_values)
    elif action == "delete":
        del parent[where[-1]]
    elif isinstance(parent, dict):
        parent[draw(st.text(min_size=1, max_size=12))] = draw(json_values)
    else:
        parent.append(draw(json_values))
    return json.dumps(body, ensure_ascii=draw(st.booleans())).encode()


@QUICK
@given(broken_bodies())
def test_a_broken_json_event_is_never_accepted_unless_the_full_path_accepts_it(
    data: bytes,
) -> None:
    assert_agrees(data)


@QUICK
@given(STRATEGIES[m.TicketJoined] | STRATEGIES[m.TicketLeft], st.data())
def test_a_repeated_key_is_left_to_the_full_path(event: m.Record, data: st.DataObject) -> None:
    text = encode_json(event).decode()
    key = data.draw(st.sampled_from(["ticket_id", "queue", "region", "type"]))
    gap = data.draw(st.sampled_from(["", " ", "\n\t "]))
    repeated = text.replace("{", '{"' + key + '"' + gap + ': "x", ', 1).encode()
    assert fast_queue_event(repeated) is None
    assert isinstance(full_path(repeated), InvalidEvent)


def test_a_repeated_player_key_is_left_to_the_full_path() -> None:
    text = encode_json(sample(m.TicketJoined)).decode()
    for repeated in (
        text.replace('"ratings":{', '"ratings":{"zerg": 1, ', 1),
        text.replace('"player_id"', '"roles": [], "player_id"', 1),
        text.replace('"latency_ms":{', '"latency_ms":{"eu" : 5, ', 1),
        text.replace('"attributes":{', '"attributes":{"os": "x", "os": "y", ', 1),
    ):
        assert repeated != text
        assert fast_queue_event(repeated.encode()) is None
        assert isinstance(full_path(repeated.encode()), InvalidEvent), repeated


def test_values_the_models_refuse_are_left_to_the_full_path() -> None:
    body = json.loads(encode_json(sample(m.TicketJoined)))
    player = body["players"][0]
    for field, value in (
        ("latency_ms", None),
        ("can_host", None),
        ("can_host", 1),
        ("roles", None),
        ("ratings", {"zerg": True}),
        ("ratings", {"zerg": 1.0}),
        ("ratings", {"zerg": 10_001}),
        ("ratings", {}),
        ("latency_ms", {"e/u": 3}),
        ("attributes", None),
        ("attributes", {"os": 3}),
        ("attributes", {"os": ""}),
        ("attributes", {f"k{i}": "v" for i in range(17)}),
        ("player_id", "a\x7fb"),
    ):
        changed = {**body, "players": [{**player, field: value}]}
        data = json.dumps(changed).encode()
        assert fast_queue_event(data) is None, (field, value)
        assert isinstance(full_path(data), InvalidEvent), (field, value)
    for field, value in (("joined_at_ms", True), ("queue", "1v1/eu"), ("party_id", "")):
        data = json.dumps({**body, field: value}).encode()
        assert fast_queue_event(data) is None, (field, value)
        assert isinstance(full_path(data), InvalidEvent), (field, value)


def test_a_join_with_nearby_is_read_with_it_from_either_encoding() -> None:
    from pathlib import Path

    from matcher.queue.events import Nearby
    from streams.wire.inbound import read

    golden = Path(__file__).resolve().parents[2] / "schemas" / "golden" / "TicketJoined"
    for name in ("nearby.json", "nearby.avro"):
        event = read((golden / name).read_bytes())
        assert event.nearby == Nearby(60_000, 100) and event.searches == (), name
    assert read((golden / "solo.avro").read_bytes()).nearby is None


def test_the_fields_added_since_the_msgspec_decoder_take_the_fast_path_or_the_full_one() -> None:
    """Searches, priority and the player's blocked, deviation and numbers are decoded here
    in JSON and Avro; data with an entry, nearby, and values the models refuse are not."""
    body = json.loads(encode_json(sample(m.TicketJoined)))
    player = {
        **body["players"][0],
        "blocked_players": ["p-9", "p-8"],
        "deviation": 50,
        "numbers": {"mmr": 3, "luck": -0.5},
        "data": {},
    }
    own = {"region": body["region"]}
    other = {"region": "far", "queue": None, "open_after_ms": 30_000}
    taken = {
        **body,
        "players": [player],
        "searches": [own, other],
        "priority": -7,
        "data": {},
        "nearby": None,
    }
    data = json.dumps(taken).encode()
    assert assert_agrees(data)
    event = fast_queue_event(data)
    assert event.ticket.priority == -7 and len(event.searches) == 2
    assert event.ticket.players[0].numbers == (("luck", -0.5), ("mmr", 3.0))
    fields = {key: value for key, value in taken.items() if key != "type"}
    assert assert_agrees(encode(m.TicketJoined.model_validate(fields)))
    for field, value in (
        ("blocked_players", None),
        ("blocked_players", [""]),
        ("deviation", True),
        ("numbers", {"mmr": True}),
        ("numbers", {"mmr": 1e400}),
        ("data", None),
    ):
        changed = json.dumps({**taken, "players": [{**player, field: value}]}).encode()
        assert fast_queue_event(changed) is None, (field, value)
        assert isinstance(full_path(changed), InvalidEvent), (field, value)
    for field, value in (
        ("searches", None),
        ("searches", [other, own]),  # the first place must open at once
        ("searches", [own, own]),
        ("searches", [{"region": "far"}]),  # the join's own place is missing
        ("priority", 1.5),
        ("priority", 2_000_000),
    ):
        changed = json.dumps({**taken, field: value}).encode()
        assert fast_queue_event(changed) is None, (field, value)
        assert isinstance(full_path(changed), InvalidEvent), (field, value)
    for field, value in (("data", {"k": "v"}), ("nearby", {"open_after_ms": 0})):
        rare = json.dumps({**taken, field: value}).encode()
        assert fast_queue_event(rare) is None, field
        assert not isinstance(full_path(rare), InvalidEvent), field
    rare = json.dumps({**taken, "players": [{**player, "data": {"k": "v"}}]}).encode()
    assert fast_queue_event(rare) is None
    assert not isinstance(full_path(rare), InvalidEvent)
