"""`wavematch explain --ticket` explains a requeue (who declined, the failed placement and
the requeues left) and a timeout (the deadline, the tick that decided it, who had not
answered), from a log folded by the worker's own fold (docs/adr/0115)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streams.audit.history import ticket_history
from streams.audit.logfile import write_log
from streams.cli import main
from tests.streams.test_lifecycle_log import (
    T0,
    Log,
    answer,
    fingerprinted,
    join,
    proposals,
    report,
    settings,
    tick,
)


def story(log: Log, ticket_id: str) -> list[str]:
    """The ticket's lines without their [partition offset] prefix."""
    return [line.split("] ", 1)[1] for line in ticket_history(log.folder, log.records, ticket_id)]


def declined_then_timed_out() -> tuple[Log, str, str]:
    """alice (t1) and bob (t2) proposed, bob declines; alice and dave (t3) proposed, only
    alice accepts, the ready check times out at the tick of second 30."""
    config = settings(ready_check_ms=5_000)
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(fingerprinted(config, tick(10)))
    first = proposals(log)[-1].match_id
    log.send(answer(first, "bob", False, 11))
    log.send(join("t3", "dave", "sc2", at=12))
    log.send(fingerprinted(config, tick(20)))
    second = proposals(log)[-1].match_id
    log.send(answer(second, "alice", True, 21))
    log.send(fingerprinted(config, tick(30)))
    return log, first, second


def test_a_requeue_names_who_declined_and_who_had_accepted_or_not_answered():
    log, first, _ = declined_then_timed_out()
    lines = story(log, "t1")
    back = lines.index(next(x for x in lines if x.startswith("SEARCHING after 1 waves")))
    assert lines[back + 1] == (
        f"requeued: bob (ticket t2) declined match {first} at {T0 + 11_000}; "
        "accepted by nobody; not answered yet by alice (ticket t1)"
    )
    assert f"declined: bob declined match {first} at {T0 + 11_000}" in story(log, "t2")


def test_a_timeout_names_the_deadline_the_deciding_tick_and_who_had_not_answered():
    log, _, second = declined_then_timed_out()
    at = T0 + 30_000
    expected = (
        f"timed out: ready check of match {second}, deadline {T0 + 25_000}, decided by the "
        f"WaveTick of wave {at} at {at}; no answer from dave (ticket t3); accepted by alice"
    )
    accepted, silent = story(log, "t1"), story(log, "t3")
    assert accepted[-2].startswith("SEARCHING after 2 waves: returned to the queue")
    assert accepted[-1] == expected
    assert silent[-2].startswith("dequeued ACCEPTANCE_TIMED_OUT after 1 waves")
    assert silent[-1] == expected
    tick_line = ticket_history(log.folder, log.records, "t3")[-1]
    tick_record = next(r for r in reversed(log.records) if b'"WaveTick"' in (r.value or b""))
    assert tick_line.startswith(
        f"[partition {tick_record.partition} offset {tick_record.offset}] timed out"
    )


def test_a_repeated_acceptance_is_named_once_and_a_decliner_is_not_counted_accepted():
    """A platform's retried accept (or a player who accepts, then declines) is no second
    acceptance: the lines name each player once, by what they last said."""
    config = settings(ready_check_ms=5_000)
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(fingerprinted(config, tick(10)))
    first = proposals(log)[-1].match_id
    log.send(answer(first, "alice", True, 11))
    log.send(answer(first, "alice", True, 12))  # retried
    log.send(fingerprinted(config, tick(20)))
    assert story(log, "t2")[-1].endswith("no answer from bob (ticket t2); accepted by alice")
    log.send(join("t3", "carol", "bw", at=21))
    log.send(join("t4", "dave", "sc2", at=21))
    log.send(fingerprinted(config, tick(30)))
    second = next(p.match_id for p in proposals(log) if p.match_id != first)
    seats = [seat for team in proposals(log)[-1].teams for seat in team.players]
    ticket_of = {seat.player_id: seat.ticket_id for seat in seats}
    changer, other = sorted(ticket_of)
    log.send(answer(second, changer, True, 31))
    log.send(answer(second, changer, False, 32))  # changed their mind: declined
    assert story(log, ticket_of[other])[-1] == (
        f"requeued: {changer} (ticket {ticket_of[changer]}) declined match {second} at "
        f"{T0 + 32_000}; accepted by nobody; not answered yet by {other} (ticket "
        f"{ticket_of[other]})"
    )


