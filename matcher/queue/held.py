"""Held matches: a wave's matches held for a ready check or a placement report, the
platform's answers and reports, leaves of held tickets, joins held for their claims,
and the deadlines a tick decides (docs/adr/0110, 0111, 0115).

A step above :class:`~matcher.queue.state.RegionState`: it decides, the state's methods
(and its :class:`~matcher.queue.tickets.Lifecycle`'s) change what is held.
"""

from __future__ import annotations

from matcher.core import Match, Ticket
from matcher.fastbuild import builder
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested
from matcher.queue.events import DequeueReason, TicketLeft, WaveTick
from matcher.queue.lifecycle import (
    Connection,
    LifecyclePolicy,
    LifecycleRejected,
    MatchProposal,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
    StageStatus,
    TicketStage,
)
from matcher.queue.other_places import (
    LEFT,
    MATCHED_ELSEWHERE,
    end_elsewhere,
    give_back,
    hold_elsewhere,
)
from matcher.queue.outcomes import Dequeued, Draft
from matcher.queue.state import QueuedTicket, QueueRules, RegionState
from matcher.queue.tickets import Held

# Built by the thousand when a big wave proposes its matches (matcher/fastbuild.py).
_make_proposal = builder(MatchProposal)
_make_stage = builder(StageStatus)


# -- a wave's matches ---------------------------------------------------------------------


def divert(
    queue: RegionState,
    matches: tuple[Match, ...],
    tick: WaveTick,
    strategy: str,
    policy: LifecyclePolicy,
    draft: Draft,
) -> tuple[Match, ...]:
    """Take a wave's matches out of the queue into a ready check or a placement.

    Returns the matches to publish as created (none under a ready check); their
    proposals and stage statuses go to ``draft``. Notes: O(queue) for a big wave, like
    a wave's removal of its matched tickets.
    """
    at_ms = tick.tick_at_ms
    held_by_match = queue.take_matched(matches)
    if not policy.ready_check_ms:
        for match, held in zip(matches, held_by_match, strict=True):
            draft.life += start_placing(queue, match.match_id, held, at_ms, policy, 1)
        return matches
    deadline = at_ms + policy.ready_check_ms
    name, region, wave_id, fingerprint = (
        queue.queue,
        queue.region,
        tick.wave_id,
        tick.config_fingerprint,
    )
    closed = queue.waves_closed + 1  # waves_waited(q, closing=1), inlined: a big wave
    stage = TicketStage.REQUIRES_ACCEPTANCE
    proposals, life = draft.proposals, draft.life
    for match, held in zip(matches, held_by_match, strict=True):
        match_id = match.match_id
        proposal = _make_proposal(
            match, name, region, wave_id, strategy, fingerprint, at_ms, deadline
        )
        queue.life.propose(match_id, Held(held, deadline, proposal))
        proposals.append(proposal)
        for ticket_id, queued in held.items():  # in ticket id order
            life.append(
                _make_stage(
                    ticket_id,
                    name,
                    region,
                    stage,
                    closed - queued.joined_wave,
                    at_ms,
                    match_id,
                    deadline,
                    None,
                    None,
                )
            )
    return ()


def stages(
    queue: RegionState,
    held: dict[str, QueuedTicket],
    stage: TicketStage,
    at_ms: int,
    match_id: str | None,
    deadline: int | None,
    detail: str | None = None,
    closing: int = 0,
    connection: Connection | None = None,
) -> list[StageStatus]:
    """``closing`` is 1 inside a wave close: the closing wave counts as waited (as for
    a matched ticket's dequeue). ``connection``: a started placement's, for every ticket."""
    return [
        StageStatus(
            t,
            queue.queue,
            queue.region,
            stage,
            queue.waves_waited(q, closing),
            at_ms,
            match_id,
            deadline,
            detail,
            connection,
        )
        for t, q in sorted(held.items())
    ]


def start_placing(
    queue: RegionState,
    match_id: str,
    held: dict[str, QueuedTicket],
    at_ms: int,
    policy: LifecyclePolicy,
    closing: int = 0,
) -> list[StageStatus]:
    deadline = at_ms + policy.placement_timeout_ms
    queue.life.start_placing(match_id, Held(held, deadline))
    return stages(queue, held, TicketStage.PLACING, at_ms, match_id, deadline, None, closing)


