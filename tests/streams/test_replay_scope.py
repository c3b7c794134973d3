"""Replay's verdict on tampered and damaged logs: `--from-wave` still judges the outputs
of no wave (a leave's dequeue), and an undecodable record on a judged topic is a
difference, not a crash."""

from __future__ import annotations

from dataclasses import replace

from schemas import models as m
from schemas.codec import encode, encode_json
from schemas.topics import CLEANUP, MATCHES, QUEUE, queue_key
from streams.audit.rederive import LogRecord
from streams.audit.replay import Scope, replay
from streams.settings import QueueSettings, Settings
from tests.streams.test_lifecycle_log import T0, Log, fingerprinted, join, tick

SETTINGS = Settings(partitions=4, queues=(QueueSettings(name="1v1", regions=("eu",)),))


def waited_alone(config: Settings, ticket: str, player: str, race: str) -> Log:
    """One ticket of the 1v1 queue in eu waits alone through the 10-s wave (its tick
    written in JSON, as a platform's timer would)."""
    log = Log(config)
    log.send(join(ticket, player, race))
    log.produce(QUEUE.name, queue_key("1v1", "eu"), encode_json(fingerprinted(config, tick(10))))
    log.drain()
    return log


def _log_with_a_leave() -> Log:
    """alice waits alone through a wave, then leaves: her dequeue carries no wave id."""
    log = waited_alone(SETTINGS, "t-alice", "alice", "bw")
    leave = m.TicketLeft(
        ticket_id="t-alice", queue="1v1", region="eu", reason="REQUESTED", left_at_ms=T0 + 12_000
    )
    log.send(leave)
    return log


def _tampered(log: Log, detail: str) -> list[LogRecord]:
    records = []
    for record in log.records:
        if record.topic == CLEANUP.name:
            event = m.TicketDequeued.model_validate(
                {**m.TicketDequeued.model_validate(_decoded(record)).model_dump(), "detail": detail}
            )
            record = replace(record, value=encode(event))
        records.append(record)
    return records


def _decoded(record: LogRecord) -> dict[str, object]:
    from schemas.codec import decode

    return decode(record.value or b"").model_dump()


def test_from_wave_still_judges_a_dequeue_of_no_wave() -> None:
    log = _log_with_a_leave()
    (dequeue,) = log.published(CLEANUP.name)
    assert dequeue.wave_id is None and dequeue.reason.value == "LEFT"
    first_wave = Scope(from_wave=T0 + 10_000)
    assert replay(SETTINGS, log.records, first_wave).ok
    report = replay(SETTINGS, _tampered(log, "timeout"), first_wave)
    assert not report.ok
    assert any("first differing field 'detail'" in line for line in report.differences)
    # A scope after the leave leaves it out on both sides.
    assert replay(SETTINGS, _tampered(log, "timeout"), Scope(from_wave=T0 + 20_000)).ok


def test_an_undecodable_record_on_a_judged_topic_is_a_difference_not_a_crash() -> None:
    log = _log_with_a_leave()
    records = [*log.records, LogRecord(MATCHES.name, 0, 99, b"junk-1", b"not an event")]
    report = replay(SETTINGS, records)
    assert not report.ok
    assert any("junk-1: published, not re-derived (undecodable" in d for d in report.differences)