def test_a_failed_placement_says_its_reason_and_the_requeues_left():
    config = settings(placement_timeout_ms=20_000, placement_requeues=1)
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(fingerprinted(config, tick(10)))
    first = log.published("wavematch.matches.v1")[-1].match_id
    log.send(report(first, "FAILED", 11))
    log.send(fingerprinted(config, tick(20)))
    second = log.published("wavematch.matches.v1")[-1].match_id
    log.send(report(second, "FAILED", 21))
    lines = story(log, "t1")
    assert (
        f"requeued: placement of match {first} failed at {T0 + 11_000} (no capacity); "
        "placement requeue 1 of 1 used, 0 left"
    ) in lines
    assert lines[-2].startswith("dequeued PLACEMENT_FAILED")
    assert lines[-1] == (
        f"not requeued: placement of match {second} failed at {T0 + 21_000} (no capacity); "
        "all 1 placement requeues were used"
    )


def test_an_unreported_placement_names_its_deadline_and_the_tick():
    config = settings(placement_timeout_ms=20_000)
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(fingerprinted(config, tick(10)))
    match_id = log.published("wavematch.matches.v1")[-1].match_id
    log.send(fingerprinted(config, tick(40)))
    assert story(log, "t2")[-1] == (
        f"placement of match {match_id} not reported by its deadline {T0 + 30_000}: decided "
        f"by the WaveTick of wave {T0 + 40_000} at {T0 + 40_000} counted it started"
    )


def test_the_command_shows_the_lines_from_an_exported_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _, second = declined_then_timed_out()
    exported = tmp_path / "queue.avro"
    write_log(exported, log.records, {"source": "test"})
    config = tmp_path / "wavematch.toml"
    config.write_text(
        'partitions = 4\none_ticket_per_player = true\n[[queues]]\nname = "1v1"\n'
        'regions = ["eu", "na"]\nmaps = ["Polypoid"]\nready_check_ms = 5000\n'
    )
    assert main(["explain", "--ticket", "t3", "--log", str(exported), "--config", str(config)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[0] == "ticket t3"
    assert shown[-1].endswith("no answer from dave (ticket t3); accepted by alice")
    assert f"timed out: ready check of match {second}" in shown[-1]

    assert (
        main(
            ["explain", "--ticket", "t3", "--log", str(exported), "--config", str(config), "--json"]
        )
        == 0
    )
    told = json.loads(capsys.readouterr().out)
    assert told["ticket_id"] == "t3"
    assert [
        f"  [partition {s['partition']} offset {s['offset']}] {s['text']}" for s in told["steps"]
    ] == shown[1:]


def test_a_proposal_ended_by_a_leave_is_not_told_as_a_later_timeout():
    from schemas import models as m

    config = settings(ready_check_ms=5_000)
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(fingerprinted(config, tick(10)))
    left = {"ticket_id": "t2", "queue": "1v1", "region": "eu", "reason": "REQUESTED"}
    log.send(m.TicketLeft.model_validate(left | {"left_at_ms": T0 + 11_000}))
    log.send(join("t3", "dave", "sc2", at=12))
    log.send(fingerprinted(config, tick(20)))
    second = proposals(log)[-1].match_id
    log.send(fingerprinted(config, tick(30)))
    timeouts = [line for line in story(log, "t1") if line.startswith("timed out")]
    assert len(timeouts) == 1 and f"match {second}," in timeouts[0]
    assert "no answer from alice (ticket t1), dave (ticket t3)" in timeouts[0]


def test_explain_of_a_match_its_first_player_left_while_placing_tells_its_end():
    """A leave during placement leaves the match standing (docs/ready-checks.md "A player
    who leaves"): explain MATCH_ID tells how it ended, not only the leaver's PLACING."""
    from schemas import models as m
    from streams.audit.answers import match_answer

    config = settings(placement_timeout_ms=20_000)
    log = Log(config)
    log.send(join("t1", "alice", "bw"))
    log.send(join("t2", "bob", "sc2"))
    log.send(fingerprinted(config, tick(10)))
    match_id = log.published("wavematch.matches.v1")[-1].match_id
    first_seat = log.published("wavematch.matches.v1")[-1].teams[0].players[0].ticket_id
    other = {"t1": "t2", "t2": "t1"}[first_seat]
    log.send(
        m.TicketLeft(
            ticket_id=first_seat,
            queue="1v1",
            region="eu",
            reason="REQUESTED",
            left_at_ms=T0 + 11_000,
        )
    )
    log.send(report(match_id, "STARTED", 12))
    lines = match_answer(log.folder, log.records, match_id, 3)
    assert lines is not None
    header = f"after the wave (ticket {other}'s record of it):"
    assert header in lines
    after = [line.split("] ", 1)[1] for line in lines[lines.index(header) + 1 :]]
    assert after == [
        f"MATCHED after 1 waves, match {match_id}",
        f"dequeued MATCHED after 1 waves, match {match_id}",
    ]