def _matched(
    queue: RegionState,
    match_id: str,
    held: Held,
    at_ms: int,
    wave_id: str | None,
    detail: str | None,
    draft: Draft,
    connection: Connection | None = None,
) -> None:
    statuses = stages(
        queue, held.tickets, TicketStage.MATCHED, at_ms, match_id, None, connection=connection
    )
    ended = end_elsewhere(queue, held.tickets, at_ms, match_id, MATCHED_ELSEWHERE)
    queue.matched_late(held)
    draft.dequeued += queue.finish_held(
        held.tickets, DequeueReason.MATCHED, at_ms, match_id, wave_id, detail
    )
    draft.life += statuses
    draft.life += ended


def _cancel(
    queue: RegionState,
    match_id: str,
    leaving: set[str],
    reason: DequeueReason,
    at_ms: int,
    detail: str,
    draft: Draft,
    others_told: bool = False,
) -> Draft:
    """End a proposal: ``leaving`` tickets are dequeued, the others go back to the queue;
    a searching ticket's claim is given back, or its other places told it left (unless
    ``others_told``: it left from one of them, which told the rest)."""
    held = queue.life.end_proposal(match_id, at_ms)
    _leave_or_search_again(queue, match_id, held.tickets, leaving, at_ms, draft, others_told)
    unmake(queue, held.tickets, leaving, reason, at_ms, detail, draft)
    return draft


def _leave_or_search_again(
    queue: RegionState,
    match_id: str,
    tickets: dict[str, QueuedTicket],
    leaving: set[str] | dict[str, QueuedTicket],
    at_ms: int,
    draft: Draft,
    others_told: bool = False,
) -> None:
    """For the tickets of a held match not made that search several places: ``leaving``
    ones end their search everywhere, the others' search claims are released (they may
    be matched anywhere again)."""
    if not queue.life.places:  # none searches elsewhere: no split of the tickets to build
        return
    if not others_told:
        gone = {t: q for t, q in tickets.items() if t in leaving}
        draft.life += end_elsewhere(queue, gone, at_ms, None, LEFT)
    back = {t: q for t, q in tickets.items() if t not in leaving}
    draft.life += give_back(queue, back, at_ms, match_id)
    draft.life += hold_elsewhere(queue, back, at_ms, match_id, held=False)


def unmake(
    queue: RegionState,
    tickets: dict[str, QueuedTicket],
    leaving: set[str],
    reason: DequeueReason,
    at_ms: int,
    detail: str,
    draft: Draft,
) -> None:
    """A held match that is not made (a proposal ended, a tentative match dropped): its
    ``leaving`` tickets are dequeued, the others go back to the queue keeping their wait,
    and the meeting it recorded is forgotten."""
    queue.take_back_meeting(tickets)  # the match was never played
    gone = {t: q for t, q in tickets.items() if t in leaving}
    back = {t: q for t, q in tickets.items() if t not in leaving}
    draft.dequeued += queue.finish_held(gone, reason, at_ms, None, None, detail)
    _requeue(queue, back, at_ms, f"returned to the queue: {detail}", draft)


def _requeue(
    queue: RegionState, back: dict[str, QueuedTicket], at_ms: int, detail: str, draft: Draft
) -> None:
    """Put ``back`` in the queue, each with its SEARCHING status; one the configuration
    switched to while it was held refuses ends REJECTED instead (docs/adr/0213)."""
    if back and queue.life.unfit:
        refused = {t: q for t, q in back.items() if t in queue.life.unfit}
        for ticket_id, queued in sorted(refused.items()):
            problem = queue.life.take_unfit(ticket_id)
            why = f"the configuration in force refuses it: {problem}"
            draft.dequeued += queue.finish_held(
                {ticket_id: queued}, DequeueReason.REJECTED, at_ms, None, None, why
            )
        back = {t: q for t, q in back.items() if t not in refused}
    if not back:
        return
    queue.requeue(back)
    paused = queue.life.paused  # held by another place's match: its status is that place's
    shown = {t: q for t, q in back.items() if t not in paused} if paused else back
    draft.life += stages(queue, shown, TicketStage.SEARCHING, at_ms, None, None, detail)


# -- the platform's answers ------------------------------------------------------------------


