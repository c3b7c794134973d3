"""Tickets searching several regions and queues (docs/adr/0145): copies written by the
home, opened after their wait, matched exactly once through search claims, the other
places told, the lost match's tickets requeued keeping their wait."""

from __future__ import annotations

from collections import deque

from matcher.core import QueueProfile
from matcher.queue import DequeueReason, QueueRules, TicketJoined, TicketLeft, WaveTick
from matcher.queue.book import QueueBook
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested, SearchHeld
from matcher.queue.events import LeaveReason, Search
from matcher.queue.outcomes import Step
from matcher.queue.records import queue_from_record, queue_to_record
from tests.queue.conftest import PAIRS, make_ticket

RULES = QueueRules(ticket_ttl_ms=60_000, finished_retention_ms=60_000)
LOGGED = (TicketJoined, ClaimRequested, ClaimDecided, ClaimReleased, SearchHeld)


def book() -> QueueBook:
    profiles = {q: QueueProfile(queue=q, strategy=PAIRS, maps=("alpha",)) for q in ("1v1", "duo")}
    return QueueBook(profiles, {"1v1": ("eu", "na"), "duo": ("eu",)}, RULES)


class Log:
    """The queue topic in one partition: every record the fold writes is folded later,
    in the order written (``settle``), so tests choose what happens in between."""

    def __init__(self, b: QueueBook) -> None:
        self.book, self.todo, self.steps = b, deque[object](), list[Step]()

    def fold(self, *events: object) -> list[Step]:
        steps = [self.book.apply(e) for e in events]  # type: ignore[arg-type]
        for step in steps:
            self.todo.extend(o for o in step.outputs if isinstance(o, LOGGED))
        self.steps += steps
        return steps

    def settle(self) -> list[Step]:
        out = []
        while self.todo:
            out += self.fold(self.todo.popleft())
        return out

    def matched_players(self) -> list[str]:
        created = [m.match for s in self.steps for m in _proposals(s) if m.deadline_at_ms is None]
        matches = [m for s in self.steps for m in s.matches] + created
        return [seat.player_id for m in matches for team in m.teams for seat in team.seats]

    def dequeued(self, ticket_id: str) -> list[tuple[str, str, DequeueReason]]:
        return [
            (d.queue, d.region, d.reason)
            for s in self.steps
            for d in s.dequeued
            if d.ticket_id == ticket_id
        ]


def _proposals(step: Step) -> list:
    from matcher.queue.lifecycle import MatchProposal

    return [o for o in step.outputs if type(o) is MatchProposal]


def join(ticket_id, player, queue="1v1", region="eu", at_ms=1_000, searches=()) -> TicketJoined:
    ticket = make_ticket(ticket_id, player, queue=queue, region=region, joined_at_ms=at_ms)
    return TicketJoined(ticket, tuple(searches))


def tick(queue: str, region: str, n: int, at_ms: int) -> WaveTick:
    return WaveTick(queue, region, f"w{n}", n, at_ms, "cfg", 1_000)


EVERYWHERE = (Search("1v1", "eu"), Search("1v1", "na"), Search("duo", "eu"))


def test_the_home_writes_a_copy_to_each_other_place_and_a_late_place_opens_at_its_tick():
    log = Log(book())
    searches = (Search("1v1", "eu"), Search("1v1", "na", 30_000))
    (home,) = log.fold(join("t", "alice", searches=searches))
    copies = [o for o in home.outputs if isinstance(o, TicketJoined)]
    assert [(c.queue, c.region, c.searches) for c in copies] == [("1v1", "na", searches)]
    assert "t" in log.book.regions["1v1", "eu"].tickets
    log.settle()
    na = log.book.regions["1v1", "na"]
    assert "t" not in na.tickets and "t" in na.life.unopened
    log.fold(tick("1v1", "na", 1, 30_999))  # 29,999 ms after the join: not yet
    assert "t" not in na.tickets
    log.fold(tick("1v1", "na", 2, 31_000))
    assert "t" in na.tickets
    assert log.book.apply(copies[0]).note == "duplicate"  # a copy written twice


