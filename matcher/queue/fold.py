"""The fold of one (queue, region): each event of its log dispatched to the step that
decides it.

Joins and leaves are decided here; a tick closes a wave (:mod:`matcher.queue.wave`);
answers, reports, claims and leaves of held tickets are :mod:`matcher.queue.held`'s;
backfill requests :mod:`matcher.queue.backfill`'s. Every change of the region goes
through its state's methods (:mod:`matcher.queue.state`, docs/adr/0125).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matcher.core import QueueProfile, Ticket
from matcher.fastbuild import builder
from matcher.queue import backfill, held, lifecycle, nearby, searches, statuses, wave
from matcher.queue.admission import admission_problem
from matcher.queue.cadence import CadencePolicy
from matcher.queue.claims import SearchHeld
from matcher.queue.events import (
    DequeueReason,
    LeaveReason,
    QueueEvent,
    TicketJoined,
    TicketLeft,
    WaveTick,
)
from matcher.queue.lifecycle import NO_POLICY, LifecyclePolicy
from matcher.queue.outcomes import Draft, Step
from matcher.queue.state import HELD_AGAIN, QueuedTicket, QueueRules, RegionState
from matcher.queue.wave import InvalidWaveResult
from matcher.queue.wave_close import rating_diff

__all__ = [
    "InvalidWaveResult",
    "QueueRules",
    "QueuedTicket",
    "RegionQueue",
    "rating_diff",
]

# Built once per join: tens of thousands a second on a busy worker.
_make_step = builder(Step)


class RegionQueue(RegionState):
    """A region's state with its fold: apply its events in log order with :meth:`apply`."""

    __slots__ = ()

    def apply(
        self,
        event: QueueEvent | lifecycle.LifecycleEvent,
        profile: QueueProfile,
        rules: QueueRules,
        cadence: CadencePolicy | None = None,
        policy: LifecyclePolicy = NO_POLICY,
    ) -> Step:
        """Apply one event of this region's log and return what it decided; a join naming
        ``searches`` or ``nearby`` is :meth:`join_searching`'s (the book routes it there).

        Notes: O(1) for joins and leaves; a tick is O(n) plus the strategy's cost.
        """
        if isinstance(event, TicketJoined):
            decided = _join(self, event.ticket, profile, rules)
        elif isinstance(event, TicketLeft):
            decided = _leave(self, event)
        elif isinstance(event, WaveTick):
            decided = wave.close(self, event, profile, rules, cadence, policy)
        elif isinstance(event, lifecycle.ReadyCheckAnswered):
            decided = held.answer(self, event, policy)
        elif isinstance(event, lifecycle.PlacementReported):
            decided = held.placement(self, event, policy)
        elif isinstance(event, lifecycle.BackfillRequested):
            decided = backfill.request(self, event, profile)
        elif isinstance(event, lifecycle.BackfillCancelled):
            decided = backfill.cancel(self, event)
        elif isinstance(event, SearchHeld):
            decided = searches.held_elsewhere(self, event)
        elif event.match_id is not None or event.ended is not None:
            decided = searches.decided(self, event, policy)
        else:
            decided = held.claim_decided(self, event, rules)
        if type(decided) is Step:  # a join's usual step: no method call more
            return decided
        return self._finish_step(decided)

    def join_searching(
        self,
        event: TicketJoined,
        profile: QueueProfile,
        rules: QueueRules,
        regions_by_queue: Mapping[str, Sequence[str]],
    ) -> Step:
        """A join of a ticket searching several places (its ``nearby`` already turned
        into places where a bound allows): refused whole when one of its places is not
        run by the configuration (``regions_by_queue``), else folded by this place."""
        unrun = _refuse_unrun_place(self, event, regions_by_queue)
        if unrun is not None:
            return unrun
        joined = self._finish_step(_join_searches(self, event, profile, rules))
        if not self.life.early_leaves or joined.note in ("duplicate", "duplicate_finished"):
            return joined
        home = event.searches[0] if event.searches else None
        if home is None or (home.queue, home.region) == (self.queue, self.region):
            return joined  # the platform's own join: its leave follows it on its key
        early = self.life.take_early_leave(event.ticket.ticket_id)
        if early is None:
            return joined
        # A copy whose ticket's leave was sent here before the copy came: it ends as a
        # leave here does, every other place told (docs/adr/0211).
        reason, at_ms = early
        ticket_id = event.ticket.ticket_id
        leave = TicketLeft(ticket_id, self.queue, self.region, LeaveReason(reason), at_ms)
        left = self._finish_step(_leave(self, leave))
        return Step(f"{joined.note}_then_{left.note}", joined.outputs + left.outputs)

    def _finish_step(self, decided: Step | Draft) -> Step:
        """The step of ``decided``: a draft's dequeued tickets give their claims back."""
        if type(decided) is Step:
            return decided
        assert isinstance(decided, Draft)
        if decided.dequeued and self.life.claimed:  # their players' claims end with them
            decided.life += held.releases(self, decided.dequeued)
        return decided.step()


