"""Ready checks and placement reports in the region's fold: every deadline decided at a
tick, every returned ticket keeping the wave it joined in (docs/adr/0111)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from matcher.core import QueueProfile
from matcher.queue import DequeueReason, QueueRules, TicketJoined, TicketLeft, WaveTick
from matcher.queue.book import QueueBook
from matcher.queue.events import LeaveReason
from matcher.queue.lifecycle import (
    LifecyclePolicy,
    LifecycleRejected,
    MatchProposal,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
    StageStatus,
    TicketStage,
)
from matcher.queue.records import queue_from_record, queue_to_record
from tests.queue.conftest import PAIRS, make_ticket

RULES = QueueRules(ticket_ttl_ms=600_000, finished_retention_ms=600_000)
READY = LifecyclePolicy(ready_check_ms=5_000)
PLACED = LifecyclePolicy(placement_timeout_ms=20_000, placement_requeues=1)


def book(policy: LifecyclePolicy) -> QueueBook:
    profile = QueueProfile(queue="1v1", strategy=PAIRS, maps=("alpha",))
    return QueueBook({"1v1": profile}, {"1v1": ("eu",)}, RULES, policies={"1v1": policy})


def tick(n: int) -> WaveTick:
    return WaveTick("1v1", "eu", f"w{n}", n, 10_000 * n, "cfg", 10_000)


def join(b: QueueBook, ticket_id: str, at_ms: int = 1_000):
    return b.apply(TicketJoined(make_ticket(ticket_id, queue="1v1", joined_at_ms=at_ms)))


def answer(b: QueueBook, match_id: str, player: str, accepted: bool, at_ms: int):
    return b.apply(ReadyCheckAnswered(match_id, "1v1", "eu", player, accepted, at_ms))


def proposal(step) -> MatchProposal:
    (found,) = [o for o in step.outputs if isinstance(o, MatchProposal)]
    return found


def stages(step) -> dict[str, StageStatus]:
    return {o.ticket_id: o for o in step.outputs if isinstance(o, StageStatus)}


def test_a_ready_check_proposes_and_reserves_the_seats():
    b = book(READY)
    join(b, "a")
    join(b, "b")
    step = b.apply(tick(1))
    assert step.matches == () and step.dequeued == ()
    made = proposal(step)
    assert made.deadline_at_ms == 15_000 and made.at_ms == 10_000
    assert {t: s.stage for t, s in stages(step).items()} == {
        "a": TicketStage.REQUIRES_ACCEPTANCE,
        "b": TicketStage.REQUIRES_ACCEPTANCE,
    }
    assert all(s.deadline_ms == 15_000 for s in stages(step).values())
    # Seats reserved: the player cannot join again, and the next wave does not offer it.
    assert join(b, "a2").note == "joined"
    again = b.apply(TicketJoined(make_ticket("x", "p-a", queue="1v1")))
    assert again.dequeued[0].detail == "player p-a is already queued in ticket a"
    before_deadline = b.apply(WaveTick("1v1", "eu", "w1b", 2, 12_000, "cfg", 10_000))
    assert before_deadline.result is not None
    assert before_deadline.result.unmatched == ("a2",)  # a and b are not offered
    assert made.match.match_id in b.regions["1v1", "eu"].life.proposals


def test_all_accept_creates_the_match_and_dequeues_matched():
    b = book(READY)
    join(b, "a")
    join(b, "b")
    made = proposal(b.apply(tick(1)))
    assert answer(b, made.match.match_id, "p-a", True, 11_000).note == "accepted"
    step = answer(b, made.match.match_id, "p-b", True, 12_000)
    created = [o for o in step.outputs if isinstance(o, MatchProposal)]
    assert created[0].deadline_at_ms is None and created[0].at_ms == 12_000
    assert created[0].match == made.match
    assert [(d.ticket_id, d.reason, d.match_id) for d in step.dequeued] == [
        ("a", DequeueReason.MATCHED, made.match.match_id),
        ("b", DequeueReason.MATCHED, made.match.match_id),
    ]
    assert {s.stage for s in stages(step).values()} == {TicketStage.MATCHED}


def test_a_decline_dequeues_the_decliner_and_the_other_keeps_its_wait():
    b = book(READY)
    join(b, "early")
    b.apply(tick(1))  # one wave alone: early has waited one wave
    join(b, "decliner", at_ms=12_000)
    made = proposal(b.apply(tick(2)))
    assert answer(b, made.match.match_id, "p-early", True, 20_500).note == "accepted"
    step = answer(b, made.match.match_id, "p-decliner", False, 21_000)
    (gone,) = step.dequeued
    assert (gone.ticket_id, gone.reason) == ("decliner", DequeueReason.DECLINED)
    back = stages(step)["early"]
    assert back.stage is TicketStage.SEARCHING and "declined" in (back.detail or "")
    assert back.waves_waited == 2
    join(b, "late", at_ms=25_000)
    region = b.regions["1v1", "eu"]
    assert list(region.tickets) == ["early", "late"]  # not sent to the back
    matched = b.apply(tick(3))
    assert [t for t in proposal(matched).match.ticket_ids()] == ["early", "late"]
    assert stages(matched)["early"].waves_waited == 3


def test_an_answer_counts_once_and_a_decline_after_ones_own_accept_still_cancels():
    """docs/ready-checks.md: a second acceptance changes nothing; a later decline cancels."""
    b = book(READY)
    join(b, "a")
    join(b, "b")
    made = proposal(b.apply(tick(1)))
    match_id = made.match.match_id
    assert answer(b, match_id, "p-a", True, 11_000).note == "accepted"
    again = answer(b, match_id, "p-a", True, 11_500)
    assert (again.note, again.outputs, again.dequeued) == ("accepted", (), ())
    assert match_id in b.regions["1v1", "eu"].life.proposals  # not created by one player
    step = answer(b, match_id, "p-a", False, 12_000)
    assert [(d.ticket_id, d.reason) for d in step.dequeued] == [("a", DequeueReason.DECLINED)]
    assert stages(step)["b"].stage is TicketStage.SEARCHING


def test_a_join_sent_again_during_its_ready_check_changes_nothing():
    """Not a second ticket of the same player (REJECTED under the held ticket's own id,
    which the platform would read as its end): the first join of an id wins."""
    b = book(READY)
    join(b, "a")
    join(b, "b")
    made = proposal(b.apply(tick(1)))
    again = join(b, "a", at_ms=10_500)
    assert (again.note, again.outputs, again.dequeued) == ("duplicate", (), ())
    assert answer(b, made.match.match_id, "p-a", True, 11_000).note == "accepted"
    step = answer(b, made.match.match_id, "p-b", True, 12_000)
    assert [d.reason for d in step.dequeued] == [DequeueReason.MATCHED] * 2


@pytest.mark.parametrize("restored", [False, True], ids=["live", "restored"])
def test_a_join_sent_again_with_other_players_during_its_ready_check_changes_nothing(
    restored: bool,
):
    """The same ticket id with another player, in a queue without claims: not a second
    ticket of that id, live or after a snapshot of the held match."""
    b = book(READY)
    join(b, "a")
    join(b, "b")
    made = proposal(b.apply(tick(1)))
    if restored:
        saved = queue_to_record(b.regions["1v1", "eu"])
        b = book(READY)
        b.regions["1v1", "eu"] = queue_from_record(saved)
    other = make_ticket("a", "p-other", queue="1v1", joined_at_ms=10_500)
    again = b.apply(TicketJoined(other))
    assert (again.note, again.outputs, again.dequeued) == ("duplicate", (), ())
    region = b.regions["1v1", "eu"]
    assert "a" not in region.tickets and "p-other" not in region.player_ticket
    step = answer(b, made.match.match_id, "p-b", False, 11_000)
    assert stages(step)["a"].stage is TicketStage.SEARCHING  # the held ticket, back
    assert [p.player_id for p in region.tickets["a"].ticket.players] == ["p-a"]
    assert not region.life.holds_ticket("a")


def test_a_join_sent_again_with_a_player_queued_elsewhere_during_its_ready_check_changes_nothing():
    """The held ticket's id sent again with a player another ticket queues: not REJECTED
    under the held ticket's own id (which the platform would read as its end)."""
    b = book(READY)
    join(b, "a")
    join(b, "b")
    made = proposal(b.apply(tick(1)))
    join(b, "c", at_ms=10_200)
    other = make_ticket("a", "p-c", queue="1v1", joined_at_ms=10_500)
    again = b.apply(TicketJoined(other))
    assert (again.note, again.outputs, again.dequeued) == ("duplicate", (), ())
    step = answer(b, made.match.match_id, "p-b", False, 11_000)
    assert stages(step)["a"].stage is TicketStage.SEARCHING  # the held ticket, back