def test_the_player_is_told_each_place_it_searches_once_that_place_opens():
    """Issue 34: TicketStatus tells a player where they are searching now. Every open place
    writes its own status, with its queue and region: the home at the join, a late place at
    the first wave after it opened, and not before."""
    log = Log(book())
    searches = (Search("1v1", "eu"), Search("1v1", "na", 30_000), Search("duo", "eu"))
    (home,) = log.fold(join("t", "alice", searches=searches))
    log.settle()

    def places(steps: list[Step]) -> set[tuple[str, str]]:
        return {(s.queue, s.region) for step in steps for s in step.statuses if s.ticket_id == "t"}

    assert places([home]) == {("1v1", "eu")}
    assert places(log.steps) == {("1v1", "eu"), ("duo", "eu")}
    assert places(log.fold(tick("1v1", "na", 1, 30_999))) == set()  # not open yet
    assert places(log.fold(tick("1v1", "na", 2, 31_000))) == {("1v1", "na")}


def test_three_places_race_and_the_ticket_is_matched_once_the_others_requeued():
    log = Log(book())
    log.fold(
        join("t", "alice", searches=EVERYWHERE),
        join("b", "bob"),
        join("c", "carol", region="na"),
        join("d", "dave", queue="duo"),
    )
    log.settle()  # the copies arrive
    # Every place matches alice in the same instant, before any claim is answered.
    for n, (queue, region) in enumerate((("1v1", "na"), ("duo", "eu"), ("1v1", "eu")), 1):
        wave = log.fold(tick(queue, region, 1, 2_000 + n))[0]
        assert wave.matches == ()  # tentative: nothing published yet
    log.settle()
    assert log.matched_players().count("alice") == 1
    assert sorted(log.matched_players()) == ["alice", "carol"]  # na asked first
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.MATCHED_ELSEWHERE),
        ("1v1", "na", DequeueReason.MATCHED),
        ("duo", "eu", DequeueReason.MATCHED_ELSEWHERE),
    ]
    # The lost matches' other tickets are back, keeping the wave they joined in.
    eu, duo = log.book.regions["1v1", "eu"], log.book.regions["duo", "eu"]
    assert eu.tickets["b"].joined_wave == 0 and duo.tickets["d"].joined_wave == 0
    assert not eu.life.tentative and not duo.life.tentative and not eu.life.players
    assert log.dequeued("b") == [] and log.dequeued("d") == []


def test_a_place_that_has_not_seen_its_copy_yet_ignores_it_when_it_comes():
    b = book()
    log = Log(b)
    log.fold(join("t", "alice", searches=EVERYWHERE), join("b", "bob"))
    copies = list(log.todo)
    log.todo.clear()
    log.fold(tick("1v1", "eu", 1, 2_000))
    log.settle()  # claim granted: the end notices reach na and duo before the copies
    assert log.matched_players() == ["alice", "bob"]
    steps = log.fold(*copies)
    assert [s.note for s in steps] == ["duplicate_finished", "duplicate_finished"]
    assert not b.regions["1v1", "na"].tickets


def test_a_match_lost_by_one_of_its_two_contested_tickets_releases_the_other():
    b = book()
    log = Log(b)
    both = (Search("1v1", "eu"), Search("1v1", "na"))
    log.fold(
        join("t", "alice", searches=both),
        join("u", "ursula", searches=both),
        join("c", "carol", region="na"),
    )
    log.settle()
    # eu holds t + u, tentative on both; na (c, then the copies t, u) holds c + t. eu asks
    # for t first and wins both: na's match loses t, and carol goes back.
    log.fold(tick("1v1", "eu", 1, 2_000))
    log.fold(tick("1v1", "na", 1, 2_001))
    log.settle()
    assert log.matched_players().count("alice") == 1
    assert log.matched_players().count("ursula") == 1
    for ticket_id in ("t", "u"):
        assert [r for _, _, r in log.dequeued(ticket_id)].count(DequeueReason.MATCHED) == 1
    assert not b.claims.searches.keys() - {"t", "u"}
    assert "c" in b.regions["1v1", "na"].tickets


def test_a_refused_claim_returns_the_match_and_the_ticket_is_matched_later():
    b = book()
    log = Log(b)
    both = (Search("1v1", "eu"), Search("1v1", "na"))
    log.fold(
        join("t", "alice", searches=both),
        join("u", "ursula", searches=both),
        join("b", "bob"),
        join("c", "carol", region="na"),
    )
    log.settle()
    # eu: t+u tentative; na: c+t tentative (join order there: c, then the copies t, u).
    log.fold(tick("1v1", "na", 1, 2_000), tick("1v1", "eu", 1, 2_001))
    log.settle()
    # na asked first for t and won; eu's t+u lost t: u's claim is given up, u requeued.
    eu = b.regions["1v1", "eu"]
    assert sorted(eu.tickets) == ["b", "u"]
    assert "u" not in b.claims.searches
    log.fold(tick("1v1", "eu", 2, 3_000))
    log.settle()
    players = log.matched_players()
    assert sorted(players) == ["alice", "bob", "carol", "ursula"]
    assert b.regions["1v1", "na"].tickets == {}  # u's search in na ended


