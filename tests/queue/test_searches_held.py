"""Tickets searching several places in queues that hold their matches after the wave
(docs/adr/0197): the search claim is held through the ready check and the placement;
the other places are told only once the match is made, and a match not made gives the
claim back (or, for a ticket that leaves, ends its search everywhere)."""

from __future__ import annotations

import pytest

from matcher.core import QueueProfile
from matcher.queue import DequeueReason, QueueRules, Searching, TicketLeft, WaveSummary
from matcher.queue.book import QueueBook
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested, SearchHeld
from matcher.queue.events import LeaveReason, Search
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
from tests.queue.conftest import PAIRS
from tests.queue.test_searches import Log, join, tick

RULES = QueueRules(ticket_ttl_ms=600_000, finished_retention_ms=600_000)
BOTH = (Search("1v1", "eu"), Search("1v1", "na"))
READY = LifecyclePolicy(ready_check_ms=10_000)
PLACING = LifecyclePolicy(placement_timeout_ms=10_000, placement_requeues=1)


def book(policy: LifecyclePolicy) -> QueueBook:
    profile = QueueProfile(queue="1v1", strategy=PAIRS, maps=("alpha",))
    return QueueBook({"1v1": profile}, {"1v1": ("eu", "na")}, RULES, policies={"1v1": policy})


def proposed(log: Log) -> list[MatchProposal]:
    return [o for s in log.steps for o in s.outputs if type(o) is MatchProposal]


def created_players(log: Log) -> list[str]:
    return sorted(
        seat.player_id
        for p in proposed(log)
        if p.deadline_at_ms is None
        for team in p.match.teams
        for seat in team.seats
    )


def outputs_of(log: Log, kind: type) -> list:
    return [o for s in log.steps for o in s.outputs if type(o) is kind]


def proposal_in_eu(policy: LifecyclePolicy) -> tuple[QueueBook, Log, str]:
    """alice (t) searches eu and na; bob (b) waits in eu, carol (c) in na. eu's wave
    matches t with b; its claim is granted."""
    b = book(policy)
    log = Log(b)
    log.fold(join("t", "alice", searches=BOTH), join("b", "bob"), join("c", "carol", region="na"))
    log.settle()
    (wave,) = log.fold(tick("1v1", "eu", 1, 2_000))
    assert wave.matches == ()  # tentative
    log.settle()
    (match,) = b.regions["1v1", "eu"].life.proposals or b.regions["1v1", "eu"].life.placing
    return b, log, match


def answer(match: str, player: str, accepted: bool, at_ms: int) -> ReadyCheckAnswered:
    return ReadyCheckAnswered(match, "1v1", "eu", player, accepted, at_ms)


def test_a_granted_match_goes_to_its_ready_check_and_ends_elsewhere_once_accepted():
    b, log, match = proposal_in_eu(READY)
    eu, na = b.regions["1v1", "eu"], b.regions["1v1", "na"]
    (proposal,) = proposed(log)
    assert proposal.deadline_at_ms == proposal.at_ms + 10_000 and proposal.at_ms >= 2_000
    stages = [s for s in outputs_of(log, StageStatus) if s.match_id == match]
    assert sorted((s.ticket_id, s.stage) for s in stages) == [
        ("b", TicketStage.REQUIRES_ACCEPTANCE),
        ("t", TicketStage.REQUIRES_ACCEPTANCE),
    ]
    assert "t" in na.tickets  # still searching there until the match is made
    assert b.claims.searches["t"][0] == match
    log.fold(answer(match, "alice", True, 3_000), answer(match, "bob", True, 3_100))
    assert created_players(log) == ["alice", "bob"]
    log.settle()
    assert "t" not in na.tickets and not eu.life.proposals
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.MATCHED),
        ("1v1", "na", DequeueReason.MATCHED_ELSEWHERE),
    ]


def test_a_match_elsewhere_during_the_ready_check_is_refused_and_its_players_requeued():
    b, log, match = proposal_in_eu(READY)
    na = b.regions["1v1", "na"]
    log.fold(tick("1v1", "na", 1, 2_500))  # na matches t with c: tentative
    log.settle()  # refused: the claim is eu's proposal's
    assert sorted(na.tickets) == ["c", "t"] and not na.life.tentative
    log.fold(answer(match, "alice", True, 3_000), answer(match, "bob", True, 3_100))
    log.settle()
    assert created_players(log) == ["alice", "bob"]
    assert sorted(na.tickets) == ["c"]


