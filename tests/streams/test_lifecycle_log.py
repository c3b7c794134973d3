"""A match's whole life through the worker's own fold and publisher, on a simulated log:
claims written back to the queue topic are folded by the partition of their key, and
`replay` re-derives every output, the claim records included (docs/adr/0110, 0111)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemas import models as m
from schemas.codec import CURRENT, decode, encode_json
from schemas.topics import DEADLETTER, QUEUE, murmur2_partition, queue_key
from streams.audit.answers import ticket_answer
from streams.audit.rederive import LogRecord
from streams.audit.replay import replay
from streams.settings import QueueSettings, Settings
from streams.wire.avro import revision_header
from streams.wire.outbound import Writer
from streams.worker import snapshots
from streams.worker.folding import Folder
from streams.worker.outputs import records_of

T0 = 1_767_225_600_000
PARTITIONS = 4


class Log:
    """Every record of every topic, in order, with the worker folding the queue topic."""

    def __init__(self, settings: Settings) -> None:
        self.folder = Folder.from_settings(settings)
        self.states = {p: self.folder.new_state(p) for p in range(PARTITIONS)}
        self.records: list[LogRecord] = []
        self.offsets: dict[tuple[str, int], int] = {}

    def produce(self, topic: str, key: bytes, value: bytes) -> None:
        partition = murmur2_partition(key, PARTITIONS) if topic == QUEUE.name else 0
        offset = self.offsets.get((topic, partition), 0)
        self.offsets[topic, partition] = offset + 1
        self.records.append(LogRecord(topic, partition, offset, key, value))

    def send(self, event: m.Record) -> None:
        body = event.model_dump()
        self.produce(QUEUE.name, queue_key(body["queue"], body["region"]), encode_json(event))
        self.drain()

    def drain(self) -> None:
        """Fold every queue record not yet folded, publishing its outputs, until none is left."""
        done = 0
        while done < len(self.records):
            record = self.records[done]
            done += 1
            if record.topic != QUEUE.name:
                continue
            state = self.states[record.partition]
            folded = self.folder.fold(state, record.key, record.value, record.offset)
            if folded is None:
                continue
            outputs = records_of(
                Writer(),
                folded,
                topic=QUEUE.name,
                partition=record.partition,
                key=record.key,
                value=record.value,
            )
            for topic, key, value in outputs:
                self.produce(topic, key, value)

    def published(self, topic: str) -> list[Any]:
        return [decode(r.value or b"") for r in self.records if r.topic == topic]


def settings(**queue: Any) -> Settings:
    return Settings(
        partitions=PARTITIONS,
        one_ticket_per_player=True,
        queues=(QueueSettings(name="1v1", regions=("eu", "na"), maps=("Polypoid",), **queue),),
    )


def join(ticket: str, player: str, race: str, region: str = "eu", at: int = 0) -> m.TicketJoined:
    return m.TicketJoined.model_validate(
        {
            "ticket_id": ticket,
            "queue": "1v1",
            "region": region,
            "joined_at_ms": T0 + at,
            "players": [{"player_id": player, "ratings": {race: 1500}}],
        }
    )


def tick(at_s: int, region: str = "eu") -> m.WaveTick:
    return m.WaveTick(
        queue="1v1",
        region=region,
        wave_id=str(T0 + at_s * 1000),
        sequence=T0 + at_s * 1000,
        tick_at_ms=T0 + at_s * 1000,
        config_fingerprint="f",
        interval_ms=10_000,
    )


def answer(match_id: str, player: str, accepted: bool, at_s: int) -> m.ReadyCheckAnswered:
    return m.ReadyCheckAnswered(
        match_id=match_id,
        queue="1v1",
        region="eu",
        player_id=player,
        accepted=accepted,
        answered_at_ms=T0 + at_s * 1000,
    )


def report(match_id: str, outcome: str, at_s: int) -> m.PlacementReported:
    return m.PlacementReported(
        match_id=match_id,
        queue="1v1",
        region="eu",
        outcome=outcome,
        detail="no capacity" if outcome == "FAILED" else None,
        reported_at_ms=T0 + at_s * 1000,
    )


def fingerprinted(config: Settings, event: m.WaveTick) -> m.WaveTick:
    return event.model_copy(update={"config_fingerprint": config.config_fingerprint()})


def _avro(record: LogRecord) -> m.Record | None:
    """The record's event when the service wrote it (Avro), else None (JSON input)."""
    value = record.value or b""
    return decode(value) if value[:2] == b"\xc3\x01" else None