def test_a_leave_at_home_ends_every_place_and_a_tentative_match_there():
    b = book()
    log = Log(b)
    log.fold(join("t", "alice", searches=EVERYWHERE), join("c", "carol", region="na"))
    log.settle()
    log.fold(tick("1v1", "na", 1, 2_000))  # na holds t+c tentative; its claim not folded
    request = list(log.todo)
    log.todo.clear()
    log.fold(TicketLeft("t", "1v1", "eu", LeaveReason.REQUESTED, 2_100))
    log.settle()  # the notices drop na's match: carol is back
    log.todo.extend(request)
    log.settle()  # the late claim answer names a match that is gone: no-op
    assert log.matched_players() == []
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.LEFT),
        ("1v1", "na", DequeueReason.LEFT),
        ("duo", "eu", DequeueReason.LEFT),
    ]
    assert "c" in b.regions["1v1", "na"].tickets


def test_a_snapshot_mid_flight_resumes_the_same():
    def run(snapshot_at: int | None) -> list:
        b = book()
        log = Log(b)
        log.fold(
            join("t", "alice", searches=EVERYWHERE),
            join("b", "bob"),
            join("c", "carol", region="na"),
        )
        log.settle()
        log.fold(tick("1v1", "na", 1, 2_000), tick("1v1", "eu", 1, 2_001))
        if snapshot_at is not None:
            for key, region in list(b.regions.items()):
                b.regions[key] = queue_from_record(queue_to_record(region))
        log.settle()
        log.fold(tick("1v1", "eu", 2, 3_000))
        return [o for s in log.steps for o in s.outputs]

    assert run(None) == run(1)


def test_a_join_without_searches_writes_nothing_more():
    log = Log(book())
    (step,) = log.fold(join("t", "alice"))
    assert [type(o).__name__ for o in step.outputs] == ["Searching"]
    log.fold(join("b", "bob"))
    (wave,) = log.fold(tick("1v1", "eu", 1, 2_000))
    assert len(wave.matches) == 1 and not log.todo


def opened(region, ticket_id: str) -> bool:
    """Open in ``region``: queued, or already in one of its tentative matches."""
    held = any(ticket_id in h.tickets for h in region.life.tentative.values())
    return ticket_id not in region.life.unopened and (ticket_id in region.tickets or held)


def test_late_places_open_each_at_its_own_tick_across_a_snapshot():
    b = book()
    log = Log(b)
    log.fold(
        join("t", "alice", searches=(Search("1v1", "eu"), Search("1v1", "na", 30_000))),
        join("u", "bob", searches=(Search("1v1", "eu"), Search("1v1", "na", 10_000))),
    )
    log.settle()
    na = b.regions["1v1", "na"]
    assert set(na.life.unopened) == {"t", "u"}
    log.fold(tick("1v1", "na", 1, 11_000))
    assert opened(na, "u") and set(na.life.unopened) == {"t"}
    log.fold(tick("1v1", "na", 2, 20_000))
    assert set(na.life.unopened) == {"t"}
    b.regions["1v1", "na"] = na = queue_from_record(queue_to_record(na))
    log.fold(tick("1v1", "na", 3, 30_999))
    assert not opened(na, "t")
    log.fold(tick("1v1", "na", 4, 31_000))
    assert opened(na, "t") and not na.life.unopened
    # A copy held after a wave looked is still seen at its own tick.
    log.fold(
        join("v", "carol", at_ms=31_500, searches=(Search("1v1", "eu"), Search("1v1", "na", 500)))
    )
    log.settle()
    log.fold(tick("1v1", "na", 5, 31_999))
    assert not opened(na, "v")
    log.fold(tick("1v1", "na", 6, 32_000))
    assert opened(na, "v")


def _split_leave(log: Log) -> tuple[list[object], list[object]]:
    """The records a leave wrote: those for the claim partition, and the end notices."""
    written = list(log.todo)
    log.todo.clear()
    notices = [r for r in written if isinstance(r, ClaimDecided)]
    return [r for r in written if not isinstance(r, ClaimDecided)], notices


