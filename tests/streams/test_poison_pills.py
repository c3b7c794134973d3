"""Issue 23's poison pills: whatever one record holds, the fold and the publisher return, and a
rejected record becomes exactly one encodable DeadLetter (decoded back here)."""

from __future__ import annotations

import json

import pytest

from schemas.codec import decode, decode_queue_event
from schemas.errors import InvalidEvent
from schemas.models import MAX_DEAD_LETTER_KEY_BYTES, DeadLetter
from schemas.topics import QUEUE
from streams.wire.inbound import fast_queue_event
from streams.wire.outbound import Writer
from streams.worker import folding
from streams.worker.folding import Folded, Rejection
from streams.worker.outputs import dead_letter_record, records_of
from tests.streams.conftest import HOME, KEY, joined


def letters(folder, state, key, value, offset=0):
    folded = folder.fold(state, key, value, offset)
    assert folded is not None and state.applied_offset == offset
    records = records_of(Writer(), folded, topic=QUEUE.name, partition=HOME, key=key, value=value)
    assert [topic for topic, _, _ in records] == ["wavematch.deadletter.v1"]
    letter = decode(records[0][2])
    assert isinstance(letter, DeadLetter) and letter.offset == offset
    return records[0], letter


def nested(depth: int) -> bytes:
    return ("[" * depth + "]" * depth).encode()


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (nested(1_000), "garbage"),  # the 2,000-byte value: not a JSON object
        (nested(30_000), "garbage"),
        (b'{"type": "TicketJoined", "players": ' + nested(5_000) + b"}", "bad_json"),
        (b'{"a": ' * 3_000 + b"1" + b"}" * 3_000, "bad_json"),
    ],
)
def test_deeply_nested_json_is_one_dead_letter_and_the_queue_goes_on(folder, value, code):
    state = folder.new_state(HOME)
    assert fast_queue_event(value) is None  # the fast path gives up instead of raising
    _, letter = letters(folder, state, KEY, value)
    assert letter.error_code == code
    folder.fold(state, KEY, joined("t1", "a"), 1)
    assert [tid for q in state.book.regions.values() for tid in q.tickets] == ["t1"]


@pytest.mark.parametrize("size", [1_025, 4_096, 100_000])
def test_a_huge_key_is_cut_in_the_letter_and_kept_as_the_record_key(folder, size):
    key = b"k" * size
    (_, record_key, _), letter = letters(folder, folder.new_state(HOME), key, joined("t", "a"))
    assert letter.error_code == "key_mismatch"
    assert letter.original_key == key[:MAX_DEAD_LETTER_KEY_BYTES]
    assert record_key == key  # the topic's contract: the original key, unchanged


def test_a_null_key_dead_letter_has_no_key(folder):
    (_, record_key, _), letter = letters(folder, folder.new_state(HOME), None, b"garbage")
    assert record_key is None and letter.original_key is None


def test_every_variable_size_field_is_cut_so_the_letter_always_encodes():
    rejection = Rejection("invalid_field", "x\x85" * 100_000, "f" * 10_000)
    huge = b"\xff" * 1_000_000
    _, key, data = dead_letter_record(Folded(7, rejection=rejection), QUEUE.name, 3, huge, huge)
    letter = decode(data)
    assert len(letter.original) == 65_536 and letter.original_size == 1_000_000
    assert len(letter.original_key) == MAX_DEAD_LETTER_KEY_BYTES
    assert len(letter.reason) <= 1_024 and "\x85" not in letter.reason
    assert len(letter.field) == 512 and key == huge


def test_a_reason_with_a_lone_surrogate_still_encodes():
    rejection = Rejection("invalid_field", "bad \ud800 id")
    _, _, data = dead_letter_record(Folded(0, rejection=rejection), QUEUE.name, 0, b"k", b"v")
    assert decode(data).reason == "bad ? id"


def test_a_bug_anywhere_in_the_fold_costs_one_dead_letter(folder, monkeypatch):
    def broken(value):
        raise MemoryError("the decoder blew up")

    monkeypatch.setattr(folding, "fast_queue_event", broken)
    state = folder.new_state(HOME)
    _, letter = letters(folder, state, KEY, joined("t1", "a"), offset=4)
    assert (letter.error_code, letter.reason) == (
        "internal_error",
        "MemoryError: the decoder blew up",
    )


def test_an_output_that_cannot_be_encoded_costs_one_dead_letter(folder, monkeypatch):
    writer = Writer()

    def broken(step, duration_ms=0.0):
        raise ValueError("cannot encode")

    monkeypatch.setattr(writer, "records", broken)
    state = folder.new_state(HOME)
    folded = folder.fold(state, KEY, joined("t1", "a"), 0)
    records = records_of(writer, folded, topic=QUEUE.name, partition=HOME, key=KEY, value=b"v")
    assert len(records) == 1 and decode(records[0][2]).error_code == "internal_error"


C1 = ["a\x85b", "\x80", "x\x9f"]


@pytest.mark.parametrize("bad", C1)
@pytest.mark.parametrize("where", ["ticket_id", "player_id"])
def test_ids_with_c1_control_characters_are_refused_on_every_path(folder, bad, where):
    body = json.loads(decode_json_join())
    if where == "ticket_id":
        body["ticket_id"] = bad
    else:
        body["players"][0]["player_id"] = bad
    for text in (json.dumps(body), json.dumps(body, ensure_ascii=False)):
        value = text.encode()
        assert fast_queue_event(value) is None
        with pytest.raises(InvalidEvent) as raised:
            decode_queue_event(value)
        assert raised.value.code == "invalid_field"
        _, letter = letters(folder, folder.new_state(HOME), KEY, value)
        assert letter.error_code == "invalid_field"


def decode_json_join() -> str:
    return json.dumps(
        {
            "type": "TicketJoined",
            "ticket_id": "t-1",
            "queue": "duo",
            "region": "eu",
            "joined_at_ms": 1_767_225_600_000,
            "players": [{"player_id": "p-1", "ratings": {"any": 1500}}],
        }
    )


def test_the_publisher_sends_a_null_key_as_none(folder):
    import asyncio

    from schemas.topics import murmur2_partition
    from streams.worker.publisher import Publisher
    from tests.streams.test_publisher import Producer

    producer = Producer(room=10)
    records = [("wavematch.deadletter.v1", None, b"letter"), ("wavematch.deadletter.v1", b"", b"x")]
    asyncio.run(Publisher(producer, lambda topic: 3).publish(records))
    assert producer.sent == [
        ("wavematch.deadletter.v1", murmur2_partition(b"", 3), [(None, b"letter"), (b"", b"x")])
    ]