def proposals(log: Log) -> list[m.MatchProposed]:
    return [e for e in log.published("wavematch.matches.v1") if isinstance(e, m.MatchProposed)]


def proposed(config: Settings) -> tuple[Log, m.MatchProposed]:
    """alice (t1, bw) and bob (t2, sc2) join and are proposed a match at the 10-s wave."""
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(fingerprinted(config, tick(10)))
    (proposal,) = proposals(log)
    return log, proposal


def test_decline_requeue_failed_placement_and_a_second_queue_replay_identically():
    config = settings(ready_check_ms=5_000, placement_timeout_ms=20_000)
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(join("t3", "alice", "bw", region="na", at=1))  # alice is held by t1
    dequeued = log.published("wavematch.cleanup.v1")
    assert [(d.ticket_id, d.reason, d.detail) for d in dequeued] == [
        ("t3", m.DequeueReason.REJECTED, "player alice already holds ticket t1 in 1v1/eu")
    ]
    log.send(fingerprinted(config, tick(10)))
    (first,) = proposals(log)
    log.send(answer(first.match_id, "alice", True, 11))
    log.send(answer(first.match_id, "bob", False, 12))
    declined = log.published("wavematch.cleanup.v1")[-1]
    assert (declined.ticket_id, declined.reason) == ("t2", m.DequeueReason.LEFT)
    assert declined.cause is m.DequeueCause.DECLINED
    assert declined.detail.startswith("player bob declined")
    log.send(join("t4", "dave", "sc2", at=15))
    log.send(fingerprinted(config, tick(20)))
    second = proposals(log)[-1]
    assert {s.ticket_id for t in second.teams for s in t.players} == {"t1", "t4"}
    log.send(answer(second.match_id, "alice", True, 21))
    log.send(answer(second.match_id, "dave", True, 22))
    created = [e for e in log.published("wavematch.matches.v1") if isinstance(e, m.MatchCreated)]
    assert [c.match_id for c in created] == [second.match_id]
    log.send(report(second.match_id, "FAILED", 23))
    statuses = {s.ticket_id: s for s in log.published("wavematch.status.v1")}
    assert statuses["t1"].waves_waited == 2  # back with its wait: joined before wave 1
    log.send(fingerprinted(config, tick(30)))
    third = proposals(log)[-1]
    log.send(answer(third.match_id, "alice", True, 31))
    log.send(answer(third.match_id, "dave", True, 32))
    log.send(report(third.match_id, "STARTED", 33))
    matched = [
        d for d in log.published("wavematch.cleanup.v1") if d.reason is m.DequeueReason.MATCHED
    ]
    assert {(d.ticket_id, d.match_id) for d in matched} == {
        ("t1", third.match_id),
        ("t4", third.match_id),
    }
    log.send(join("t5", "alice", "bw", region="na", at=40))  # released: alice may join again
    assert log.published("wavematch.status.v1")[-1].ticket_id == "t5"
    report_ = replay(config, log.records)
    assert report_.ok, report_.differences
    assert report_.verdict.checked["wavematch.queue.v1"] > 10
    assert report_.verdict.identical["wavematch.matches.v1"] == 5  # 3 proposed, 2 created
    released = next(r for r in log.records if isinstance(_avro(r), m.ClaimReleased))
    tampered = replay(config, [r for r in log.records if r != released])
    assert not tampered.ok
    assert any("ClaimReleased" in line or "player/" in line for line in tampered.differences)


def test_a_silent_player_times_out_at_the_tick_and_the_other_waits_on():
    config = settings(ready_check_ms=5_000)
    log, proposal = proposed(config)
    log.send(answer(proposal.match_id, "alice", True, 11))
    log.send(fingerprinted(config, tick(20)))
    timed_out = log.published("wavematch.cleanup.v1")[-1]
    assert (timed_out.ticket_id, timed_out.reason) == ("t2", m.DequeueReason.EXPIRED)
    assert timed_out.cause is m.DequeueCause.ACCEPTANCE_TIMED_OUT
    assert replay(config, log.records).ok