def test_a_leave_first_in_the_claim_order_wins_over_a_match_elsewhere():
    b = book()
    log = Log(b)
    log.fold(join("t", "alice", searches=EVERYWHERE), join("c", "carol", region="na"))
    log.settle()
    log.fold(tick("1v1", "na", 1, 2_000))  # na holds t+c tentative; its request unfolded
    request = list(log.todo)
    log.todo.clear()
    log.fold(TicketLeft("t", "1v1", "eu", LeaveReason.REQUESTED, 2_100))
    claims, notices = _split_leave(log)
    # The claim partition folds the leave before na's request; na hears the answer
    # before the end notice from eu (its partition lags).
    log.fold(*claims, *request)
    log.settle()
    log.fold(*notices)
    log.settle()
    assert log.matched_players() == []
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.LEFT),
        ("1v1", "na", DequeueReason.LEFT),
        ("duo", "eu", DequeueReason.LEFT),
    ]
    assert "c" in b.regions["1v1", "na"].tickets and not b.regions["1v1", "na"].life.tentative
    assert [type(r) for r in claims] == [ClaimRequested]  # the leave, in the claim order


def test_a_leave_after_the_grant_in_the_claim_order_loses_and_the_player_is_matched():
    b = book()
    log = Log(b)
    log.fold(join("t", "alice", searches=EVERYWHERE), join("c", "carol", region="na"))
    log.settle()
    log.fold(tick("1v1", "na", 1, 2_000))
    log.fold(log.todo.popleft())  # the claim partition grants na's request
    log.fold(log.todo.popleft())  # na makes its match; its end notices not yet folded
    made = list(log.todo)
    log.todo.clear()
    log.fold(TicketLeft("t", "1v1", "eu", LeaveReason.REQUESTED, 2_100))
    log.settle()  # the leave's claim finds the grant: it changes nothing, answers nothing
    log.fold(*made)
    log.settle()
    assert sorted(log.matched_players()) == ["alice", "carol"]
    assert b.claims.searches["t"][1:3] == ("1v1", "na")  # the match still holds the ticket
    dequeued = dict(((q, r), why) for q, r, why in log.dequeued("t"))
    assert dequeued["1v1", "eu"] is DequeueReason.LEFT
    assert dequeued["1v1", "na"] is DequeueReason.MATCHED


def test_a_party_its_home_refuses_is_refused_everywhere_a_later_place_alone():
    """docs/rules.md: a place that cannot take a party refuses it while the others go on;
    the home judges the join itself, so a join it refuses writes no copy."""
    profiles = {
        "1v1": QueueProfile(queue="1v1", strategy=PAIRS, maps=("alpha",)),
        "2v2": QueueProfile(queue="2v2", strategy=PAIRS, maps=("alpha",), team_size=2),
    }
    places = (Search("1v1", "eu"), Search("2v2", "eu"))
    log = Log(QueueBook(profiles, {"1v1": ("eu",), "2v2": ("eu",)}, RULES))
    party = make_ticket("home-1v1", "a", "b", queue="1v1")
    (home,) = log.fold(TicketJoined(party, places))
    assert not [o for o in home.outputs if isinstance(o, TicketJoined)]
    assert log.dequeued("home-1v1") == [("1v1", "eu", DequeueReason.REJECTED)]
    party = make_ticket("home-2v2", "c", "d", queue="2v2")
    log.fold(TicketJoined(party, places[::-1]))
    log.settle()
    assert log.dequeued("home-2v2") == [("1v1", "eu", DequeueReason.REJECTED)]
    assert "home-2v2" in log.book.regions["2v2", "eu"].tickets