def test_no_answer_by_the_deadline_times_out_at_a_tick():
    b = book(READY)
    join(b, "a")
    join(b, "b")
    made = proposal(b.apply(tick(1)))
    answer(b, made.match.match_id, "p-a", True, 11_000)
    step = b.apply(tick(2))  # 20,000 >= the deadline 15,000
    timed_out = [d for d in step.dequeued if d.reason is DequeueReason.ACCEPTANCE_TIMED_OUT]
    assert [d.ticket_id for d in timed_out] == ["b"]
    assert stages(step)["a"].stage is TicketStage.SEARCHING
    assert "a" in b.regions["1v1", "eu"].tickets


@pytest.mark.parametrize(
    ("match_id", "player", "at_ms", "code"),
    [
        ("nope", "p-a", 11_000, "unknown_match"),
        (None, "p-zed", 11_000, "not_in_match"),
        (None, "p-a", 15_001, "answer_too_late"),
    ],
)
def test_bad_answers_are_rejected_with_a_code(match_id, player, at_ms, code):
    b = book(READY)
    join(b, "a")
    join(b, "b")
    made = proposal(b.apply(tick(1)))
    with pytest.raises(LifecycleRejected) as error:
        answer(b, match_id or made.match.match_id, player, False, at_ms)
    assert error.value.code == code


