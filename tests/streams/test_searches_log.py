"""A ticket searching two regions through the worker's own fold and writer, on a
simulated log (docs/adr/0145): the copy, the search claims and the end notice are queue
records folded by their partitions; `replay` re-derives them all; `explain --ticket`
tells the story across both places."""

from __future__ import annotations

import json
from dataclasses import replace

from schemas import models as m
from schemas.codec import decode, encode_json
from schemas.topics import QUEUE, queue_key
from streams.audit.history import ticket_history
from streams.audit.replay import Scope, replay
from streams.commands.replay import render
from streams.settings import QueueSettings, Settings
from tests.streams.test_lifecycle_log import T0, Log, fingerprinted, join, tick

SETTINGS = Settings(
    partitions=4,
    queues=(QueueSettings(name="1v1", regions=("eu", "na"), maps=("Polypoid",)),),
)


def searching(ticket: str, player: str, race: str) -> m.TicketJoined:
    event = join(ticket, player, race)
    return event.model_copy(update={"searches": (m.Search(region="eu"), m.Search(region="na"))})


def race() -> Log:
    """alice searches eu and na; bob waits in eu, carol in na; both regions close a wave
    before either hears of the other's claim."""
    log = Log(SETTINGS)
    log.send(searching("t-alice", "alice", "bw"))
    log.send(join("t-bob", "bob", "sc2"))
    log.send(join("t-carol", "carol", "sc2", region="na"))
    for region in ("na", "eu"):
        event = fingerprinted(SETTINGS, tick(10, region))
        log.produce(QUEUE.name, queue_key("1v1", region), encode_json(event))
    log.drain()
    return log


def test_two_regions_race_for_a_ticket_one_wins_the_log_replays_and_explains():
    log = race()
    created = [e for e in log.published("wavematch.matches.v1") if isinstance(e, m.MatchCreated)]
    (match,) = created
    seated = {s.ticket_id for team in match.teams for s in team.players}
    assert match.region == "na" and seated == {"t-alice", "t-carol"}
    ends = {
        (d.ticket_id, d.region): (d.reason.value, d.detail)
        for d in log.published("wavematch.cleanup.v1")
    }
    assert ends[("t-alice", "na")][0] == "MATCHED"
    assert ends[("t-alice", "eu")][0] == "LEFT"
    assert ends[("t-alice", "eu")][1].startswith("matched_elsewhere: match ")
    assert ("t-bob", "eu") not in ends  # back in the queue, keeping its wait

    report = replay(SETTINGS, log.records)
    assert report.ok, report.differences[:3]
    assert report.verdict.identical[QUEUE.name] >= 4  # copy, request, grant, notice...

    story = ticket_history(log.folder, log.records, "t-alice")
    text = "\n".join(story)
    assert "searching in 1v1/eu at place 1" in text
    assert "copied to 1v1/na, opening at once" in text
    assert "matched tentatively in 1v1/na by match" in text
    assert "claim granted to match" in text
    assert "claim refused to match" in text and "held in 1v1/na" in text
    assert "dequeued MATCHED in 1v1/na" in text
    assert "dequeued LEFT in 1v1/eu after 1 waves: matched_elsewhere" in text


def test_copies_written_with_the_old_exponent_form_replay_identically():
    """A log whose copies were written before msgspec wrote them (``1e+16``, ``1e-07``)
    replays IDENTICAL: the copy's text changed for such floats, not what it reads as."""
    log = Log(SETTINGS)
    event = searching("t-alice", "alice", "bw")
    player = event.players[0].model_copy(update={"numbers": {"reach": 1e16, "tiny": 1e-7}})
    log.send(event.model_copy(update={"players": (player,)}))
    log.send(join("t-carol", "carol", "sc2", region="na"))
    na_tick = encode_json(fingerprinted(SETTINGS, tick(10, "na")))
    log.produce(QUEUE.name, queue_key("1v1", "na"), na_tick)
    log.drain()
    assert len(log.published("wavematch.matches.v1")) == 1
    old_records, copies = [], 0
    for record in log.records:
        value = record.value or b""
        if record.topic == QUEUE.name and b'"searches"' in value and record.key == b"1v1/na":
            assert b'"reach":1e16' in value  # msgspec's form
            old = json.dumps(json.loads(value), ensure_ascii=False, separators=(",", ":"))
            value = old.encode()  # the standard library's JSONEncoder, as copies were written
            assert b'"reach":1e+16' in value and b'"tiny":1e-07' in value
            copies += 1
        old_records.append(replace(record, value=value))
    assert copies == 1
    report = replay(SETTINGS, old_records)
    assert report.ok, report.differences[:3]
    assert report.verdict.identical[QUEUE.name] >= 4