def test_a_leave_sent_to_a_place_that_refused_the_copy_ends_the_places_searching():
    """docs/adr/0207: na refuses t's copy (alice queues there already as x); the platform's
    leave for t sent to na still ends t at home, through a snapshot of na in between."""
    b = book()
    log = Log(b)
    log.fold(join("x", "alice", region="na"))
    searches = (Search("1v1", "eu"), Search("1v1", "na"))
    log.fold(join("t", "alice", searches=searches))
    log.settle()
    assert log.dequeued("t") == [("1v1", "na", DequeueReason.REJECTED)]
    assert "t" in b.regions["1v1", "eu"].tickets
    b.regions["1v1", "na"] = queue_from_record(queue_to_record(b.regions["1v1", "na"]))
    (left,) = log.fold(TicketLeft("t", "1v1", "na", LeaveReason.REQUESTED, 2_500))
    assert left.note == "left_elsewhere"
    log.settle()
    assert sorted(log.dequeued("t")) == [
        ("1v1", "eu", DequeueReason.LEFT),
        ("1v1", "na", DequeueReason.REJECTED),
    ]
    (gone,) = [d for s in log.steps for d in s.dequeued if d.reason is DequeueReason.LEFT]
    assert (gone.at_ms, gone.detail) == (2_500, "left in 1v1/na")
    assert "t" not in b.regions["1v1", "eu"].tickets
    assert "x" in b.regions["1v1", "na"].tickets  # alice's own ticket there stays
    assert log.fold(TicketLeft("t", "1v1", "na", LeaveReason.REQUESTED, 2_600))[0].note == (
        "unknown_ticket"
    )  # passed on once


def test_a_refused_copy_is_forgotten_once_its_ticket_ends_elsewhere_or_its_id_is():
    b = book()
    log = Log(b)
    log.fold(join("x", "alice", region="na"), join("y", "bob", region="na"))
    searches = (Search("1v1", "eu"), Search("1v1", "na"))
    log.fold(join("t", "alice", searches=searches), join("u", "bob", searches=searches))
    log.settle()
    na = b.regions["1v1", "na"]
    assert set(na.life.refused) == {"t", "u"}
    log.fold(TicketLeft("t", "1v1", "eu", LeaveReason.REQUESTED, 2_000))
    log.settle()  # na is told t ended: nothing is left to pass on for it
    assert set(na.life.refused) == {"u"}
    log.fold(tick("1v1", "na", 1, 1_000 + RULES.finished_retention_ms + 1))
    assert na.life.refused == {}


def test_a_leave_of_a_copy_not_open_yet_is_dated_at_the_leave():
    log = Log(book())
    searches = (Search("1v1", "eu"), Search("1v1", "na", 30_000))
    log.fold(join("t", "alice", searches=searches))
    log.settle()
    log.fold(TicketLeft("t", "1v1", "na", LeaveReason.REQUESTED, 7_000))
    log.settle()
    ends = {(d.region, d.reason, d.at_ms) for s in log.steps for d in s.dequeued}
    assert ends == {("eu", DequeueReason.LEFT, 7_000), ("na", DequeueReason.LEFT, 7_000)}


def test_a_leave_sent_to_another_place_before_its_copy_ends_every_place_when_it_comes():
    """schemas/README.md: a TicketLeft to any one place ends every place. Sent to na
    right after the join, it reached na before the home's copy of the join: na knew no
    such ticket, the copy then searched na and the ticket was matched there (ADR 0211)."""
    for snapshot in (False, True):
        b = book()
        log = Log(b)
        log.fold(join("t", "alice", searches=EVERYWHERE))
        log.fold(TicketLeft("t", "1v1", "na", LeaveReason.REQUESTED, 1_050))  # before its copy
        if snapshot:  # the na worker's snapshot between the leave and the copy
            b.regions["1v1", "na"] = queue_from_record(queue_to_record(b.regions["1v1", "na"]))
        log.fold(join("c", "carol", region="na"), join("d", "dave", queue="duo"))
        log.settle()
        log.fold(tick("1v1", "na", 1, 2_000), tick("duo", "eu", 1, 2_000))
        log.settle()
        assert log.matched_players() == []
        assert sorted(log.dequeued("t")) == [
            ("1v1", "eu", DequeueReason.LEFT),
            ("1v1", "na", DequeueReason.LEFT),
            ("duo", "eu", DequeueReason.LEFT),
        ]
        assert not b.regions["1v1", "na"].life.early_leaves


def test_a_leave_of_a_ticket_never_seen_is_forgotten_after_a_ttl():
    b = book()
    log = Log(b)
    log.fold(TicketLeft("ghost", "1v1", "na", LeaveReason.REQUESTED, 1_000))
    assert b.regions["1v1", "na"].life.early_leaves == {"ghost": ("requested", 1_000)}
    log.fold(tick("1v1", "na", 1, 1_000 + RULES.ticket_ttl_ms + 1))
    assert b.regions["1v1", "na"].life.early_leaves == {}
    log.fold(TicketLeft("t", "1v1", "na", LeaveReason.REQUESTED, 70_000))
    log.fold(join("t", "alice", region="na", at_ms=70_500))  # a plain join: not a copy
    assert "t" in b.regions["1v1", "na"].tickets