@pytest.mark.parametrize(
    ("event", "code"),
    [
        (answer("no-such-match", "alice", True, 11), "unknown_match"),
        (answer("x", "alice", True, 11).model_copy(update={"queue": "5v5"}), "unknown_queue"),
    ],
)
def test_bad_answers_are_dead_lettered(event, code):
    log = Log(settings(ready_check_ms=5_000))
    log.send(event)
    (letter,) = log.published(DEADLETTER.name)
    assert letter.error_code == code


def test_a_partition_snapshot_keeps_its_claims_and_held_tickets():
    """Snapshot every partition mid-life, restore, continue: the same outputs as without."""
    config = settings(ready_check_ms=5_000)
    log, proposal = proposed(config)
    restored = Log(config)
    restored.records = list(log.records)
    restored.offsets = dict(log.offsets)
    for partition, state in log.states.items():
        table = dict(
            snapshots.encode_snapshot(
                partition,
                snapshots.Snapshot(
                    state.applied_offset, state.book.regions, claims=state.book.claims
                ),
                None,
            )
        )
        loaded, _ = snapshots.decode_snapshot(partition, table.get)
        fresh = restored.states[partition]
        fresh.book.regions.update(loaded.regions)
        if loaded.claims is not None:
            fresh.book.claims = loaded.claims
        fresh.applied_offset = loaded.offset
    assert any(s.book.claims.holders for s in restored.states.values())
    for each in (log, restored):
        each.send(answer(proposal.match_id, "bob", False, 11))
        each.send(join("t3", "bob", "sc2", region="na", at=12))  # bob's claim was released
    assert log.records == restored.records
    assert log.published("wavematch.status.v1")[-1].ticket_id == "t3"


def test_match_proposed_bytes_are_fastavros():
    """MatchProposed is written as MatchCreated's body plus its deadline: the very bytes
    fastavro writes for the same record."""
    from matcher.core import Match, Seat, Team
    from matcher.queue.lifecycle import MatchProposal
    from schemas.codec import encoder_for
    from streams.wire.outbound import Writer

    teams = (
        Team("red", (Seat("t1", "p1", "bw", 1500), Seat("t2", "p2", "bw", 1450))),
        Team("blue", (Seat("t3", "p3", "sc2", 1490),)),
    )
    match = Match("m-1", teams, "Polypoid", "srv", "ch", (("rating_diff", 12.5),))
    proposal = MatchProposal(match, "1v1", "eu", "w9", "optimal", "cfg", T0, T0 + 5_000)
    topic, key, value = Writer().record(proposal)
    expected = encoder_for("MatchProposed", validate=True)(
        {
            "match_id": "m-1",
            "queue": "1v1",
            "region": "eu",
            "wave_id": "w9",
            "teams": [
                {
                    "name": t.name,
                    "players": [
                        {
                            "ticket_id": s.ticket_id,
                            "player_id": s.player_id,
                            "role": s.role,
                            "rating": s.rating,
                        }
                        for s in t.seats
                    ],
                }
                for t in teams
            ],
            "map": "Polypoid",
            "server": "srv",
            "channel": "ch",
            "quality": {"rating_diff": 12.5},
            "strategy": "optimal",
            "config_fingerprint": "cfg",
            "proposed_at_ms": T0,
            "deadline_at_ms": T0 + 5_000,
        }
    )
    assert (topic, key, value) == ("wavematch.matches.v1", b"m-1", expected)