def test_a_decline_by_the_other_player_gives_the_claim_back_and_the_search_goes_on():
    b, log, match = proposal_in_eu(READY)
    eu, na = b.regions["1v1", "eu"], b.regions["1v1", "na"]
    log.fold(answer(match, "bob", False, 3_000))
    released = [r for r in outputs_of(log, ClaimReleased) if r.ticket_id == "t"]
    assert [r.match_id for r in released] == [match]
    log.settle()
    assert "t" not in b.claims.searches
    assert "t" in eu.tickets and "t" in na.tickets  # searching in both places again
    log.fold(tick("1v1", "na", 1, 4_000))
    log.settle()  # na's claim is granted now; its own ready check follows
    (na_match,) = na.life.proposals
    for player in ("alice", "carol"):
        log.fold(ReadyCheckAnswered(na_match, "1v1", "na", player, True, 5_000))
    log.settle()
    assert created_players(log) == ["alice", "carol"]
    assert ("1v1", "eu", DequeueReason.MATCHED_ELSEWHERE) in log.dequeued("t")
    assert ("1v1", "eu", DequeueReason.DECLINED) in log.dequeued("b")


def test_a_searching_player_who_declines_ends_every_search():
    b, log, match = proposal_in_eu(READY)
    log.fold(answer(match, "alice", False, 3_000))
    ended = [d for d in outputs_of(log, ClaimDecided) if d.ticket_id == "t" and d.ended]
    assert [(d.queue, d.region, d.ended) for d in ended] == [("1v1", "na", "left")]
    log.settle()
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.DECLINED),
        ("1v1", "na", DequeueReason.LEFT),
    ]
    assert "b" in b.regions["1v1", "eu"].tickets
    assert b.claims.searches["t"][0] == match  # kept: no match elsewhere can take it


def test_a_ready_check_that_times_out_ends_the_silent_searching_ticket_everywhere():
    b, log, match = proposal_in_eu(READY)
    log.fold(answer(match, "bob", True, 3_000))
    log.fold(tick("1v1", "eu", 2, 20_000))  # past the deadline: alice never answered
    log.settle()
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.ACCEPTANCE_TIMED_OUT),
        ("1v1", "na", DequeueReason.LEFT),
    ]
    assert "b" in b.regions["1v1", "eu"].tickets


def test_a_leave_during_the_ready_check_cancels_it_and_ends_the_other_places():
    b, log, _ = proposal_in_eu(READY)
    log.fold(TicketLeft("t", "1v1", "eu", LeaveReason.REQUESTED, 3_000))
    log.settle()
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.LEFT),
        ("1v1", "na", DequeueReason.LEFT),
    ]
    assert "b" in b.regions["1v1", "eu"].tickets and created_players(log) == []


def test_a_placement_holds_the_claim_until_it_starts():
    b, log, match = proposal_in_eu(PLACING)
    na = b.regions["1v1", "na"]
    assert created_players(log) == ["alice", "bob"]  # created at once, then placed
    assert "t" in na.tickets
    log.fold(PlacementReported(match, "1v1", "eu", PlacementOutcome.STARTED, 3_000))
    log.settle()
    assert "t" not in na.tickets
    assert ("1v1", "na", DequeueReason.MATCHED_ELSEWHERE) in log.dequeued("t")


def test_a_failed_placement_requeues_with_the_claim_given_back_then_ends_everywhere():
    b, log, match = proposal_in_eu(PLACING)
    eu, na = b.regions["1v1", "eu"], b.regions["1v1", "na"]
    log.fold(PlacementReported(match, "1v1", "eu", PlacementOutcome.FAILED, 3_000))
    log.settle()
    assert "t" in eu.tickets and "t" in na.tickets and "t" not in b.claims.searches
    log.fold(tick("1v1", "eu", 2, 4_000))  # t and b again: the second failure is the last
    log.settle()
    (again,) = eu.life.placing
    log.fold(PlacementReported(again, "1v1", "eu", PlacementOutcome.FAILED, 5_000))
    log.settle()
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.PLACEMENT_FAILED),
        ("1v1", "na", DequeueReason.LEFT),
    ]