def test_an_answer_after_the_match_was_decided_is_match_closed():
    b = book(READY)
    join(b, "a")
    join(b, "b")
    made = proposal(b.apply(tick(1)))
    answer(b, made.match.match_id, "p-a", False, 11_000)
    with pytest.raises(LifecycleRejected) as error:
        answer(b, made.match.match_id, "p-b", True, 12_000)
    assert error.value.code == "match_closed"


def test_an_answer_for_an_unknown_queue_is_rejected():
    b = book(READY)
    with pytest.raises(LifecycleRejected) as error:
        b.apply(ReadyCheckAnswered("m", "5v5", "eu", "p", True, 1_000))
    assert error.value.code == "unknown_queue"


def test_a_leave_during_the_ready_check_returns_the_other_ticket():
    b = book(READY)
    join(b, "a")
    join(b, "b")
    b.apply(tick(1))
    step = b.apply(TicketLeft("a", "1v1", "eu", LeaveReason.REQUESTED, 11_000))
    assert [(d.ticket_id, d.reason) for d in step.dequeued] == [("a", DequeueReason.LEFT)]
    assert list(b.regions["1v1", "eu"].tickets) == ["b"]


def test_a_failed_placement_requeues_then_dequeues_after_the_limit():
    b = book(PLACED)
    join(b, "a")
    join(b, "b")
    first = b.apply(tick(1))
    (match,) = first.matches  # created at once: no ready check
    assert first.dequeued == ()
    assert {s.stage for s in stages(first).values()} == {TicketStage.PLACING}
    failed = b.apply(
        PlacementReported(match.match_id, "1v1", "eu", PlacementOutcome.FAILED, 12_000, "no server")
    )
    assert failed.dequeued == ()
    back = stages(failed)["a"]
    assert back.stage is TicketStage.SEARCHING and "no server" in (back.detail or "")
    assert back.waves_waited == 1
    (again,) = b.apply(tick(2)).matches
    final = b.apply(PlacementReported(again.match_id, "1v1", "eu", PlacementOutcome.FAILED, 22_000))
    assert {(d.ticket_id, d.reason) for d in final.dequeued} == {
        ("a", DequeueReason.PLACEMENT_FAILED),
        ("b", DequeueReason.PLACEMENT_FAILED),
    }
    assert not b.regions["1v1", "eu"].tickets