def _join(
    queue: RegionState, ticket: Ticket, profile: QueueProfile, rules: QueueRules
) -> Step | Draft:
    ticket_id, last_tick = ticket.ticket_id, queue.last_tick_at_ms
    if ticket_id in queue.tickets:
        return Step("duplicate")
    if ticket_id in queue.finished:
        return Step("duplicate_finished")
    if last_tick and ticket.joined_at_ms + rules.ticket_ttl_ms <= last_tick:
        if queue.life.players and queue.life.holds_ticket(ticket_id):
            return Step("duplicate")  # its join sent again while it is held
        return _refuse(queue, ticket, DequeueReason.EXPIRED, "joined longer ago than the TTL")
    problem = queue.conflict(ticket) or admission_problem(ticket, profile)
    if problem:
        if problem is HELD_AGAIN:  # sent again while held, whatever its players
            return Step("duplicate")
        return _refuse(queue, ticket, DequeueReason.REJECTED, problem)
    if rules.claims:
        return held.hold_for_claims(queue, ticket)
    position = queue.admit(ticket)
    if not rules.publish_status:
        return _make_step("joined", (), None, None, None)
    status = statuses.searching(
        ticket,
        queue.queue,
        queue.region,
        position,
        0,
        ticket.joined_at_ms,
        queue.last_tick_at_ms,
        queue.last_interval_ms,
        queue.estimator,
    )
    return _make_step("joined", (status,), None, None, None)


def _join_searches(
    queue: RegionState,
    event: TicketJoined,
    profile: QueueProfile,
    rules: QueueRules,
) -> Step | Draft:
    """A join of a ticket searching several places (docs/adr/0145): the same checks."""
    ticket = event.ticket
    if ticket.ticket_id in queue.tickets or ticket.ticket_id in queue.life.places:
        return Step("duplicate")
    if ticket.ticket_id in queue.finished:
        return Step("duplicate_finished")
    last_tick = queue.last_tick_at_ms
    if last_tick and ticket.joined_at_ms + rules.ticket_ttl_ms <= last_tick:
        return _refuse_copy(queue, event, DequeueReason.EXPIRED, "joined longer ago than the TTL")
    problem = queue.conflict(ticket) or admission_problem(ticket, profile)
    if problem is HELD_AGAIN:
        return Step("duplicate")
    if event.nearby is not None:  # the book found no bound to choose by
        problem = problem or nearby.UNBOUNDED
    if problem:
        return _refuse_copy(queue, event, DequeueReason.REJECTED, problem)
    return searches.join(queue, event, rules)


def _refuse_copy(
    queue: RegionState, event: TicketJoined, reason: DequeueReason, detail: str
) -> Draft:
    """A searching join refused here. A copy (not the home's join, which then writes no
    copies) leaves its ticket searching elsewhere: it is remembered, so that a leave sent
    here is passed on (docs/adr/0207)."""
    draft = _refuse(queue, event.ticket, reason, detail)
    home = event.searches[0] if event.searches else None  # none: a ``nearby`` join, at home
    if home is not None and (home.queue, home.region) != (queue.queue, queue.region):
        queue.life.remember_refused(event.ticket, event.searches)
    return draft


def _refuse_unrun_place(
    queue: RegionState, event: TicketJoined, regions_by_queue: Mapping[str, Sequence[str]]
) -> Step | None:
    """A join searching a place the configuration does not run, refused whole before any
    copy is written (a copy there could only be refused, and the ticket would search on
    elsewhere while its dequeue says REJECTED); None when every place runs."""
    for place in event.searches:
        if place.region in regions_by_queue.get(place.queue, ()):
            continue
        ticket_id = event.ticket.ticket_id
        if ticket_id in queue.tickets or ticket_id in queue.life.places:
            return Step("duplicate")
        if ticket_id in queue.finished:
            return Step("duplicate_finished")
        detail = f"searches: queue {place.queue!r} is not open in region {place.region!r}"
        return _refuse(queue, event.ticket, DequeueReason.REJECTED, detail).step()
    return None


def _refuse(queue: RegionState, ticket: Ticket, reason: DequeueReason, detail: str) -> Draft:
    return Draft(reason.value, dequeued=[queue.refuse(ticket, reason, detail)])


def _leave(queue: RegionState, event: TicketLeft) -> Step | Draft:
    if queue.life.places and event.ticket_id in queue.life.places:
        decided = searches.leave(queue, event)
        if decided is not None:
            return decided
    queued = queue.tickets.get(event.ticket_id)
    if queued is None:
        if queue.life.refused and event.ticket_id in queue.life.refused:
            return searches.leave_refused(queue, event)
        decided = held.leave(queue, event) if queue.life.holds() else None
        if decided is None and event.ticket_id not in queue.finished:
            queue.life.remember_early_leave(event.ticket_id, event.reason.value, event.left_at_ms)
        return decided or Step("unknown_ticket")
    gone = queue.finish(queued, DequeueReason.LEFT, event.left_at_ms, detail=event.reason.value)
    return Draft("left", dequeued=[gone])
