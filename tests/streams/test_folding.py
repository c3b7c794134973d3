"""The worker's fold of raw records: routing, dead letters, snapshots, outputs."""

from __future__ import annotations

import json

import pytest

from schemas.codec import decode
from schemas.topics import QUEUE
from streams.wire.outbound import Writer
from streams.worker import snapshots
from streams.worker.outputs import records_of
from tests.streams.conftest import HOME, KEY, PARTITIONS, joined, tick


def test_a_wave_publishes_matches_cleanup_status_and_summary(folder):
    state = folder.new_state(HOME)
    for offset, (tid, player) in enumerate([("t1", "a"), ("t2", "b"), ("t3", "c")]):
        folder.fold(state, KEY, joined(tid, player), offset)
    folded = folder.fold(state, KEY, tick(1), 3)
    records = records_of(Writer(), folded, topic=QUEUE.name, partition=HOME, key=KEY, value=tick(1))
    topics = [topic for topic, _, _ in records]
    assert topics == [
        "wavematch.matches.v1",
        "wavematch.cleanup.v1",
        "wavematch.cleanup.v1",
        "wavematch.status.v1",
        "wavematch.waves.v1",
    ]
    match = decode(records[0][2])
    assert {s.ticket_id for team in match.teams for s in team.players} == {"t1", "t2"}
    cleanup = [decode(value) for topic, _, value in records if topic.endswith("cleanup.v1")]
    assert {(d.ticket_id, d.reason.value, d.match_id) for d in cleanup} == {
        ("t1", "MATCHED", match.match_id),
        ("t2", "MATCHED", match.match_id),
    }
    summary = decode(records[-1][2])
    assert (summary.matches, summary.unmatched, summary.wave_id) == (1, 1, "1")


def test_a_record_already_in_the_state_is_skipped(folder):
    state = folder.new_state(HOME)
    assert folder.fold(state, KEY, joined("t1", "a"), 5) is not None
    assert folder.fold(state, KEY, joined("t1", "a"), 5) is None
    assert folder.fold(state, KEY, joined("t9", "z"), 4) is None
    assert state.applied_offset == 5


@pytest.mark.parametrize(
    ("key", "value", "code", "field"),
    [
        (KEY, b"\xc3\x01garbage!!", "unknown_fingerprint", None),
        (KEY, b'{"type": "TicketJoined"', "bad_json", None),
        (b"duo/na", None, "key_mismatch", "key"),
        (None, None, "key_mismatch", "key"),
    ],
)
def test_bad_records_become_exactly_one_dead_letter(folder, key, value, code, field):
    state = folder.new_state(HOME)
    value = value if value is not None else joined("t1", "a")
    folded = folder.fold(state, key, value, 0)
    records = records_of(Writer(), folded, topic=QUEUE.name, partition=HOME, key=key, value=value)
    assert [topic for topic, _, _ in records] == ["wavematch.deadletter.v1"]
    letter = decode(records[0][2])
    assert (letter.error_code, letter.field, letter.offset, letter.original) == (
        code,
        field,
        0,
        value,
    )
    assert state.applied_offset == 0 and state.book.regions == {}


def test_a_record_without_a_key_is_told_apart_from_one_keyed_none(folder):
    value = joined("t1", "a")
    keyless = folder.fold(folder.new_state(HOME), None, value, 0).rejection
    assert keyless.reason == f"the record has no key but the event is for {KEY.decode()!r}"
    named = folder.fold(folder.new_state(HOME), b"none", value, 0).rejection
    assert named.reason == f"key is 'none' but the event is for {KEY.decode()!r}"


def test_a_record_in_the_wrong_partition_is_refused_with_the_right_one(folder):
    wrong = (HOME + 1) % PARTITIONS
    folded = folder.fold(folder.new_state(wrong), KEY, joined("t1", "a"), 0)
    assert folded.rejection.code == "misrouted"
    assert f"belongs in partition {HOME}" in folded.rejection.reason
    assert "murmur2_random" in folded.rejection.reason


def test_a_failing_strategy_is_dead_lettered_once_and_matches_nothing(folder, monkeypatch):
    import matcher.queue.wave as wave

    state = folder.new_state(HOME)
    folder.fold(state, KEY, joined("t1", "a"), 0)
    folder.fold(state, KEY, joined("t2", "b"), 1)
    monkeypatch.setattr(wave, "run_strategy", lambda s, p: 1 / 0)
    folded = folder.fold(state, KEY, tick(1), 2)
    assert folded.rejection.code == "wave_failed"
    assert "ZeroDivisionError" in folded.rejection.reason
    records = records_of(Writer(), folded, topic=QUEUE.name, partition=HOME, key=KEY, value=tick(1))
    assert [topic for topic, _, _ in records] == ["wavematch.deadletter.v1"]
    again = folder.fold(state, KEY, tick(2), 3)
    assert again.rejection is None and again.step.failure.reason == folded.rejection.reason
    (queue,) = state.book.regions.values()
    assert list(queue.tickets) == ["t1", "t2"] and queue.waves_closed == 0


def test_a_snapshot_restores_every_region_and_the_offset(folder):
    state = folder.new_state(HOME)
    for offset in range(40):
        folder.fold(state, KEY, joined(f"t{offset}", f"p{offset}"), offset)
    folder.fold(state, KEY, tick(1), 40)
    snapshot = snapshots.Snapshot(state.applied_offset, state.book.regions)
    table: dict[str, bytes] = {}
    for key, value in snapshots.encode_snapshot(HOME, snapshot, previous_slot=None):
        table[key] = value
    loaded, slot = snapshots.decode_snapshot(HOME, table.get)
    assert slot == "a" and loaded.offset == 40
    from matcher.queue.records import queue_to_record

    assert [queue_to_record(q) for q in loaded.regions.values()] == [
        queue_to_record(q) for q in state.book.regions.values()
    ]


def test_a_half_written_snapshot_never_replaces_the_last_complete_one(folder):
    state = folder.new_state(HOME)
    folder.fold(state, KEY, joined("t1", "a"), 0)
    table: dict[str, bytes] = {}
    first = snapshots.encode_snapshot(HOME, snapshots.Snapshot(0, state.book.regions), None)
    table.update(first)
    folder.fold(state, KEY, joined("t2", "b"), 1)
    second = snapshots.encode_snapshot(HOME, snapshots.Snapshot(1, state.book.regions), "a")
    table.update(second[:-1])  # crash before the manifest
    loaded, slot = snapshots.decode_snapshot(HOME, table.get)
    assert (loaded.offset, slot) == (0, "a")
    table.update(second[-1:])
    assert snapshots.decode_snapshot(HOME, table.get)[0].offset == 1


def test_a_corrupt_snapshot_is_reported_not_loaded(folder):
    table = dict(snapshots.encode_snapshot(HOME, snapshots.Snapshot(3, {}), None))
    manifest = json.loads(table[snapshots.manifest_key(HOME)])
    table[snapshots.chunk_key(HOME, manifest["slot"], 0)] = b"tampered"
    with pytest.raises(snapshots.CorruptSnapshot, match="checksum"):
        snapshots.decode_snapshot(HOME, table.get)