def test_a_5v5_backfill_of_two_open_slots_takes_a_party_of_two_and_replays():
    config = Settings(
        partitions=PARTITIONS,
        queues=(
            QueueSettings(
                name="5v5",
                strategy="rebalance",
                regions=("eu",),
                maps=("Polypoid",),
                team_size=5,
            ),
        ),
    )
    log = Log(config)

    def joined(ticket: str, *players: str) -> m.TicketJoined:
        return m.TicketJoined.model_validate(
            {
                "ticket_id": ticket,
                "queue": "5v5",
                "region": "eu",
                "joined_at_ms": T0,
                "players": [{"player_id": p, "ratings": {"mmr": 1500}} for p in players],
            }
        )

    log.send(joined("t-party", "ann", "ben"))
    log.send(joined("t-solo", "cat"))
    team = [{"player_id": f"b{i}", "rating": 1500} for i in range(3)]
    log.send(
        m.BackfillRequested.model_validate(
            {
                "session_id": "s-1",
                "queue": "5v5",
                "region": "eu",
                "requested_at_ms": T0,
                "teams": [
                    {
                        "name": "red",
                        "players": [{"player_id": f"r{i}", "rating": 1500} for i in range(5)],
                        "open_slots": 0,
                    },
                    {"name": "blue", "players": team, "open_slots": 2},
                ],
            }
        )
    )
    log.send(m.BackfillCancelled(session_id="nope", queue="5v5", region="eu", cancelled_at_ms=T0))
    tick5 = m.WaveTick(
        queue="5v5",
        region="eu",
        wave_id="w1",
        sequence=T0 + 10_000,
        tick_at_ms=T0 + 10_000,
        config_fingerprint=config.config_fingerprint(),
        interval_ms=10_000,
    )
    log.send(tick5)
    (result,) = [
        e for e in log.published("wavematch.matches.v1") if isinstance(e, m.BackfillResult)
    ]
    assert result.outcome is m.BackfillOutcome.FILLED
    assert [(t.name, [s.player_id for s in t.players]) for t in result.teams] == [
        ("blue", ["ann", "ben"])
    ]
    (seated,) = log.published("wavematch.cleanup.v1")
    assert (seated.ticket_id, seated.reason, seated.match_id) == (
        "t-party",
        m.DequeueReason.MATCHED,
        "s-1",
    )
    (letter,) = log.published(DEADLETTER.name)
    assert letter.error_code == "unknown_session"
    report_ = replay(config, log.records)
    assert report_.ok and report_.verdict.identical["wavematch.matches.v1"] == 1


def declined_then_silent() -> tuple[Log, m.MatchProposed, m.MatchProposed]:
    """alice-bob proposed at 10 s, bob declines; alice-dave proposed at 20 s, nobody
    answers: it times out at 30 s."""
    config = settings(ready_check_ms=5_000)
    log, declined = proposed(config)
    log.send(answer(declined.match_id, "bob", False, 11))
    log.send(join("t3", "dave", "sc2", at=12))
    log.send(fingerprinted(config, tick(20)))
    log.send(fingerprinted(config, tick(30)))
    return log, declined, proposals(log)[1]


def test_explain_ticket_tells_a_return_and_a_timeout():
    from streams.audit.history import ticket_history

    log, first, _ = declined_then_silent()
    lines = [line.split("] ", 1)[1] for line in ticket_history(log.folder, log.records, "t1")]
    assert lines[0] == "claim on alice granted"
    assert lines[1] == "searching at place 1"
    assert lines[2].startswith(f"REQUIRES_ACCEPTANCE after 1 waves, match {first.match_id}")
    assert lines[3].startswith("SEARCHING after 1 waves: returned to the queue: player bob")
    assert lines[-2].startswith("dequeued ACCEPTANCE_TIMED_OUT after 2 waves: no answer to the")
    assert lines[-1].endswith(
        "no answer from alice (ticket t1), dave (ticket t3); accepted by nobody"
    )


def test_explain_of_a_proposal_says_what_became_of_it():
    from streams.audit.answers import match_answer

    log, declined, silent = declined_then_silent()
    first = match_answer(log.folder, log.records, declined.match_id, 3)
    second = match_answer(log.folder, log.records, silent.match_id, 3)
    assert first is not None and second is not None
    team = next(line for line in first if line.lstrip().startswith("team bw"))
    assert team.endswith("alice (bw 1500, ticket t1, its wave 1)")
    header = "after the wave (ticket t1's record of it):"
    after = [line.split("] ", 1)[1] for line in first[first.index(header) + 1 :]]
    assert after[-1].startswith("requeued: bob (ticket t2) declined")
    (start,) = [i for i, line in enumerate(second) if line.startswith("after the wave (ticket t")]
    after = [line.split("] ", 1)[1] for line in second[start + 1 :]]
    assert after[0].startswith("dequeued ACCEPTANCE_TIMED_OUT after 2 waves")
    assert after[1].startswith(f"timed out: ready check of match {silent.match_id}")
    window = next(line for line in second if line.lstrip().startswith("window"))
    assert "counts 1 earlier waves -> max diff 100" in window


