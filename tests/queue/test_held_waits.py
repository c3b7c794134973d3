"""The wait estimator learns a held ticket's wait when it is matched for good (confirmed,
or its placement started), with the wait its TicketDequeued MATCHED carries; a proposal
that falls through, or a failed placement, teaches it nothing (docs/adr/0115)."""

from __future__ import annotations

from matcher.queue import DequeueReason, QueueRules, TicketJoined, WaveTick
from matcher.queue.book import QueueBook
from matcher.queue.estimate import rating_band
from matcher.queue.lifecycle import (
    LifecyclePolicy,
    MatchProposal,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
)
from matcher.queue.records import queue_from_record, queue_to_record
from tests.queue.conftest import PAIRS, make_ticket

RULES = QueueRules(ticket_ttl_ms=600_000, finished_retention_ms=600_000)
BAND = rating_band(make_ticket("any"))


def book(policy: LifecyclePolicy) -> QueueBook:
    from matcher.core import QueueProfile

    profile = QueueProfile(queue="1v1", strategy=PAIRS, maps=("alpha",))
    return QueueBook({"1v1": profile}, {"1v1": ("eu",)}, RULES, policies={"1v1": policy})


def tick(n: int) -> WaveTick:
    return WaveTick("1v1", "eu", f"w{n}", n, 10_000 * n, "cfg", 10_000)


def join(b: QueueBook, ticket_id: str, at_ms: int = 1_000) -> None:
    assert b.apply(TicketJoined(make_ticket(ticket_id, queue="1v1", joined_at_ms=at_ms))).note == (
        "joined"
    )


def answer(b: QueueBook, match_id: str, player: str, accepted: bool, at_ms: int):
    return b.apply(ReadyCheckAnswered(match_id, "1v1", "eu", player, accepted, at_ms))


def proposed(step) -> str:
    (found,) = [o for o in step.outputs if isinstance(o, MatchProposal)]
    return found.match.match_id


def histograms(b: QueueBook) -> list[dict[int, dict[int, int]]]:
    return list(b.regions["1v1", "eu"].estimator.waves)


def test_a_ready_check_counts_the_wait_at_confirmation_not_at_the_proposal():
    b = book(LifecyclePolicy(ready_check_ms=5_000))
    join(b, "early")
    join(b, "decliner")
    first = proposed(b.apply(tick(1)))
    assert histograms(b) == [{}]  # the wave opened a window; nobody is matched yet
    answer(b, first, "p-early", True, 10_500)
    answer(b, first, "p-decliner", False, 11_000)  # early goes back, keeping its wait
    assert histograms(b) == [{}]  # a proposal that fell through counts nothing
    join(b, "late", at_ms=12_000)
    second = proposed(b.apply(tick(2)))
    answer(b, second, "p-early", True, 20_500)
    step = answer(b, second, "p-late", True, 21_000)
    waits = {d.ticket_id: d.waves_waited for d in step.dequeued}
    assert {d.reason for d in step.dequeued} == {DequeueReason.MATCHED}
    assert waits == {"early": 2, "late": 1}
    assert histograms(b) == [{}, {BAND: {2: 1, 1: 1}}]  # what the dequeues say, counted
    estimator = b.regions["1v1", "eu"].estimator
    assert estimator.remaining_waves(make_ticket("new"), 0) == 1  # lower median of 1, 2


def test_a_placement_counts_the_wait_when_it_starts_and_a_failure_counts_nothing():
    b = book(LifecyclePolicy(placement_timeout_ms=20_000, placement_requeues=2))
    for ticket_id in "abcd":
        join(b, ticket_id)
    first, second = b.apply(tick(1)).matches
    failed = PlacementReported(first.match_id, "1v1", "eu", PlacementOutcome.FAILED, 11_000)
    assert b.apply(failed).dequeued == ()
    assert histograms(b) == [{}]
    started = PlacementReported(second.match_id, "1v1", "eu", PlacementOutcome.STARTED, 12_000)
    assert {d.waves_waited for d in b.apply(started).dequeued} == {1}
    assert histograms(b) == [{BAND: {1: 2}}]
    (again,) = b.apply(tick(2)).matches  # a and b, back with their wait
    assert histograms(b) == [{BAND: {1: 2}}, {}]
    silent = b.apply(tick(5))  # unreported: counted as started at the tick
    assert {(d.ticket_id, d.waves_waited) for d in silent.dequeued} == {("a", 2), ("b", 2)}
    assert histograms(b)[-2:] == [{BAND: {2: 2}}, {}]
    assert again.match_id in b.regions["1v1", "eu"].life.closed


def test_a_snapshot_keeps_what_held_matches_taught_the_estimator():
    b = book(LifecyclePolicy(ready_check_ms=5_000))
    join(b, "a")
    join(b, "b")
    match_id = proposed(b.apply(tick(1)))
    answer(b, match_id, "p-a", True, 10_500)
    answer(b, match_id, "p-b", True, 11_000)
    restored = queue_from_record(queue_to_record(b.regions["1v1", "eu"]))
    assert list(restored.estimator.waves) == histograms(b) == [{BAND: {1: 2}}]


def test_late_observations_keep_the_merged_histograms_equal_to_a_fresh_merge():
    from matcher.queue.estimate import WaitEstimator

    kept = WaitEstimator()
    kept.observe_bands([(7, 1), (8, 3)])
    assert kept.remaining_waves(make_ticket("x", rating=1500), 0) is not None  # merged now
    kept.observe_late([(7, 2), (9, 4)])
    fresh = WaitEstimator.from_record(kept.to_record())
    for rating in (1400, 1600, 1800, 5000):
        for waited in range(5):
            ticket = make_ticket("x", rating=rating)
            assert kept.remaining_waves(ticket, waited) == fresh.remaining_waves(ticket, waited)