def test_a_platform_join_shaped_as_a_copy_is_input_to_replay_not_a_difference():
    """A join keyed to eu whose searches name na first is what a copy from na looks like.
    No home wrote it: the fold took it as input (it matches in eu), replay folds it the
    same and says so, rather than failing the audit on a platform's record."""
    log = Log(SETTINGS)
    forged = join("t-dave", "dave", "bw").model_copy(
        update={"searches": (m.Search(region="na"), m.Search(region="eu"))}
    )
    log.send(forged)
    log.send(join("t-erin", "erin", "sc2"))
    log.produce(QUEUE.name, queue_key("1v1", "eu"), encode_json(fingerprinted(SETTINGS, tick(10))))
    log.drain()
    (match,) = log.published("wavematch.matches.v1")
    assert {s.ticket_id for team in match.teams for s in team.players} == {"t-dave", "t-erin"}
    report = replay(SETTINGS, log.records)
    assert report.ok, report.differences
    assert report.foreign_copies == ["t-dave"] and report.waves_checked == 1
    text = render(report)
    assert "platform copies      1 joins whose searches name another place first" in text
    assert text.endswith("verdict              IDENTICAL")


def test_a_place_not_yet_open_refuses_a_copy_it_cannot_admit_at_once():
    """docs/adr/0203: the far place's latency rule refuses the copy when it arrives, 30 s
    before the place would open; the home keeps searching."""
    settings = Settings(
        partitions=4,
        queues=(
            QueueSettings(name="1v1", regions=("eu",), maps=("Polypoid",)),
            QueueSettings(
                name="far",
                regions=("na",),
                maps=("Polypoid",),
                strategy="rebalance",
                team_size=1,
                rules={
                    "rating": "bw",
                    "checks": [{"name": "ping", "kind": "latency", "max_ms": 100}],
                },
            ),
        ),
    )
    log = Log(settings)
    body = join("t1", "alice", "bw").model_dump(mode="json")
    body["players"][0]["latency_ms"] = {"na": 300, "eu": 20}
    body["searches"] = [{"region": "eu"}, {"queue": "far", "region": "na", "open_after_ms": 30_000}]
    log.send(m.TicketJoined.model_validate(body))
    (searching_,) = log.published("wavematch.status.v1")
    assert (searching_.queue, searching_.region, searching_.state.value) == (
        "1v1",
        "eu",
        "SEARCHING",
    )
    (refused,) = log.published("wavematch.cleanup.v1")
    assert (refused.queue, refused.region, refused.reason.value) == ("far", "na", "REJECTED")
    assert refused.detail == "player alice: rule 'ping': latency 300 ms exceeds 100"
    assert refused.at_ms == body["joined_at_ms"]


def test_a_replay_narrowed_to_a_queue_or_region_judges_it_identical():
    """A region's decisions depend on the other places' records (the copy, the claims):
    a narrowed replay folds the whole queue log and judges only the narrowed outputs."""
    log = race()
    assert len(log.published("wavematch.matches.v1")) == 1
    for scope in (Scope(region="eu"), Scope("1v1", "eu"), Scope("1v1", "na"), Scope("1v1")):
        report = replay(SETTINGS, log.records, scope)
        assert report.ok, (scope, report.differences[:3])
        assert report.foreign_copies == []
    judged = replay(SETTINGS, log.records, Scope("1v1", "eu")).verdict.identical
    assert judged.get("wavematch.matches.v1", 0) == 0  # the match is na's: not judged


def test_explain_finds_a_match_published_when_its_claim_was_granted():
    """The wave makes the match; the claim's grant publishes it, records later."""
    from streams.audit.answers import match_answer

    log = Log(SETTINGS)
    log.send(searching("t-alice", "alice", "bw"))
    log.send(join("t-carol", "carol", "sc2", region="na"))
    event = fingerprinted(SETTINGS, tick(10, "na"))
    log.produce(QUEUE.name, queue_key("1v1", "na"), encode_json(event))
    log.drain()
    (match,) = log.published("wavematch.matches.v1")
    lines = match_answer(log.folder, log.records, match.match_id, 3)
    assert lines is not None
    assert lines[0].startswith(f"match {match.match_id} (")
    assert any("1v1/na wave" in line for line in lines)