def test_explain_ticket_of_a_dead_lettered_join_says_why():
    log = Log(settings())
    bad = (
        b'{"type":"TicketJoined","ticket_id":"t9","queue":"1v1","region":"eu",'
        b'"joined_at_ms":1767225600000,"players":[{"player_id":"zed","ratings":{"bw":"high"}}]}'
    )
    log.produce(QUEUE.name, queue_key("1v1", "eu"), bad)
    log.send(join("t19", "amy", "bw"))  # its id contains the other's: not about t9
    log.drain()
    story = ticket_answer(log.folder, log.records, "t9")
    assert story is not None and len(story) == 2, story
    assert story[1].split("] ", 1)[1] == (
        "dead-lettered (invalid_field), not applied: TicketJoined players[0].ratings.bw: "
        "Input should be a valid integer (got 'high')"
    )


def test_explain_wants_a_match_or_a_ticket(capsys):
    from streams.cli import main

    assert main(["explain"]) == 2
    assert "give a match id or --ticket" in capsys.readouterr().err


SECRET = "s3cret-join-token-k36b"
WHERE = {"address": "203.0.113.7", "port": 7777, "token": SECRET}


def test_connection_details_reach_every_player_and_the_token_no_dead_letter() -> None:
    """A STARTED report's connection details are in each matched ticket's MATCHED status
    (ADR 0171); statuses without them keep the bytes of the revision before the field;
    a refused report's token is in neither its dead letter's bytes nor its reason."""
    config = settings(placement_timeout_ms=20_000)
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(fingerprinted(config, tick(10)))
    (created,) = log.published("wavematch.matches.v1")
    refused = report(created.match_id, "FAILED", 11).model_dump(mode="json")
    too_long = report(created.match_id, "STARTED", 11).model_dump(mode="json")
    refused["connection"], too_long["connection"] = WHERE, {**WHERE, "token": SECRET * 60}
    for body in (refused, too_long):
        raw = json.dumps({"type": "PlacementReported", **body}).encode()
        log.produce(QUEUE.name, queue_key("1v1", "eu"), raw)
    log.drain()
    letters = log.published(DEADLETTER.name)
    assert [d.field for d in letters] == ["connection", "connection.token"]
    assert "only a STARTED placement" in letters[0].reason
    assert f"got a token of {len(SECRET) * 60} characters" in letters[1].reason
    for letter in letters:
        assert SECRET.encode() not in letter.original and SECRET not in letter.reason
        assert b'"token": "****"' in letter.original
    started = report(created.match_id, "STARTED", 12)
    log.send(started.model_copy(update={"connection": m.Connection(**WHERE)}))
    status_records = [r for r in log.records if r.topic == "wavematch.status.v1"]
    matched = [decode(r.value or b"") for r in status_records[-2:]]
    assert {s.ticket_id for s in matched} == {"t1", "t2"}
    for status in matched:
        assert status.stage is m.TicketStage.MATCHED and status.match_id == created.match_id
        assert status.connection == m.Connection(**WHERE)
        assert SECRET not in repr(status)
    story = ticket_answer(log.folder, log.records, "t1")
    assert story is not None
    where = f"started: match {created.match_id}'s server at 203.0.113.7:7777, with a join token"
    assert any(line.endswith(where) for line in story), story
    assert not any(SECRET in line for line in story)
    newest = CURRENT[m.TicketStatus].header
    assert all(r.value[:10] == newest for r in status_records[-2:])
    assert all(r.value[:10] == revision_header("TicketStatus", "r2") for r in status_records[:-2])
    report_ = replay(config, log.records)
    assert report_.ok, report_.differences
