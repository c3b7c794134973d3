from __future__ import annotations

from matcher.core import QueueProfile
from matcher.queue import (
    DequeueReason,
    LeaveReason,
    QueueRules,
    RegionQueue,
    TicketJoined,
    TicketLeft,
    WaveTick,
)
from matcher.queue.book import QueueBook
from tests.queue.conftest import make_ticket

RULES = QueueRules(ticket_ttl_ms=60_000, finished_retention_ms=120_000)


def tick(sequence: int, at_ms: int | None = None) -> WaveTick:
    return WaveTick(
        "duo", "eu", f"w{sequence}", sequence, at_ms or 10_000 * sequence, "cfg", 10_000
    )


def join(state: RegionQueue, profile: QueueProfile, *args, **kwargs):
    return state.apply(TicketJoined(make_ticket(*args, **kwargs)), profile, RULES)


def test_join_queues_the_ticket_and_reports_its_position(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "t1")
    step = join(state, profile, "t2", "a", "b")
    assert step.note == "joined"
    assert [(s.ticket_id, s.position, s.waves_waited) for s in step.statuses] == [("t2", 2, 0)]
    assert state.players_queued == 3


def test_joining_twice_with_one_ticket_id_is_idempotent(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "t1")
    assert join(state, profile, "t1").note == "duplicate"
    assert list(state.tickets) == ["t1"]


def test_a_player_already_queued_in_another_ticket_is_rejected_with_the_reason(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "t1", "alice")
    step = join(state, profile, "t2", "bob", "alice")
    assert step.note == "rejected"
    (dequeued,) = step.dequeued
    assert dequeued.reason is DequeueReason.REJECTED
    assert dequeued.detail == "player alice is already queued in ticket t1"
    assert "bob" not in state.player_ticket


def test_a_party_larger_than_a_team_is_rejected(profile):
    step = join(RegionQueue("duo", "eu"), profile, "t1", "a", "b", "c")
    assert step.dequeued[0].detail == "party of 3 does not fit a team of 2"


def test_leaving_an_unknown_ticket_is_a_recorded_no_op(profile):
    state = RegionQueue("duo", "eu")
    step = state.apply(TicketLeft("nope", "duo", "eu", LeaveReason.REQUESTED, 5), profile, RULES)
    assert step.note == "unknown_ticket" and step.dequeued == ()


def test_leaving_dequeues_with_the_waves_waited(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "t1", "solo", vetoes=("alpha", "beta"))
    join(state, profile, "t2", vetoes=("alpha", "beta"))
    state.apply(tick(1), profile, RULES)
    step = state.apply(
        TicketLeft("t1", "duo", "eu", LeaveReason.DISCONNECTED, 15_000), profile, RULES
    )
    (dequeued,) = step.dequeued
    assert (dequeued.reason, dequeued.waves_waited, dequeued.detail) == (
        DequeueReason.LEFT,
        1,
        "disconnected",
    )
    assert "solo" not in state.player_ticket


def test_a_tick_closes_the_wave_and_removes_matched_tickets(profile):
    state = RegionQueue("duo", "eu")
    for i in range(5):
        join(state, profile, f"t{i}")
    step = state.apply(tick(1), profile, RULES)
    assert step.note == "wave_closed"
    assert len(step.matches) == 2
    assert list(state.tickets) == ["t4"]
    matched = [d for d in step.dequeued if d.reason is DequeueReason.MATCHED]
    assert {d.ticket_id for d in matched} == {"t0", "t1", "t2", "t3"}
    assert all(d.waves_waited == 1 and d.wave_id == "w1" for d in matched)
    assert {d.match_id for d in matched} == {m.match_id for m in step.matches}
    assert step.summary.matches == 2 and step.summary.unmatched == 1
    assert step.summary.players_in_snapshot == 5
    assert [(s.ticket_id, s.position, s.waves_waited) for s in step.statuses] == [("t4", 1, 1)]


def test_wait_cycles_come_from_the_wave_counter(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "old")
    state.apply(tick(1), profile, RULES)
    state.apply(tick(2), profile, RULES)
    join(state, profile, "new")
    snapshot = state.snapshot(tick(3))
    assert [(w.ticket.ticket_id, w.wait_cycles) for w in snapshot.tickets] == [
        ("old", 2),
        ("new", 0),
    ]


