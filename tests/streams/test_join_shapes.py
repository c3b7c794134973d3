"""Joins read through a remembered layout are the events the full path decodes, and a
record in a known layout with a value the models refuse is never read through it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from schemas import models as m
from schemas.codec import encode_json
from schemas.errors import InvalidEvent
from streams.worker import join_shapes
from streams.worker.fastpath import fast_queue_event
from streams.worker.join_shapes import read_join
from tests.schemas.events import T0, sample
from tests.streams.test_fastpath import assert_agrees, full_path

QUICK = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID = {
    "ticket_id": "t-1",
    "queue": "1v1",
    "region": "eu",
    "joined_at_ms": T0,
    "player_id": "p-1",
}
NAMES = ["bw", "sc2", "zerg"]
TOP = ["type", "ticket_id", "queue", "region", "joined_at_ms", "players"]
#: Strings and numbers of every kind: in and out of each rule's bounds, with control
#: characters, quotes, backslashes, colons, non-ASCII text.
strings = (
    st.text(max_size=3)
    | st.text(min_size=60, max_size=140)
    | st.sampled_from(["", "1v1", "eu", "a/b", "é", "x" * 64, "x" * 65, "y" * 128, "y" * 129])
    | st.sampled_from(
        ["a\x7fb", "a\x1fb", 'a"b', "a\\b", "a:b", " eu", "-eu", "_eu", ".eu", "e.u_-9"]
    )
)
numbers = (
    st.integers(-(2**70), 2**70)
    | st.sampled_from(
        [-1, 0, m.MAX_RATING, m.MAX_RATING + 1, m.MIN_TIMESTAMP_MS - 1, m.MIN_TIMESTAMP_MS]
    )
    | st.sampled_from([m.MAX_TIMESTAMP_MS - 1, m.MAX_TIMESTAMP_MS, 10**19, 10**20])
)
#: Raw (not escaped) non-ASCII and DEL characters in most layouts: escapes never match.
styles = st.sampled_from(
    [
        {},
        {"ensure_ascii": False},
        {"separators": (",", ":"), "ensure_ascii": False},
        {"indent": 2, "ensure_ascii": False},
        {"separators": (" ,  ", " :\t"), "ensure_ascii": False},
    ]
)


def body(
    values: dict[str, Any], ratings: dict[str, Any], order: list[str], extras: dict[str, Any]
) -> dict[str, Any]:
    player = {"player_id": values["player_id"], "ratings": ratings, **extras}
    fields = {
        "type": "TicketJoined",
        "ticket_id": values["ticket_id"],
        "queue": values["queue"],
        "region": values["region"],
        "joined_at_ms": values["joined_at_ms"],
        "players": [player],
        "party_id": None,
    }
    return {key: fields[key] for key in order}


layouts = st.tuples(
    st.permutations(TOP),
    st.booleans(),  # with "party_id": null
    st.integers(1, 3),  # ratings
    st.fixed_dictionaries(
        {},
        optional={
            "can_host": st.booleans(),
            "roles": st.just([]),
            "vetoed_maps": st.just([]),
            "latency_ms": st.just({}),
        },
    ),
    styles,
)


RAW = (TOP, False, 1, {}, {"ensure_ascii": False})


@QUICK
@example(layout=RAW, field="ticket_id", text="a\x7fb", number=0)
@example(layout=RAW, field="player_id", text="\x7f", number=0)
@example(layout=RAW, field="name", text="b\x7f", number=0)
@example(layout=RAW, field="queue", text="_eu", number=0)
@example(layout=RAW, field="region", text="-eu", number=0)
@given(
    layout=layouts,
    field=st.sampled_from([*VALID, "name", "rating"]),
    text=strings,
    number=numbers,
)
def test_a_known_layout_reads_exactly_what_the_full_path_accepts(
    layout: Any, field: str, text: str, number: int
) -> None:
    """One value of a learned layout changed, to anything of its JSON type."""
    join_shapes.forget()  # every example learns its layouts, with tokens to spare
    order, party, count, extras, style = layout
    order = [*order, "party_id"] if party else list(order)
    known = json.dumps(body(VALID, dict.fromkeys(NAMES[:count], 1500), order, extras), **style)
    assert assert_agrees(known.encode())  # accepted by the general path: layout learned
    assert read_join(known) == full_path(known.encode())
    values, ratings = dict(VALID), dict.fromkeys(NAMES[:count], 1500)
    if field == "name":
        if text in ratings:  # json would keep one of the equal names
            return
        ratings = {text if name == NAMES[count - 1] else name: 1500 for name in ratings}
    elif field == "rating":
        ratings[NAMES[0]] = number
    else:
        values[field] = number if field == "joined_at_ms" else text
    changed = json.dumps(body(values, ratings, order, extras), **style)
    fast, expected = read_join(changed), full_path(changed.encode())
    if fast is not None:
        assert not isinstance(expected, InvalidEvent), f"read {changed!r}: {expected}"
        assert fast == expected
    if assert_agrees(changed.encode()) and "\\" not in changed:
        assert read_join(changed) == expected  # learned by now, whatever its colons


def test_equal_rating_names_are_left_to_the_full_path() -> None:
    text = json.dumps(body(VALID, {"bw": 1500, "sc2": 1600}, TOP, {}))
    assert assert_agrees(text.encode())
    repeated = text.replace('"sc2"', '"bw"')
    assert read_join(repeated) is None
    assert fast_queue_event(repeated.encode()) is None
    assert isinstance(full_path(repeated.encode()), InvalidEvent)


def test_the_codecs_own_json_is_read_through_its_layout() -> None:
    event = sample(m.TicketJoined)
    solo = json.loads(encode_json(event))
    solo["players"][0].update(roles=[], vetoed_maps=[], latency_ms={})
    data = json.dumps(solo, separators=(",", ":")).encode()
    assert assert_agrees(data)
    assert read_join(data.decode()) == full_path(data)


def test_parties_and_players_with_roles_are_not_remembered() -> None:
    data = encode_json(sample(m.TicketJoined))  # roles, vetoed maps, latencies
    party = json.loads(data)
    party["players"][0].update(roles=[], vetoed_maps=[], latency_ms={})
    party["party_id"] = "party-1"
    for text in (data.decode(), json.dumps(party)):
        assert assert_agrees(text.encode())
        assert read_join(text) is None


def test_the_remembered_layouts_are_bounded() -> None:
    join_shapes.forget()
    for number in range(join_shapes.MAX_SHAPES + 5):
        style = {"separators": (", " + " " * number, ": ")}
        text = json.dumps(body(VALID, {"bw": 1}, TOP, {}), **style)
        assert assert_agrees(text.encode())
    assert 0 < len(join_shapes._PATTERNS) <= join_shapes.MAX_SHAPES
    for colons in range(join_shapes.MAX_SHAPES + 5):  # one layout, many colon counts
        values = {**VALID, "ticket_id": "t" + ":" * colons}
        assert assert_agrees(json.dumps(body(values, {"bw": 1}, TOP, {})).encode())
    assert 0 < len(join_shapes._SHAPES) <= join_shapes.MAX_SHAPES


def test_learning_is_rationed_by_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    """Layouts that change with every join must not cost a compilation each."""
    join_shapes.forget()
    monkeypatch.setattr(join_shapes, "_TOKENS", [1.0])
    monkeypatch.setattr(join_shapes, "LEARN_REFILL", 4)  # a token back every fourth join
    texts = [
        json.dumps(body(VALID, {"bw": 1}, TOP, {}), separators=(", " + " " * n, ": "))
        for n in range(5)
    ]
    for text in texts:
        assert assert_agrees(text.encode())  # accepted either way
    assert [read_join(text) is not None for text in texts] == [True, False, False, True, False]
