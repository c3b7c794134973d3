"""ADR 0115: a ready-check answer's and a placement report's own time are checked against
their record's broker timestamp, and an answer cannot be dated before its proposal; each
refusal is one DeadLetter ``implausible_time`` naming the field."""

from __future__ import annotations

from typing import Any

from schemas import models as m
from schemas.codec import decode, encode
from schemas.topics import murmur2_partition, queue_key
from streams.settings import QueueSettings, Settings
from streams.worker.folding import Folded, Folder

NOW = 1_767_225_600_000
DAY = 86_400_000
SKEW = 60_000
PARTITIONS = 4
KEY = queue_key("1v1", "eu")


class Region:
    """The 1v1/eu region's partition, folding records stamped as a broker would."""

    def __init__(self, **queue: Any) -> None:
        config = Settings(
            partitions=PARTITIONS,
            max_clock_skew_ms=SKEW,
            queues=(QueueSettings(name="1v1", regions=("eu",), maps=("Polypoid",), **queue),),
        )
        self.fingerprint = config.config_fingerprint()
        self.folder = Folder.from_settings(config)
        self.state = self.folder.new_state(murmur2_partition(KEY, PARTITIONS))
        self.offset = 0

    def fold(self, event: m.Record, stamp: int | None) -> Folded:
        folded = self.folder.fold(self.state, KEY, encode(event), self.offset, stamp)
        self.offset += 1
        assert folded is not None
        return folded

    def propose(self) -> str:
        """Two players joined, a wave at NOW + 10 s: the id of the match it proposes."""
        for ticket, player, race in (("t1", "alice", "bw"), ("t2", "bob", "sc2")):
            joined = {
                "ticket_id": ticket,
                "queue": "1v1",
                "region": "eu",
                "joined_at_ms": NOW,
                "players": [{"player_id": player, "ratings": {race: 1500}}],
            }
            assert self.fold(m.TicketJoined.model_validate(joined), NOW).rejection is None
        return self.match_of(self.tick(10_000))

    def tick(self, after_ms: int) -> Folded:
        at = NOW + after_ms
        tick = m.WaveTick(
            queue="1v1",
            region="eu",
            wave_id=str(at),
            sequence=at,
            tick_at_ms=at,
            config_fingerprint=self.fingerprint,
            interval_ms=10_000,
        )
        return self.fold(tick, at)

    @staticmethod
    def match_of(folded: Folded) -> str:
        """The wave's one match: created (placement only) or proposed (ready check)."""
        assert folded.step is not None
        if folded.step.matches:
            return folded.step.matches[0].match_id
        (proposal,) = folded.step.outputs[:1]
        return proposal.match.match_id  # type: ignore[union-attr]


def answer(match_id: str, player: str, at_ms: int, accepted: bool = True) -> m.Record:
    return m.ReadyCheckAnswered(
        match_id=match_id,
        queue="1v1",
        region="eu",
        player_id=player,
        accepted=accepted,
        answered_at_ms=at_ms,
    )


def report(match_id: str, at_ms: int) -> m.Record:
    return m.PlacementReported(
        match_id=match_id,
        queue="1v1",
        region="eu",
        outcome="FAILED",
        detail="no capacity",
        reported_at_ms=at_ms,
    )


def refused(folded: Folded) -> tuple[str, str | None]:
    assert folded.rejection is not None and folded.step is None
    return folded.rejection.code, folded.rejection.field


def test_a_late_answer_dated_before_the_deadline_is_refused_and_the_check_times_out():
    region = Region(ready_check_ms=5_000)
    match_id = region.propose()  # deadline NOW + 15 s
    forged = answer(match_id, "bob", NOW + 14_000)  # sent two minutes after the deadline
    folded = region.fold(forged, NOW + 15_000 + 2 * SKEW)
    assert refused(folded) == ("implausible_time", "answered_at_ms")
    assert "is -121000 ms from the record's broker timestamp" in folded.rejection.reason
    assert region.fold(answer(match_id, "alice", NOW + 12_000), NOW + 12_500).step.note == (
        "accepted"
    )
    timeout = region.tick(20_000)
    assert [(d.ticket_id, d.reason.name) for d in timeout.step.dequeued[:1]] == [
        ("t2", "ACCEPTANCE_TIMED_OUT")
    ]


def test_an_answer_dated_before_its_proposal_is_refused_though_its_stamp_is_near():
    region = Region(ready_check_ms=5_000)
    match_id = region.propose()  # proposed at NOW + 10 s
    folded = region.fold(answer(match_id, "bob", NOW + 9_000), NOW + 10_500)
    assert refused(folded) == ("implausible_time", "answered_at_ms")
    assert f"before match {match_id} was proposed at {NOW + 10_000}" in folded.rejection.reason
    on_time = region.fold(answer(match_id, "bob", NOW + 10_000), NOW + 10_500)
    assert on_time.rejection is None and on_time.step.note == "accepted"


def test_a_placement_report_dated_a_day_off_is_refused_and_one_without_a_stamp_is_not():
    region = Region(placement_timeout_ms=20_000)
    match_id = region.propose()
    for stamp, at in ((NOW + 11_000, NOW + 11_000 - DAY), (NOW + 11_000, NOW + 11_000 + DAY)):
        assert refused(region.fold(report(match_id, at), stamp)) == (
            "implausible_time",
            "reported_at_ms",
        )
    applied = region.fold(report(match_id, NOW + 11_000 - DAY), None)  # an old export
    assert applied.rejection is None and applied.step.note == "placement_failed"


def test_the_dead_letter_names_the_field_on_the_wire():
    from streams.wire.outbound import Writer
    from streams.worker.outputs import records_of

    region = Region(ready_check_ms=5_000)
    match_id = region.propose()
    value = encode(answer(match_id, "bob", NOW + DAY))
    folded = region.folder.fold(region.state, KEY, value, region.offset, NOW + 11_000)
    ((_, _, letter),) = records_of(
        Writer(), folded, topic="wavematch.queue.v1", partition=0, key=KEY, value=value
    )
    dead = decode(letter)
    assert (dead.error_code, dead.field) == ("implausible_time", "answered_at_ms")


def test_a_backfill_request_dated_ahead_is_refused_so_it_cannot_outlive_its_lifetime():
    region = Region()
    team = {"name": "red", "players": [], "open_slots": 1}  # a 1v1 seat left open

    def request(session: str, at_ms: int) -> m.BackfillRequested:
        return m.BackfillRequested.model_validate(
            {
                "session_id": session,
                "queue": "1v1",
                "region": "eu",
                "teams": [team],
                "requested_at_ms": at_ms,
            }
        )

    ahead = region.fold(request("s-ahead", NOW + DAY), NOW).rejection
    assert ahead is not None
    assert (ahead.code, ahead.field) == ("implausible_time", "requested_at_ms")
    assert region.fold(request("s-now", NOW + SKEW), NOW).rejection is None