def test_a_tick_that_is_not_newer_than_the_last_is_ignored(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "a")
    join(state, profile, "b")
    state.apply(tick(2), profile, RULES)
    join(state, profile, "c")
    join(state, profile, "d")
    assert state.apply(tick(2), profile, RULES).note == "stale_tick"
    assert state.apply(tick(1), profile, RULES).note == "stale_tick"
    assert len(state.tickets) == 2 and state.waves_closed == 1


def test_tickets_expire_after_the_ttl(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "early", joined_at_ms=1_000)
    step = state.apply(tick(7, at_ms=61_000), profile, RULES)
    (expired,) = step.dequeued
    assert (expired.ticket_id, expired.reason) == ("early", DequeueReason.EXPIRED)
    assert state.tickets == {}


def test_a_join_older_than_the_ttl_is_expired_on_arrival(profile):
    state = RegionQueue("duo", "eu")
    state.apply(tick(1, at_ms=100_000), profile, RULES)
    step = join(state, profile, "late", joined_at_ms=30_000)
    assert step.dequeued[0].reason is DequeueReason.EXPIRED


def test_a_finished_ticket_id_cannot_queue_again_while_remembered(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "a")
    join(state, profile, "b")
    state.apply(tick(1), profile, RULES)
    assert join(state, profile, "a").note == "duplicate_finished"
    assert state.tickets == {}


def test_finished_ids_are_forgotten_after_the_retention(profile):
    state = RegionQueue("duo", "eu")
    state.apply(TicketLeft("x", "duo", "eu", LeaveReason.REQUESTED, 0), profile, RULES)
    join(state, profile, "a", joined_at_ms=1_000)
    state.apply(TicketLeft("a", "duo", "eu", LeaveReason.REQUESTED, 2_000), profile, RULES)
    state.apply(tick(1, at_ms=100_000), profile, RULES)
    assert "a" in state.finished
    state.apply(tick(2, at_ms=122_001), profile, RULES)
    assert "a" not in state.finished


def test_matched_players_remember_their_last_match(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "t1", "a", "b")
    join(state, profile, "t2", "c")
    state.apply(tick(1), profile, RULES)
    assert state.last_matches["a"].teammates == ("b",)
    assert state.last_matches["a"].opponents == ("c",)
    assert state.last_matches["c"].opponents == ("a", "b")


def test_waits_are_estimated_from_recent_waves(profile):
    state = RegionQueue("duo", "eu")
    join(state, profile, "a")
    join(state, profile, "b")
    state.apply(tick(1, at_ms=10_000), profile, RULES)
    step = join(state, profile, "c", joined_at_ms=12_000)
    (status,) = step.statuses
    assert status.next_wave_at_ms == 20_000
    assert status.estimated_wait_ms == 8_000


def test_an_invalid_strategy_result_is_refused(profile, monkeypatch):
    import matcher.queue.wave as wave
    from matcher.core import WaveResult

    state = RegionQueue("duo", "eu")
    join(state, profile, "a")
    monkeypatch.setattr(wave, "run_strategy", lambda s, p: WaveResult("bad", (), ()))
    step = state.apply(tick(1), profile, RULES)
    assert step.note == "wave_failed" and step.matches == ()
    assert step.failure is not None and "unmatched" in step.failure.reason
    assert list(state.tickets) == ["a"]


def test_a_failing_strategy_still_expires_and_reports_each_reason_once(profile, monkeypatch):
    import matcher.queue.wave as wave

    rules = QueueRules(ticket_ttl_ms=20_000, finished_retention_ms=20_000)
    state = RegionQueue("duo", "eu")
    join(state, profile, "a", joined_at_ms=0)
    join(state, profile, "b", joined_at_ms=15_000)

    def broken(snapshot, profile):
        raise KeyError("weight_pings")

    monkeypatch.setattr(wave, "run_strategy", broken)
    first = state.apply(tick(1, at_ms=10_000), profile, rules)
    second = state.apply(tick(2, at_ms=25_000), profile, rules)
    assert [first.failure.first, second.failure.first] == [True, False]
    assert first.failure.reason == "KeyError: 'weight_pings'"
    assert [(d.ticket_id, d.reason) for d in second.dequeued] == [("a", DequeueReason.EXPIRED)]
    assert list(state.tickets) == ["b"] and state.last_sequence == 2
    monkeypatch.setattr(wave, "run_strategy", lambda s, p: 1 / 0)
    third = state.apply(tick(3, at_ms=30_000), profile, rules)
    assert third.failure.first and third.failure.reason.startswith("ZeroDivisionError")
    monkeypatch.undo()
    assert state.apply(tick(4, at_ms=31_000), profile, rules).failure is None
    assert state.failing is None