def answer(queue: RegionState, event: ReadyCheckAnswered, policy: LifecyclePolicy) -> Draft:
    """Apply a player's answer; a decline or the last acceptance resolves the proposal."""
    held = queue.life.proposals.get(event.match_id)
    if held is None:
        raise _unknown_match(queue, event.match_id, "ready check")
    assert held.proposal is not None
    ticket_of = {p.player_id: t for t, q in held.tickets.items() for p in q.ticket.players}
    if event.player_id not in ticket_of:
        raise LifecycleRejected(
            "not_in_match",
            f"player {event.player_id} is not in match {event.match_id}",
            "player_id",
        )
    if event.at_ms < held.proposal.at_ms:  # would date the match before its proposal
        raise LifecycleRejected(
            "implausible_time",
            f"answered at {event.at_ms}, before match {event.match_id} was proposed at "
            f"{held.proposal.at_ms}",
            "answered_at_ms",
        )
    if event.at_ms > held.deadline_ms:
        raise LifecycleRejected(
            "answer_too_late",
            f"answered at {event.at_ms}, after the deadline {held.deadline_ms} of match "
            f"{event.match_id}",
            "answered_at_ms",
        )
    if not event.accepted:
        decliners = {ticket_of[event.player_id]}
        detail = f"player {event.player_id} declined match {event.match_id}"
        reason = DequeueReason.DECLINED
        draft = Draft("match_cancelled")
        return _cancel(queue, event.match_id, decliners, reason, event.at_ms, detail, draft)
    if queue.life.accept(held, event.player_id) < len(ticket_of):
        return Draft("accepted")
    return _confirm(queue, event.match_id, event.at_ms, policy)


def _unknown_match(queue: RegionState, match_id: str, what: str) -> LifecycleRejected:
    if match_id in queue.life.closed:
        return LifecycleRejected(
            "match_closed", f"the {what} of match {match_id} is already over", "match_id"
        )
    return LifecycleRejected(
        "unknown_match",
        f"no open {what} for match {match_id} in {queue.queue}/{queue.region}",
        "match_id",
    )


def _confirm(queue: RegionState, match_id: str, at_ms: int, policy: LifecyclePolicy) -> Draft:
    held = queue.life.end_proposal(match_id, at_ms)
    proposal = held.proposal
    assert proposal is not None
    created = MatchProposal(
        proposal.match,
        proposal.queue,
        proposal.region,
        proposal.wave_id,
        proposal.strategy,
        proposal.config_fingerprint,
        at_ms,
    )
    draft = Draft("match_confirmed", proposals=[created])
    if policy.placement_timeout_ms:
        draft.life += start_placing(queue, match_id, held.tickets, at_ms, policy)
        return draft
    _matched(queue, match_id, held, at_ms, proposal.wave_id, None, draft)
    return draft


def placement(queue: RegionState, event: PlacementReported, policy: LifecyclePolicy) -> Draft:
    if event.match_id not in queue.life.placing:
        raise _unknown_match(queue, event.match_id, "placement")
    held = queue.life.end_placing(event.match_id, event.at_ms)
    if event.outcome is PlacementOutcome.STARTED:
        draft = Draft("placement_started")
        _matched(queue, event.match_id, held, event.at_ms, None, None, draft, event.connection)
        return draft
    why = f"placement of match {event.match_id} failed" + (
        f": {event.detail}" if event.detail else ""
    )
    queue.take_back_meeting(held.tickets)  # the match was never played
    back: dict[str, QueuedTicket] = {}
    gone: dict[str, QueuedTicket] = {}
    for ticket_id, queued in held.tickets.items():
        failures = queue.life.failed_placement(ticket_id)
        (back if failures <= policy.placement_requeues else gone)[ticket_id] = queued
    reason = DequeueReason.PLACEMENT_FAILED
    draft = Draft("placement_failed")
    _leave_or_search_again(queue, event.match_id, held.tickets, gone, event.at_ms, draft)
    draft.dequeued += queue.finish_held(gone, reason, event.at_ms, None, None, why)
    _requeue(queue, back, event.at_ms, f"returned to the queue: {why}", draft)
    return draft


def leave(queue: RegionState, event: TicketLeft) -> Draft | None:
    """A leave of a held ticket; None when the region does not hold it either."""
    return _leave(queue, event.ticket_id, event.left_at_ms, event.reason.value, None)


def leave_from(queue: RegionState, ticket_id: str, at_ms: int, place: str) -> Draft | None:
    """The end notice of a leave a ticket searching several places sent to its other
    place ``place`` (``queue/region``), which told the others already: the same as a
    leave sent here (docs/adr/0205); None when the region does not hold it."""
    return _leave(queue, ticket_id, at_ms, f"left in {place}", place)


