"""A per-queue ticket timeout (`ticket_ttl_ms` in a queue's table, default the global
one): each queue expires its tickets after its own, it is in the config record and the
fingerprint, and a configuration that does not set it keeps its fingerprint."""

from __future__ import annotations

from pathlib import Path

import pytest

from matcher.queue import DequeueReason
from schemas import models as m
from schemas.codec import decode, encode_json
from schemas.topics import QUEUE, queue_key
from streams.audit.explain import find_wave
from streams.audit.rederive import LogRecord
from streams.settings import QueueSettings, Settings, SettingsError, load_settings
from streams.worker.config_record import config_published, settings_of
from streams.worker.folding import Folder

T0 = 1_767_225_600_000


def two_queues(ladder_ttl_ms: int | None) -> Settings:
    ladder = {"ticket_ttl_ms": ladder_ttl_ms} if ladder_ttl_ms is not None else {}
    return Settings(
        partitions=1,
        ticket_ttl_ms=600_000,
        queues=(
            QueueSettings(name="ladder", regions=("eu",), **ladder),
            QueueSettings(name="squad", strategy="rebalance", team_size=20, regions=("eu",)),
        ),
    )


def fold(folder: Folder, state, event: m.Record) -> list[object]:  # type: ignore[no-untyped-def]
    body = event.model_dump()
    key = queue_key(body["queue"], body["region"])
    folded = folder.fold(state, key, encode_json(event), state.applied_offset + 1)
    assert folded is not None and folded.rejection is None, folded
    return list(folded.step.dequeued)


def joined(queue: str, ticket: str) -> m.TicketJoined:
    return m.TicketJoined.model_validate(
        {
            "ticket_id": ticket,
            "queue": queue,
            "region": "eu",
            "joined_at_ms": T0,
            "players": [{"player_id": ticket, "ratings": {"bw": 1500}}],
        }
    )


def tick(queue: str, at_ms: int) -> m.WaveTick:
    return m.WaveTick(
        queue=queue,
        region="eu",
        wave_id=str(at_ms),
        sequence=at_ms,
        tick_at_ms=at_ms,
        config_fingerprint="f",
        interval_ms=1000,
    )


def test_each_queue_expires_its_tickets_after_its_own_ttl() -> None:
    folder = Folder.from_settings(two_queues(60_000))
    state = folder.new_state(0)
    fold(folder, state, joined("ladder", "l1"))
    fold(folder, state, joined("squad", "s1"))
    gone = fold(folder, state, tick("ladder", T0 + 60_000))
    assert [(d.ticket_id, d.reason.name) for d in gone] == [("l1", "EXPIRED")]
    assert fold(folder, state, tick("squad", T0 + 60_000)) == []
    gone = fold(folder, state, tick("squad", T0 + 600_000))  # the global TTL
    assert [(d.ticket_id, d.reason.name) for d in gone] == [("s1", "EXPIRED")]


def test_a_ttl_longer_than_the_global_one_keeps_its_ids_as_long() -> None:
    folder = Folder.from_settings(two_queues(1_200_000))
    state = folder.new_state(0)
    fold(folder, state, joined("ladder", "l1"))
    assert fold(folder, state, tick("ladder", T0 + 900_000)) == []
    gone = fold(folder, state, tick("ladder", T0 + 1_200_000))
    assert [(d.ticket_id, d.reason.name) for d in gone] == [("l1", "EXPIRED")]
    fold(folder, state, tick("ladder", T0 + 2_300_000))
    # Remembered for the queue's own TTL after it left: a retried join is a no-op.
    assert fold(folder, state, joined("ladder", "l1")) == []


def test_the_fingerprint_and_the_record() -> None:
    unset, fast, slow = two_queues(None), two_queues(60_000), two_queues(120_000)
    assert (
        len({unset.config_fingerprint(), fast.config_fingerprint(), slow.config_fingerprint()}) == 3
    )
    # Not set: the fingerprint and the record of a configuration written before it existed.
    assert '"ticket_ttl_ms":null' not in config_published(unset, T0).settings_json
    for settings in (unset, fast):
        rebuilt = settings_of(config_published(settings, T0), load_settings())
        assert rebuilt is not None and rebuilt.config_fingerprint() == settings.config_fingerprint()
        assert rebuilt.queue("ladder").ticket_ttl_ms == settings.queue("ladder").ticket_ttl_ms


def test_the_fingerprint_of_a_file_without_it_is_unchanged() -> None:
    recorded = Path(__file__).resolve().parents[1] / "data" / "recorded-session.toml"
    # The fingerprint the committed recorded session's ticks carry.
    (tick_,) = {
        e.config_fingerprint for e in map(decode, _queue_values()) if isinstance(e, m.WaveTick)
    }
    assert load_settings(recorded).config_fingerprint() == tick_


def _queue_values() -> list[bytes]:
    from streams.audit.logfile import read_log

    log = Path(__file__).resolve().parents[1] / "data" / "recorded-session.avro"
    return [r.value or b"" for r in read_log(log) if r.topic == "wavematch.queue.v1"]


def test_a_bad_queue_ttl_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[[queues]]\nname = "q1"\nticket_ttl_ms = 10\n')
    with pytest.raises(SettingsError) as caught:
        load_settings(config)
    assert str(caught.value).startswith("queues.0: queue 'q1': ticket_ttl_ms: ")


def test_explain_rebuilds_a_wave_without_the_tickets_its_queue_ttl_expired() -> None:
    """``explain MATCH_ID`` offers the wave what the fold offered it: the tickets older
    than the queue's own TTL are not in the rebuilt snapshot."""
    folder = Folder.from_settings(two_queues(60_000))
    events: list[m.Record] = [joined("ladder", "old")]
    for ticket, game in (("a", "bw"), ("b", "sc2")):  # a duel pairs the two games
        body = joined("ladder", ticket).model_dump()
        body.update(
            joined_at_ms=T0 + 50_000, players=[{"player_id": ticket, "ratings": {game: 1500}}]
        )
        events.append(m.TicketJoined.model_validate(body))
    events.append(tick("ladder", T0 + 61_000))  # "old" expires under 60 s, not under 600 s
    key = queue_key("ladder", "eu")
    records = [
        LogRecord(QUEUE.name, 0, offset, key, encode_json(event))
        for offset, event in enumerate(events)
    ]
    state = folder.new_state(0)
    steps = [folder.fold(state, r.key, r.value, r.offset) for r in records]
    wave = steps[-1].step
    assert [(d.ticket_id, d.reason) for d in wave.dequeued if d.ticket_id == "old"] == [
        ("old", DequeueReason.EXPIRED)
    ]
    (match,) = wave.matches
    found = find_wave(folder, records, match.match_id)
    assert found is not None
    assert sorted(w.ticket.ticket_id for w in found.snapshot.tickets) == ["a", "b"]
