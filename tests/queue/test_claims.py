"""One active ticket per player (docs/adr/0110): joins wait for their players' claims;
a second ticket of a held player is rejected naming the first; claims end with the ticket."""

from __future__ import annotations

from collections import deque

from matcher.core import QueueProfile
from matcher.queue import DequeueReason, QueueRules, TicketJoined, TicketLeft, WaveTick
from matcher.queue.book import QueueBook
from matcher.queue.claims import ClaimBook, ClaimDecided, ClaimReleased, ClaimRequested
from matcher.queue.events import LeaveReason
from matcher.queue.outcomes import Step
from matcher.queue.records import queue_from_record, queue_to_record
from tests.queue.conftest import PAIRS, make_ticket

RULES = QueueRules(ticket_ttl_ms=60_000, finished_retention_ms=60_000, claims=True)


def book() -> QueueBook:
    profile = QueueProfile(queue="1v1", strategy=PAIRS, maps=("alpha",))
    return QueueBook({"1v1": profile}, {"1v1": ("eu", "na")}, RULES)


def run(b: QueueBook, *events) -> list[Step]:
    """Fold ``events`` and every claim event they cause, as the log would deliver them."""
    todo, steps = deque(events), []
    while todo:
        step = b.apply(todo.popleft())
        steps.append(step)
        todo.extend(
            o for o in step.outputs if isinstance(o, (ClaimRequested, ClaimDecided, ClaimReleased))
        )
    return steps


def joined(ticket_id: str, player: str, region: str, at_ms: int = 1_000) -> TicketJoined:
    return TicketJoined(
        make_ticket(ticket_id, player, queue="1v1", region=region, joined_at_ms=at_ms)
    )


def test_a_join_waits_for_its_claim_then_searches():
    b = book()
    first = b.apply(joined("t1", "alice", "eu"))
    assert first.note == "pending" and first.statuses == ()
    (request,) = first.outputs
    assert request == ClaimRequested("alice", "t1", "1v1", "eu", 1_000)
    steps = run(b, request)
    assert [s.note for s in steps] == ["claim", "joined"]
    assert steps[1].statuses[0].ticket_id == "t1"


def test_a_second_queue_join_is_rejected_naming_the_held_ticket():
    b = book()
    run(b, joined("t1", "alice", "eu"))
    steps = run(b, joined("t2", "alice", "na", at_ms=2_000))
    (rejected,) = [d for s in steps for d in s.dequeued]
    assert rejected.ticket_id == "t2" and rejected.reason is DequeueReason.REJECTED
    assert rejected.detail == "player alice already holds ticket t1 in 1v1/eu"
    assert b.claims.holders["alice"] == ("t1", "1v1", "eu")
    assert "t2" not in b.regions["1v1", "na"].tickets


def test_matched_at_most_once_and_free_again_after_the_match():
    b = book()
    run(
        b,
        joined("t1", "alice", "eu"),
        joined("t2", "bob", "eu"),
        joined("t3", "alice", "na"),
        joined("t4", "carol", "na"),
    )
    eu = run(b, WaveTick("1v1", "eu", "w1", 1, 10_000, "cfg", 10_000))
    na = run(b, WaveTick("1v1", "na", "w1", 1, 10_000, "cfg", 10_000))
    matched = [p.player_id for s in eu + na for m in s.matches for t in m.teams for p in t.seats]
    assert matched.count("alice") == 1
    assert "alice" not in b.claims.holders  # released when matched
    later = run(b, joined("t5", "alice", "na", at_ms=11_000))
    assert later[-1].note == "joined"


def test_a_leave_before_the_decision_releases_and_a_stale_request_grants_nothing():
    b = book()
    (request,) = b.apply(joined("t1", "alice", "eu")).outputs
    left = run(b, TicketLeft("t1", "1v1", "eu", LeaveReason.REQUESTED, 1_500))
    assert left[0].dequeued[0].reason is DequeueReason.LEFT
    assert run(b, request)[0].outputs == ()  # released first: the request is a stale copy
    assert "alice" not in b.claims.holders
    assert run(b, joined("t2", "alice", "na", at_ms=2_000))[-1].note == "joined"


def test_a_party_refused_for_one_player_releases_the_others():
    b = book()
    run(b, joined("t1", "bob", "na"))
    party = TicketJoined(make_ticket("t2", "alice", "bob", queue="1v1", region="eu"))
    profile = QueueProfile(queue="1v1", strategy=PAIRS, maps=("alpha",), team_size=2)
    b.profiles = {"1v1": profile}
    steps = run(b, party)
    assert [d.detail for s in steps for d in s.dequeued] == [
        "player bob already holds ticket t1 in 1v1/na"
    ]
    assert "alice" not in b.claims.holders and b.claims.holders["bob"][0] == "t1"


def test_a_redelivered_request_is_granted_again_and_the_book_snapshots():
    claims = ClaimBook()
    request = ClaimRequested("alice", "t1", "1v1", "eu", 1_000)
    assert claims.apply(request, 60_000) == claims.apply(request, 60_000)
    assert ClaimBook.from_record(claims.to_record()) == claims


def test_a_pending_join_survives_a_snapshot():
    b = book()
    (request,) = b.apply(joined("t1", "alice", "eu")).outputs
    restored = book()
    restored.regions["1v1", "eu"] = queue_from_record(queue_to_record(b.regions["1v1", "eu"]))
    restored.claims = ClaimBook.from_record(b.claims.to_record())
    assert run(b, request) == run(restored, request)


def test_a_join_sent_again_while_its_claims_are_pending_changes_nothing():
    """schemas/README.md: the first join of an id wins, whatever a later one holds. The
    second, with another player, asked for that player's claim too; the ticket then
    seated the second join's player and its end released only that player's claim."""
    b = book()
    first = b.apply(joined("t1", "alice", "eu"))
    assert first.note == "pending"
    again = b.apply(joined("t1", "alicia", "eu"))
    assert (again.note, again.outputs, again.dequeued) == ("duplicate", (), ())
    same = b.apply(joined("t1", "alice", "eu"))  # a retry of the very same join
    assert (same.note, same.outputs, same.dequeued) == ("duplicate", (), ())
    run(b, *first.outputs)
    region = b.regions["1v1", "eu"]
    assert [p.player_id for p in region.tickets["t1"].ticket.players] == ["alice"]
    steps = run(b, TicketLeft("t1", "1v1", "eu", LeaveReason.REQUESTED, 5_000))
    assert "alice" not in b.claims.holders and "alicia" not in b.claims.holders
    assert [d.ticket_id for s in steps for d in s.dequeued] == ["t1"]