def test_a_snapshot_during_the_ready_check_resumes_the_same():
    def run(snapshot: bool) -> list:
        b, log, match = proposal_in_eu(READY)
        log.fold(tick("1v1", "na", 1, 2_500))
        if snapshot:
            for key, region in list(b.regions.items()):
                b.regions[key] = queue_from_record(queue_to_record(region))
        log.settle()
        log.fold(answer(match, "alice", True, 3_000), answer(match, "bob", True, 3_100))
        log.settle()
        return [o for s in log.steps for o in s.outputs]

    assert run(False) == run(True)


def test_a_wave_during_the_ready_check_keeps_the_held_ticket_s_other_places():
    _, log, match = proposal_in_eu(READY)
    log.fold(tick("1v1", "eu", 2, 5_000))  # before the deadline: forgets no place
    log.fold(answer(match, "alice", True, 6_000), answer(match, "bob", True, 6_100))
    log.settle()
    assert ("1v1", "na", DequeueReason.MATCHED_ELSEWHERE) in log.dequeued("t")


# -- the other places pause while the match is held (docs/adr/0204) ---------------------


def searching_ids(steps: list) -> list[str]:
    """The tickets given a SEARCHING status by ``steps`` (a wave's or a requeue's)."""
    return sorted(
        [o.ticket_id for s in steps for o in s.outputs if type(o) is Searching]
        + [
            o.ticket_id
            for s in steps
            for o in s.outputs
            if type(o) is StageStatus and o.stage is TicketStage.SEARCHING
        ]
    )


def test_the_other_places_pause_the_search_while_the_match_is_held():
    b, log, match = proposal_in_eu(READY)
    na = b.regions["1v1", "na"]
    notices = outputs_of(log, SearchHeld)
    assert [(n.ticket_id, n.queue, n.region, n.match_id, n.holder, n.held) for n in notices] == [
        ("t", "1v1", "na", match, ("1v1", "eu"), True)
    ]
    assert na.life.paused == {"t": match}
    steps = log.fold(tick("1v1", "na", 1, 2_500))
    log.settle()
    assert searching_ids(steps) == ["c"]  # t's status stays eu's REQUIRES_ACCEPTANCE
    assert not na.life.tentative and sorted(na.tickets) == ["c", "t"]  # t not offered
    (summary,) = [o for o in steps[0].outputs if type(o) is WaveSummary]
    assert (summary.tickets_in_snapshot, summary.players_in_snapshot) == (1, 1)
    asked = [r for r in outputs_of(log, ClaimRequested) if r.region == "na"]
    assert asked == []


def test_a_match_not_made_resumes_the_search_elsewhere_with_its_status():
    b, log, match = proposal_in_eu(READY)
    na = b.regions["1v1", "na"]
    log.fold(answer(match, "bob", False, 3_000))
    resumed = [n for n in outputs_of(log, SearchHeld) if not n.held]
    assert [(n.ticket_id, n.region, n.match_id) for n in resumed] == [("t", "na", match)]
    log.settle()
    assert na.life.paused == {}
    steps = log.fold(tick("1v1", "na", 1, 4_000))
    assert searching_ids(steps) == []  # t and c are matched (tentatively) at once
    log.settle()
    assert len(na.life.proposals) == 1  # na's claim granted: its own ready check


def test_a_placement_pauses_the_other_places_and_a_failure_resumes_them():
    b, log, match = proposal_in_eu(PLACING)
    na = b.regions["1v1", "na"]
    assert na.life.paused == {"t": match}
    log.fold(PlacementReported(match, "1v1", "eu", PlacementOutcome.FAILED, 3_000))
    log.settle()
    assert na.life.paused == {}
    assert [n.held for n in outputs_of(log, SearchHeld)] == [True, False]


def test_a_give_back_of_another_match_leaves_the_pause_standing():
    b, log, match = proposal_in_eu(READY)
    na = b.regions["1v1", "na"]
    other = SearchHeld("alice", "t", "1v1", "na", "another-match", ("1v1", "eu"), False, 2_600)
    (step,) = log.fold(other)
    assert step.note == "search_resume_stale" and na.life.paused == {"t": match}