def test_a_ticket_story_across_partitions_is_in_time_order_and_tells_a_leave():
    """An export writes each partition's records in turn: the story interleaves them
    by their broker timestamps, and a leave's claim is told as one, not as a match."""
    log = Log(SETTINGS)
    log.send(searching("t-alice", "alice", "bw"))
    log.send(
        m.TicketLeft(
            ticket_id="t-alice", queue="1v1", region="eu", reason="REQUESTED", left_at_ms=T0 + 5_000
        )
    )
    stamped = [replace(r, timestamp=T0 + number) for number, r in enumerate(log.records)]
    exported = sorted(stamped, key=lambda r: (r.topic, r.partition, r.offset))
    assert len({r.partition for r in exported if r.topic == QUEUE.name}) > 1

    story = ticket_history(log.folder, exported, "t-alice")

    assert story == ticket_history(log.folder, stamped, "t-alice")
    assert story[0].endswith("searching in 1v1/eu at place 1")
    assert any("left 1v1/eu: its claim holds the ticket" in line for line in story)
    assert not any("by match :" in line for line in story)
    assert "dequeued LEFT in 1v1/na" in story[-1]


def test_a_join_searching_a_place_not_run_is_refused_whole_with_no_copy():
    log = Log(SETTINGS)
    event = join("t-alice", "alice", "bw")
    places = (m.Search(region="eu"), m.Search(region="na"), m.Search(region="mars"))
    log.send(event.model_copy(update={"searches": places}))
    queue_records = [r for r in log.records if r.topic == QUEUE.name]
    assert len(queue_records) == 1  # the join alone: no copy written anywhere
    (refused,) = log.published("wavematch.cleanup.v1")
    assert (refused.ticket_id, refused.region, refused.reason.value) == (
        "t-alice",
        "eu",
        "REJECTED",
    )
    assert refused.detail == "searches: queue '1v1' is not open in region 'mars'"
    assert log.published("wavematch.status.v1") == []
    assert replay(SETTINGS, log.records).ok


READY = Settings(
    partitions=4,
    queues=(
        QueueSettings(name="1v1", regions=("eu", "na"), maps=("Polypoid",), ready_check_ms=20_000),
    ),
)


def test_a_ready_check_elsewhere_pauses_a_place_s_statuses_until_the_match_is_not_made():
    """alice searches eu and na; na's match of alice and carol goes to its ready check, so
    eu publishes no SEARCHING for alice over na's REQUIRES_ACCEPTANCE; carol declines,
    and eu's next wave shows alice searching there again (docs/adr/0204)."""
    log = Log(READY)
    log.send(searching("t-alice", "alice", "bw"))
    log.send(join("t-carol", "carol", "sc2", region="na"))
    log.send(fingerprinted(READY, tick(10, "na")))
    (proposed,) = [e for e in log.published("wavematch.matches.v1") if e.region == "na"]
    log.send(fingerprinted(READY, tick(12, "eu")))

    def eu_wave_statuses() -> list[str | None]:
        return [
            s.wave_id
            for s in log.published("wavematch.status.v1")
            if s.ticket_id == "t-alice" and s.region == "eu" and s.wave_id is not None
        ]

    assert eu_wave_statuses() == []
    latest = [s for s in log.published("wavematch.status.v1") if s.ticket_id == "t-alice"][-1]
    assert latest.stage is m.TicketStage.REQUIRES_ACCEPTANCE and latest.region == "na"
    declined = m.ReadyCheckAnswered(
        match_id=proposed.match_id,
        queue="1v1",
        region="na",
        player_id="carol",
        accepted=False,
        answered_at_ms=T0 + 13_000,
    )
    log.send(declined)
    log.send(fingerprinted(READY, tick(14, "eu")))
    assert eu_wave_statuses() == [str(T0 + 14_000)]
    service = [
        decode(r.value) for r in log.records if r.topic == QUEUE.name and r.value[:1] == b"\xc3"
    ]
    notices = [e for e in service if isinstance(e, m.SearchHeld)]
    assert [(n.region, n.holder_region, n.match_id, n.held) for n in notices] == [
        ("eu", "na", proposed.match_id, True),
        ("eu", "na", proposed.match_id, False),
    ]

    report = replay(READY, log.records)
    assert report.ok, report.differences[:3]
    text = "\n".join(ticket_history(log.folder, log.records, "t-alice"))
    assert f"search in 1v1/eu pauses: match {proposed.match_id} in 1v1/na holds it" in text
    assert f"search in 1v1/eu resumes: match {proposed.match_id} in 1v1/na was not made" in text
