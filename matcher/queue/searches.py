"""Tickets that search several places (regions, queues): their copies, their opening,
their tentative matches and the search claims that make them matched once (docs/adr/0145).

A join naming ``searches`` is folded by its first place (the home), which writes a copy
of the join to every other place's partition; a copy opens in its place at the first
tick after its ``open_after_ms``. A wave's match holding such a ticket is tentative: it
asks the ticket's search claim (keyed ``search/<ticket_id>``, folded by
:class:`~matcher.queue.claims.ClaimBook`); granted for every such ticket, the match is
created and the ticket's other places are told to end its search; refused, the match is
dropped and its tickets return to the queue with their wait, as after a decline.

A step above :class:`~matcher.queue.state.RegionState`: it decides, the state's methods
(and its :class:`~matcher.queue.tickets.Lifecycle`'s) change what is held. A region with
no such ticket never enters this module (``life.places`` is empty).
"""

from __future__ import annotations

from dataclasses import replace

from matcher.core import Match, Ticket
from matcher.fastbuild import builder
from matcher.queue import held as held_step
from matcher.queue.claims import ClaimDecided, ClaimRequested, SearchHeld
from matcher.queue.events import DequeueReason, Search, TicketJoined, TicketLeft, WaveTick
from matcher.queue.lifecycle import LifecyclePolicy, MatchProposal, TicketStage
from matcher.queue.other_places import (
    LEFT,
    MATCHED_ELSEWHERE,
    end_elsewhere,
    give_back,
    hold_elsewhere,
    notices,
)
from matcher.queue.outcomes import Draft, LifeOutput, Step
from matcher.queue.state import QueueRules, RegionState
from matcher.queue.tickets import Held

# A copy per other place of every such join, and its step (matcher/fastbuild.py).
_make_ticket = builder(Ticket)
_make_joined = builder(TicketJoined)
_make_step = builder(Step)
# A wave holds thousands of tentative matches, each asking a claim per searching ticket.
_make_proposal = builder(MatchProposal)
_make_request = builder(ClaimRequested)

#: No copy waits to open: later than any log time.
_NEVER = 1 << 62
#: The match id of a leave's search claim (a REQUESTED with a null match id on the
#: wire): it holds the ticket in the claim partition's order, so that a match asking
#: after it is refused; the claim book answers it nothing (docs/adr/0146).
LEAVE_CLAIM = ""


def place_here(queue: RegionState, searches: tuple[Search, ...]) -> Search | None:
    for search in searches:
        if search.queue == queue.queue and search.region == queue.region:
            return search
    return None


def join(queue: RegionState, event: TicketJoined, rules: QueueRules) -> Step | Draft:
    """A valid join of a ticket searching several places, folded by one of them.

    The home (the first place) writes the copies; a place opening later holds the
    ticket unopened; an open one queues it (through the player claims, at home only,
    when one ticket per player is on: a copy is the same ticket).
    """
    ticket, searches = event.ticket, event.searches
    here = place_here(queue, searches)
    if here is None:  # the decoder refuses it; a hand-built event must not queue
        refused = queue.refuse(ticket, DequeueReason.REJECTED, "searches: omits this place")
        return Draft(DequeueReason.REJECTED.value, dequeued=[refused])
    copies: list[TicketJoined] = []
    if here is searches[0]:
        t = ticket
        for other in searches[1:]:
            copy = _make_ticket(
                t.ticket_id,
                other.queue,
                other.region,
                t.players,
                t.joined_at_ms,
                t.party_id,
                t.data,
                t.priority,
            )
            copies.append(_make_joined(copy, searches, None))
    queue.life.search_places(ticket.ticket_id, searches)
    if here.open_after_ms > 0:
        queue.life.hold_unopened(ticket, ticket.joined_at_ms + here.open_after_ms)
        return _make_step("unopened", tuple(copies), None, None, None)
    if rules.claims and here is searches[0]:
        pending = held_step.hold_for_claims(queue, ticket)
        pending.life[:0] = copies
        return pending
    position = queue.admit(ticket)
    if not rules.publish_status:
        return _make_step("joined", tuple(copies), None, None, None)
    status = queue.searching(ticket, position, ticket.joined_at_ms)
    return _make_step("joined", (status, *copies), None, None, None)


def at_tick(queue: RegionState, tick: WaveTick, rules: QueueRules, draft: Draft) -> None:
    """Open the copies whose time has come (in opening then id order); one whose TTL ran
    out first expires; forget the places of tickets gone."""
    life, now = queue.life, tick.tick_at_ms
    due: list[tuple[int, str]] = []
    if life.unopened and life.unopened_due_at <= now:  # else none opens: no pass over them
        due = sorted((at, t) for t, (_, at) in life.unopened.items() if at <= now)
        later = [at for _, at in life.unopened.values() if at > now]
        life.unopened_due_at = min(later, default=_NEVER)
    for _, ticket_id in due:
        ticket = life.end_unopened(ticket_id)
        assert ticket is not None
        if ticket.joined_at_ms + rules.ticket_ttl_ms <= now:
            draft.dequeued.append(
                queue.refuse(ticket, DequeueReason.EXPIRED, "expired before this place opened")
            )
        else:
            queue.admit(ticket)
    if len(queue.tickets) >= len(life.places):  # every place's ticket may still be here
        return
    present = set(queue.tickets).union(life.unopened, life.pending)
    for held in (*life.tentative.values(), *life.proposals.values(), *life.placing.values()):
        present.update(held.tickets)
    life.keep_places(present)