def test_a_pause_survives_a_snapshot():
    b, _, match = proposal_in_eu(READY)
    na = b.regions["1v1", "na"]
    assert queue_from_record(queue_to_record(na)).life.paused == {"t": match}


def test_a_requeue_after_the_pause_publishes_no_status_for_the_paused_ticket():
    """na's tentative match asked before eu's grant; eu's pause notice reaches na before
    the claim's refusal: na puts t back without a SEARCHING status of its own."""
    b = book(READY)
    log = Log(b)
    log.fold(join("t", "alice", searches=BOTH), join("b", "bob"), join("c", "carol", region="na"))
    log.settle()
    log.fold(tick("1v1", "eu", 1, 2_000), tick("1v1", "na", 1, 2_000))
    refusals = []
    while log.todo:
        event = log.todo.popleft()
        if type(event) is ClaimDecided and event.region == "na" and not event.granted:
            refusals.append(event)  # delivered last
            continue
        log.fold(event)
    assert b.regions["1v1", "na"].life.paused
    steps = log.fold(*refusals)
    assert searching_ids(steps) == ["c"]
    assert sorted(b.regions["1v1", "na"].tickets) == ["c", "t"]


def test_a_snapshot_of_a_place_holding_nothing_keeps_its_searching_tickets_places():
    """A restored place whose searching ticket is only queued still asks the ticket's
    search claim before matching it: without its places it would match the ticket a
    second time."""
    b = book(LifecyclePolicy())
    log = Log(b)
    log.fold(join("t", "alice", searches=BOTH), join("c", "carol", region="na"))
    log.settle()
    na = b.regions["1v1", "na"]
    assert not na.life.holds() and "t" in na.life.places
    b.regions["1v1", "na"] = queue_from_record(queue_to_record(na))
    (wave,) = log.fold(tick("1v1", "na", 1, 2_000))
    assert wave.matches == ()  # tentative: asks t's search claim
    assert [r.ticket_id for r in outputs_of(log, ClaimRequested)] == ["t"]


# -- a leave sent to another place while a match holds the ticket (docs/adr/0205) ------


def dequeue_details(log: Log, ticket_id: str) -> list[tuple[str, DequeueReason, str | None]]:
    return [
        (d.region, d.reason, d.detail)
        for s in log.steps
        for d in s.dequeued
        if d.ticket_id == ticket_id
    ]


def test_a_leave_sent_to_another_place_cancels_the_ready_check_at_once():
    b, log, match = proposal_in_eu(READY)
    eu = b.regions["1v1", "eu"]
    log.fold(TicketLeft("t", "1v1", "na", LeaveReason.REQUESTED, 3_000))
    log.settle()
    assert dequeue_details(log, "t") == [
        ("na", DequeueReason.LEFT, "requested"),
        (
            "eu",
            DequeueReason.LEFT,
            f"ticket t left in 1v1/na during the ready check of match {match}",
        ),
    ]
    assert not eu.life.proposals and "b" in eu.tickets  # bob searches again at once
    with pytest.raises(LifecycleRejected, match="already over"):  # a late accept: too late
        log.fold(answer(match, "alice", True, 3_100))
    assert created_players(log) == []
    ended = [d for d in outputs_of(log, ClaimDecided) if d.ticket_id == "t" and d.ended]
    assert [(d.region, d.holder[1:]) for d in ended] == [("eu", ("1v1", "na"))]  # told once


def test_a_leave_sent_to_another_place_during_placement_ends_the_ticket_there_too():
    b, log, match = proposal_in_eu(PLACING)
    log.fold(TicketLeft("t", "1v1", "na", LeaveReason.REQUESTED, 3_000))
    log.settle()
    assert dequeue_details(log, "t") == [
        ("na", DequeueReason.LEFT, "requested"),
        ("eu", DequeueReason.LEFT, "left in 1v1/na"),
    ]
    eu = b.regions["1v1", "eu"]
    assert "t" not in eu.life.players
    # The match was created: bob's placement goes on without alice, as after a leave sent
    # to eu (docs/ready-checks.md).
    assert list(eu.life.placing[match].tickets) == ["b"]