def test_a_started_placement_dequeues_matched_and_silence_counts_as_started():
    b = book(PLACED)
    for t in "abcd":
        join(b, t)
    first, second = b.apply(tick(1)).matches
    step = b.apply(PlacementReported(first.match_id, "1v1", "eu", PlacementOutcome.STARTED, 11_000))
    assert {d.reason for d in step.dequeued} == {DequeueReason.MATCHED}
    later = b.apply(tick(4))  # 40,000 >= 10,000 + 20,000: the second is taken as started
    assert {(d.ticket_id, d.match_id) for d in later.dequeued} == {
        ("c", second.match_id),
        ("d", second.match_id),
    }
    with pytest.raises(LifecycleRejected) as error:
        b.apply(PlacementReported(second.match_id, "1v1", "eu", PlacementOutcome.FAILED, 41_000))
    assert error.value.code == "match_closed"


def test_a_snapshot_of_held_tickets_continues_exactly():
    """Snapshot in the middle of a ready check + the rest == the whole log."""

    def events(match_id: str | None):
        return [ReadyCheckAnswered(match_id or "", "1v1", "eu", "p-a", True, 11_000), tick(2)]

    whole = book(READY)
    join(whole, "a")
    join(whole, "b")
    made = proposal(whole.apply(tick(1)))
    saved = queue_to_record(whole.regions["1v1", "eu"])
    restored = book(READY)
    restored.regions["1v1", "eu"] = queue_from_record(saved)
    for event in events(made.match.match_id):
        assert whole.apply(event) == restored.apply(event)
    assert queue_to_record(whole.regions["1v1", "eu"]) == queue_to_record(
        restored.regions["1v1", "eu"]
    )


def test_seat_data_survives_a_snapshot_of_the_queue_and_of_the_held_match():
    """A ticket's opaque data (docs/adr/0173) is in the queue's snapshot while it waits and
    in the held match's: the match created after the snapshot still carries it."""

    def with_data(ticket_id: str) -> TicketJoined:
        ticket = make_ticket(ticket_id, queue="1v1", joined_at_ms=1_000)
        player = replace(ticket.players[0], data=(("skin", ticket_id),))
        return TicketJoined(replace(ticket, players=(player,), data=(("build", "7"),)))

    def restored(b: QueueBook) -> QueueBook:
        copy = book(READY)
        saved = json.loads(json.dumps(queue_to_record(b.regions["1v1", "eu"])))
        copy.regions["1v1", "eu"] = queue_from_record(saved)
        return copy

    b = book(READY)
    b.apply(with_data("a"))
    join(b, "b")
    b = restored(b)  # while the tickets wait
    made = proposal(b.apply(tick(1)))
    b = restored(b)  # while the match is held
    answer(b, made.match.match_id, "p-a", True, 11_000)
    step = answer(b, made.match.match_id, "p-b", True, 12_000)
    (created,) = [o for o in step.outputs if isinstance(o, MatchProposal)]
    assert created.deadline_at_ms is None
    data = {s.player_id: s.data for t in created.match.teams for s in t.seats}
    assert data == {"p-a": (("build", "7"), ("skin", "a")), "p-b": ()}