def is_tentative(queue: RegionState, match: Match) -> bool:
    places = queue.life.places
    for team in match.teams:
        for seat in team.seats:
            if seat.ticket_id in places:
                return True
    return False


def hold_tentative(
    queue: RegionState,
    matches: tuple[Match, ...],
    tick: WaveTick,
    strategy: str,
    draft: Draft,
) -> None:
    """Hold a wave's matches that hold a ticket searching elsewhere; ask for the search
    claim of each such ticket."""
    at_ms, places, life = tick.tick_at_ms, queue.life.places, queue.life
    name, region, wave_id, fingerprint = (
        queue.queue,
        queue.region,
        tick.wave_id,
        tick.config_fingerprint,
    )
    requests = draft.life
    for match, tickets in zip(matches, queue.take_matched(matches), strict=True):
        match_id = match.match_id
        proposal = _make_proposal(match, name, region, wave_id, strategy, fingerprint, at_ms, None)
        life.hold_tentative(match_id, Held(tickets, at_ms, proposal))
        for ticket_id, queued in tickets.items():  # ticket id order
            if ticket_id in places:
                first = queued.ticket.players[0].player_id
                requests.append(_make_request(first, ticket_id, name, region, at_ms, match_id))


def decided(queue: RegionState, event: ClaimDecided, policy: LifecyclePolicy) -> Draft:
    """A search claim's answer to one of this region's tentative matches, or a notice
    that a ticket's search ends here."""
    if event.ended is not None:
        return _ended(queue, event)
    match_id = event.match_id
    assert match_id is not None
    held = queue.life.tentative.get(match_id)
    if held is None or event.ticket_id not in held.tickets:
        return Draft("claim_stale")
    if not event.granted:
        holder = event.holder or (event.ticket_id, "?", "?")
        detail = f"ticket {event.ticket_id} was taken in {holder[1]}/{holder[2]} first"
        draft = Draft("match_dropped")
        _drop(queue, match_id, set(), DequeueReason.LEFT, event.at_ms, detail, draft)
        return draft
    held.accepted.add(event.ticket_id)
    places = queue.life.places
    if any(t in places and t not in held.accepted for t in held.tickets):
        return Draft("claim_granted")
    return _confirm(queue, match_id, event.at_ms, policy)


def held_elsewhere(queue: RegionState, event: SearchHeld) -> Draft:
    """Another place's match holds a ticket searching here too, or gave it back: its
    search here pauses (no wave offers it, no status is published for it) or resumes."""
    if event.held:
        paused = queue.life.pause_search(event.ticket_id, event.match_id)
        return Draft("search_paused" if paused else "search_hold_unseen")
    resumed = queue.life.resume_search(event.ticket_id, event.match_id)
    return Draft("search_resumed" if resumed else "search_resume_stale")


def _confirm(queue: RegionState, match_id: str, at_ms: int, policy: LifecyclePolicy) -> Draft:
    """Every search claim granted: the match is made, or goes on to the queue's ready
    check or placement holding its claims; its searching tickets' other places are told
    once it is made for good (docs/adr/0197)."""
    held = queue.life.end_tentative(match_id)
    proposal = held.proposal
    assert proposal is not None
    if policy.ready_check_ms:
        deadline = at_ms + policy.ready_check_ms
        proposed = replace(proposal, at_ms=at_ms, deadline_at_ms=deadline)
        queue.life.propose(match_id, Held(held.tickets, deadline, proposed))
        stage = TicketStage.REQUIRES_ACCEPTANCE
        statuses = held_step.stages(queue, held.tickets, stage, at_ms, match_id, deadline)
        paused = hold_elsewhere(queue, held.tickets, at_ms, match_id, held=True)
        return Draft("match_proposed", proposals=[proposed], life=[*statuses, *paused])
    created = replace(proposal, at_ms=at_ms)
    draft = Draft("match_confirmed", proposals=[created])
    if policy.placement_timeout_ms:
        draft.life += held_step.start_placing(queue, match_id, held.tickets, at_ms, policy)
        draft.life += hold_elsewhere(queue, held.tickets, at_ms, match_id, held=True)
        return draft
    queue.matched_late(held)
    draft.dequeued += queue.finish_held(
        held.tickets, DequeueReason.MATCHED, at_ms, match_id, proposal.wave_id
    )
    draft.life += end_elsewhere(queue, held.tickets, at_ms, match_id, MATCHED_ELSEWHERE)
    return draft