def _leave(
    queue: RegionState, ticket_id: str, at_ms: int, said: str, left_in: str | None
) -> Draft | None:
    reason = DequeueReason.LEFT
    gone = queue.finish_pending(ticket_id, reason, at_ms, None, said)
    if gone is not None:
        return Draft("left", dequeued=[gone])
    for match_id, held in queue.life.proposals.items():
        if ticket_id in held.tickets:
            where = "" if left_in is None else f" in {left_in}"
            detail = f"ticket {ticket_id} left{where} during the ready check of match {match_id}"
            draft = Draft("match_cancelled")
            told = left_in is not None
            return _cancel(queue, match_id, {ticket_id}, reason, at_ms, detail, draft, told)
    queued = queue.life.leave_placing(ticket_id)
    if queued is not None:
        ended = [] if left_in else end_elsewhere(queue, {ticket_id: queued}, at_ms, None, LEFT)
        dequeued = queue.finish_held({ticket_id: queued}, reason, at_ms, None, None, said)
        return Draft("left", dequeued=list(dequeued), life=list(ended))
    return None


# -- claims ---------------------------------------------------------------------------------


def hold_for_claims(queue: RegionState, ticket: Ticket) -> Draft:
    """Keep a valid join pending and ask for its players' claims (docs/adr/0110)."""
    players = queue.life.hold_pending(ticket)
    requests = [
        ClaimRequested(p, ticket.ticket_id, queue.queue, queue.region, ticket.joined_at_ms)
        for p in players
    ]
    return Draft("pending", life=list(requests))


def claim_decided(queue: RegionState, event: ClaimDecided, rules: QueueRules) -> Draft:
    if event.ticket_id not in queue.life.pending:
        return Draft("claim_stale")
    if not event.granted:
        ticket = queue.life.end_pending(event.ticket_id)
        assert ticket is not None
        holder = event.holder or ("?", "?", "?")
        detail = (
            f"player {event.player_id} already holds ticket {holder[0]} in {holder[1]}/{holder[2]}"
        )
        refused = queue.refuse(ticket, DequeueReason.REJECTED, detail)
        return Draft(DequeueReason.REJECTED.value, dequeued=[refused])
    if not queue.life.grant(event.ticket_id, event.player_id):
        return Draft("claim_granted")
    ticket = queue.life.end_pending(event.ticket_id)
    assert ticket is not None
    if queue.life.unfit and (problem := queue.life.take_unfit(event.ticket_id)):
        why = f"the configuration in force refuses it: {problem}"
        refused = queue.refuse(ticket, DequeueReason.REJECTED, why)
        return Draft(DequeueReason.REJECTED.value, dequeued=[refused])
    position = queue.admit(ticket)
    if not rules.publish_status:
        return Draft("joined")
    return Draft("joined", statuses=(queue.searching(ticket, position, event.at_ms),))


def releases(queue: RegionState, dequeued: list[Dequeued]) -> list[ClaimReleased]:
    """The claim releases of tickets that left the region's state for good."""
    out = []
    for gone in dequeued:
        for player_id in queue.life.release_claims(gone.ticket_id):
            out.append(
                ClaimReleased(player_id, gone.ticket_id, queue.queue, queue.region, gone.at_ms)
            )
    return out


# -- deadlines --------------------------------------------------------------------------


def at_tick(
    queue: RegionState, tick: WaveTick, rules: QueueRules, policy: LifecyclePolicy, draft: Draft
) -> None:
    """Decide every deadline the tick has reached, before the wave runs (so tickets put
    back can be matched by this very wave): ready checks time out, unreported
    placements count as started, pending joins past the TTL expire."""
    life, now = queue.life, tick.tick_at_ms
    for match_id in [m for m, h in life.proposals.items() if h.deadline_ms <= now]:
        held = life.proposals[match_id]
        ticket_of = {p.player_id: t for t, q in held.tickets.items() for p in q.ticket.players}
        silent = {t for p, t in ticket_of.items() if p not in held.accepted}
        detail = f"no answer to the ready check of match {match_id} by {held.deadline_ms}"
        reason = DequeueReason.ACCEPTANCE_TIMED_OUT
        _cancel(queue, match_id, silent, reason, now, detail, draft)
    for match_id in [m for m, h in life.placing.items() if h.deadline_ms <= now]:
        held = life.end_placing(match_id, now)
        _matched(queue, match_id, held, now, None, "placement not reported", draft)
    expired_before = now - rules.ticket_ttl_ms
    for ticket_id in [t for t, (k, _) in life.pending.items() if k.joined_at_ms <= expired_before]:
        gone = queue.finish_pending(
            ticket_id, DequeueReason.EXPIRED, now, tick.wave_id, "claims not settled"
        )
        assert gone is not None
        draft.dequeued.append(gone)
    # Decided matches are remembered two windows (an answer later than that is told it
    # names no open match).
    window = 2 * max(policy.ready_check_ms, policy.placement_timeout_ms)
    life.prune_closed(now - min(rules.finished_retention_ms, window))