def test_the_book_rejects_joins_for_unknown_queues_and_regions(profile):
    book = QueueBook({"duo": profile}, {"duo": ("eu",)}, RULES)
    assert book.apply(TicketJoined(make_ticket("t", queue="solo"))).dequeued[0].detail == (
        "unknown queue 'solo'"
    )
    step = book.apply(TicketJoined(make_ticket("t", region="mars")))
    assert step.dequeued[0].detail == "queue 'duo' is not open in region 'mars'"
    assert book.apply(WaveTick("duo", "mars", "1", 1, 1, "c", 1)).note == "unknown_queue"
    assert book.apply(TicketJoined(make_ticket("t"))).note == "joined"


def test_a_pop_timer_queue_folds_its_arrival_rate_into_the_next_wave_time(
    profile: QueueProfile,
) -> None:
    from matcher.queue.cadence import CadencePolicy

    pop = CadencePolicy(
        mode="pop", target_matches=1.0, floor_ms=1_000, cap_ms=60_000, smoothing=0.5
    )
    state = RegionQueue("duo", "eu")
    rules = QueueRules(ticket_ttl_ms=10**9, finished_retention_ms=10**9)
    assert state.next_tick_at_ms(pop, 4) is None  # before the first wave
    state.apply(tick(1), profile, rules, pop)
    for number in range(5):  # 5 players in the first 10 s
        state.apply(
            TicketJoined(make_ticket(f"a{number}", joined_at_ms=10_000 + number)),
            profile,
            rules,
            pop,
        )
    state.apply(tick(2), profile, rules, pop)
    assert state.arrival_rate_per_s == 0.5 and state.arrivals_since_tick == 0
    assert state.next_tick_at_ms(pop, 4) == 20_000 + 8_000  # 4 players at 0.5/s
    for number in range(15):  # 15 more in the next 10 s
        state.apply(
            TicketJoined(make_ticket(f"b{number}", joined_at_ms=20_000 + number)),
            profile,
            rules,
            pop,
        )
    state.apply(tick(3), profile, rules, pop)
    assert state.arrival_rate_per_s == 0.5 * 1.5 + 0.5 * 0.5  # moving average
    assert state.next_tick_at_ms(pop, 4) == 30_000 + 4_000


def test_a_join_retried_after_its_ticket_ended_is_a_no_op_while_remembered(profile):
    """A producer's retry of a join that was matched: a no-op while the id is remembered;
    forgotten, the stale copy expires, a second ending: the retention must outlast the
    producers' retries (streams/settings.py's default)."""
    from streams.settings import Settings

    rules = Settings(ticket_ttl_ms=15_000).rules()
    assert rules.finished_retention_ms == 600_000
    assert Settings(ticket_ttl_ms=15_000, finished_retention_ms=30_000).rules() == QueueRules(
        ticket_ttl_ms=15_000, finished_retention_ms=30_000
    )
    state = RegionQueue("duo", "eu")
    for name in ("a", "b"):
        state.apply(TicketJoined(make_ticket(name, joined_at_ms=1_000)), profile, rules)
    matched = state.apply(tick(1, at_ms=2_000), profile, rules)
    assert {d.ticket_id for d in matched.dequeued} == {"a", "b"}
    state.apply(tick(2, at_ms=300_000), profile, rules)  # five minutes of a producer's retries
    retried = state.apply(TicketJoined(make_ticket("a", joined_at_ms=1_000)), profile, rules)
    assert retried.note == "duplicate_finished" and not retried.dequeued
    state.apply(tick(3, at_ms=700_000), profile, rules)  # past the retention: forgotten
    stale = state.apply(TicketJoined(make_ticket("a", joined_at_ms=1_000)), profile, rules)
    assert [d.reason for d in stale.dequeued] == [DequeueReason.EXPIRED]