def _drop(
    queue: RegionState,
    match_id: str,
    leaving: set[str],
    reason: DequeueReason,
    at_ms: int,
    detail: str,
    draft: Draft,
) -> None:
    """A tentative match is not made: ``leaving`` tickets end here, the others return to
    the queue keeping their wait, and the search claims it may hold are given up."""
    held = queue.life.end_tentative(match_id)
    back = {t: q for t, q in held.tickets.items() if t not in leaving}
    draft.life += give_back(queue, back, at_ms, match_id)
    held_step.unmake(queue, held.tickets, leaving, reason, at_ms, detail, draft)


def _ended(queue: RegionState, event: ClaimDecided) -> Draft:
    """Another place matched the ticket (or it left there): its search here ends."""
    ticket_id, at_ms = event.ticket_id, event.at_ms
    holder = event.holder or (ticket_id, "?", "?")
    if event.ended == LEFT:
        reason, detail = DequeueReason.LEFT, f"left in {holder[1]}/{holder[2]}"
    else:
        reason = DequeueReason.MATCHED_ELSEWHERE
        detail = f"{MATCHED_ELSEWHERE}: match {event.match_id} in {holder[1]}/{holder[2]}"
    draft = Draft(reason.value)
    queued = queue.tickets.get(ticket_id)
    if queued is not None:
        draft.dequeued.append(queue.finish(queued, reason, at_ms, detail=detail))
        return draft
    ticket = queue.life.end_unopened(ticket_id)
    if ticket is not None:
        draft.dequeued.append(queue.end_unqueued(ticket, reason, detail, at_ms))
        return draft
    for match_id, held in queue.life.tentative.items():
        if ticket_id in held.tickets:
            _drop(queue, match_id, {ticket_id}, reason, at_ms, detail, draft)
            return draft
    gone = queue.finish_pending(ticket_id, reason, at_ms, None, detail)
    if gone is not None:
        draft.dequeued.append(gone)
        return draft
    if event.ended == LEFT and (queue.life.proposals or queue.life.placing):
        # Held here in a ready check or placement (the claim is this match's): a leave
        # from another place ends it here too, as a leave sent here would.
        decided = held_step.leave_from(queue, ticket_id, at_ms, f"{holder[1]}/{holder[2]}")
        if decided is not None:
            return decided
    if ticket_id not in queue.finished:  # its copy has not come yet: it will be a no-op
        queue.forget_ticket(ticket_id, at_ms)
    queue.life.forget_refused(ticket_id)  # its copy was refused here: nothing to pass on
    return Draft("search_ended_unseen")


def leave(queue: RegionState, event: TicketLeft) -> Draft | None:
    """A leave of a ticket searching several places: it ends here, its search claim is
    taken for the leave (a match elsewhere asking later is refused), and every other
    place is told; None when this region does not know the ticket."""
    searches = queue.life.places.get(event.ticket_id)
    if searches is None:
        return None
    reason, at_ms = DequeueReason.LEFT, event.left_at_ms
    draft = Draft("left")
    queued = queue.tickets.get(event.ticket_id)
    ticket: Ticket | None = None
    if queued is not None:
        ticket = queued.ticket
        draft.dequeued.append(queue.finish(queued, reason, at_ms, detail=event.reason.value))
    else:
        ticket = queue.life.end_unopened(event.ticket_id)
        if ticket is not None:
            draft.dequeued.append(queue.end_unqueued(ticket, reason, event.reason.value, at_ms))
        else:
            for match_id, held in queue.life.tentative.items():
                if event.ticket_id in held.tickets:
                    ticket = held.tickets[event.ticket_id].ticket
                    detail = f"ticket {event.ticket_id} left"
                    _drop(queue, match_id, {event.ticket_id}, reason, at_ms, detail, draft)
                    break
    if ticket is None:
        return None
    draft.life += _passed_on(queue, ticket, searches, at_ms)
    return draft


def leave_refused(queue: RegionState, event: TicketLeft) -> Draft:
    """A leave sent to a place that refused the ticket's copy, while the ticket searches
    on elsewhere: passed on as a leave at a place holding it is (its leave claim, every
    other place told); nothing ends here again (docs/adr/0207)."""
    found = queue.life.forget_refused(event.ticket_id)
    assert found is not None
    ticket, searches = found
    return Draft("left_elsewhere", life=_passed_on(queue, ticket, searches, event.left_at_ms))


def _passed_on(
    queue: RegionState, ticket: Ticket, searches: tuple[Search, ...], at_ms: int
) -> list[LifeOutput]:
    """A leave's records for the places of ``ticket``: its search claim taken for the
    leave (a match elsewhere asking later is refused), then every other place told."""
    first = ticket.players[0].player_id
    claim = ClaimRequested(first, ticket.ticket_id, queue.queue, queue.region, at_ms, LEAVE_CLAIM)
    return [claim, *notices(queue, ticket, searches, at_ms, None, LEFT)]
