"""The platform's answers and reports, leaves of held tickets, and the deadlines a
tick decides (docs/adr/0111)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from matcher.queue.events import DequeueReason, TicketLeft, WaveTick
from matcher.queue.held import cancel, finish, held_players, matched, requeue, start_placing
from matcher.queue.lifecycle import (
    Held,
    LifecycleOutput,
    LifecyclePolicy,
    LifecycleRejected,
    MatchProposal,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
    unhold,
)
from matcher.queue.meetings import forget_meeting
from matcher.queue.outcomes import Dequeued, Step

if TYPE_CHECKING:
    from matcher.queue.fold import QueuedTicket, QueueRules, RegionQueue


def answer(queue: RegionQueue, event: ReadyCheckAnswered, policy: LifecyclePolicy) -> Step:
    """Apply a player's answer; a decline or the last acceptance resolves the proposal."""
    held = queue.life.proposals.get(event.match_id)
    if held is None:
        _unknown_match(queue, event.match_id, "ready check")
    assert held is not None and held.proposal is not None
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
        return cancel(queue, event.match_id, decliners, DequeueReason.DECLINED, event.at_ms, detail)
    held.accepted.add(event.player_id)
    if len(held.accepted) < len(ticket_of):
        return Step("accepted")
    return _confirm(queue, event.match_id, event.at_ms, policy)


def _unknown_match(queue: RegionQueue, match_id: str, what: str) -> None:
    if match_id in queue.life.closed:
        raise LifecycleRejected(
            "match_closed", f"the {what} of match {match_id} is already over", "match_id"
        )
    raise LifecycleRejected(
        "unknown_match",
        f"no open {what} for match {match_id} in {queue.queue}/{queue.region}",
        "match_id",
    )


def _confirm(queue: RegionQueue, match_id: str, at_ms: int, policy: LifecyclePolicy) -> Step:
    held = queue.life.proposals.pop(match_id)
    proposal = held.proposal
    assert proposal is not None
    queue.life.closed[match_id] = at_ms
    created = MatchProposal(
        proposal.match,
        proposal.queue,
        proposal.region,
        proposal.wave_id,
        proposal.strategy,
        proposal.config_fingerprint,
        at_ms,
    )
    if policy.placement_timeout_ms:
        outputs = start_placing(queue, match_id, held.tickets, at_ms, policy)
        return Step("match_confirmed", lifecycle=(created, *outputs))
    dequeued, stages = matched(queue, match_id, held, at_ms, proposal.wave_id, None)
    return Step("match_confirmed", dequeued=dequeued, lifecycle=(created, *stages))


def placement(queue: RegionQueue, event: PlacementReported, policy: LifecyclePolicy) -> Step:
    held = queue.life.placing.get(event.match_id)
    if held is None:
        _unknown_match(queue, event.match_id, "placement")
    assert held is not None
    del queue.life.placing[event.match_id]
    queue.life.closed[event.match_id] = event.at_ms
    if event.outcome is PlacementOutcome.STARTED:
        dequeued, stages = matched(queue, event.match_id, held, event.at_ms, None, None)
        return Step("placement_started", dequeued=dequeued, lifecycle=tuple(stages))
    return _placement_failed(queue, event.match_id, held, event.at_ms, event.detail, policy)


def _placement_failed(
    queue: RegionQueue,
    match_id: str,
    held: Held,
    at_ms: int,
    detail: str | None,
    policy: LifecyclePolicy,
) -> Step:
    why = f"placement of match {match_id} failed" + (f": {detail}" if detail else "")
    forget_meeting(queue.meetings, held_players(held.tickets))  # the match was never played
    failures = queue.life.placement_failures
    back: dict[str, QueuedTicket] = {}
    gone: dict[str, QueuedTicket] = {}
    for ticket_id, queued in held.tickets.items():
        failures[ticket_id] = failures.get(ticket_id, 0) + 1
        (back if failures[ticket_id] <= policy.placement_requeues else gone)[ticket_id] = queued
    dequeued = finish(queue, gone, DequeueReason.PLACEMENT_FAILED, at_ms, None, None, why)
    stages = requeue(queue, back, at_ms, f"returned to the queue: {why}")
    return Step("placement_failed", dequeued=dequeued, lifecycle=tuple(stages))


def leave(queue: RegionQueue, event: TicketLeft) -> Step | None:
    """A leave of a held ticket; None when the region does not hold it either."""
    life = queue.life
    entry = life.pending.pop(event.ticket_id, None)
    if entry is not None:
        unhold(life, entry[0])
        queue.finished[event.ticket_id] = event.left_at_ms
        gone = Dequeued(
            event.ticket_id,
            queue.queue,
            queue.region,
            DequeueReason.LEFT,
            0,
            event.left_at_ms,
            detail=event.reason.value,
        )
        return Step("left", dequeued=(gone,))
    for match_id, held in life.proposals.items():
        if event.ticket_id in held.tickets:
            detail = f"ticket {event.ticket_id} left during the ready check of match {match_id}"
            step = cancel(
                queue, match_id, {event.ticket_id}, DequeueReason.LEFT, event.left_at_ms, detail
            )
            return step
    for held in life.placing.values():
        queued = held.tickets.pop(event.ticket_id, None)
        if queued is not None:
            dequeued = finish(
                queue,
                {event.ticket_id: queued},
                DequeueReason.LEFT,
                event.left_at_ms,
                None,
                None,
                event.reason.value,
            )
            return Step("left", dequeued=dequeued)
    return None


def at_tick(
    queue: RegionQueue, tick: WaveTick, rules: QueueRules, policy: LifecyclePolicy
) -> tuple[list[Dequeued], list[LifecycleOutput]]:
    """Decide every deadline the tick has reached, before the wave runs (so tickets put
    back can be matched by this very wave): ready checks time out, unreported
    placements count as started, pending joins past the TTL expire."""
    life, now = queue.life, tick.tick_at_ms
    dequeued: list[Dequeued] = []
    outputs: list[LifecycleOutput] = []
    for match_id in [m for m, h in life.proposals.items() if h.deadline_ms <= now]:
        held = life.proposals[match_id]
        ticket_of = {p.player_id: t for t, q in held.tickets.items() for p in q.ticket.players}
        silent = {t for p, t in ticket_of.items() if p not in held.accepted}
        detail = f"no answer to the ready check of match {match_id} by {held.deadline_ms}"
        step = cancel(queue, match_id, silent, DequeueReason.ACCEPTANCE_TIMED_OUT, now, detail)
        dequeued += step.dequeued
        outputs += step.lifecycle
    for match_id in [m for m, h in life.placing.items() if h.deadline_ms <= now]:
        held = life.placing.pop(match_id)
        life.closed[match_id] = now
        gone, stages = matched(queue, match_id, held, now, None, "placement not reported")
        dequeued += gone
        outputs += stages
    expired_before = now - rules.ticket_ttl_ms
    for ticket_id in [t for t, (k, _) in life.pending.items() if k.joined_at_ms <= expired_before]:
        ticket, _ = life.pending.pop(ticket_id)
        unhold(life, ticket)
        queue.finished[ticket_id] = now
        dequeued.append(
            Dequeued(
                ticket_id,
                queue.queue,
                queue.region,
                DequeueReason.EXPIRED,
                0,
                now,
                wave_id=tick.wave_id,
                detail="claims not settled",
            )
        )
    # Decided matches are remembered two windows (an answer later than that is told it
    # names no open match): every proposal of a busy queue would otherwise stay for the
    # whole retention, in memory and in every snapshot.
    window = 2 * max(policy.ready_check_ms, policy.placement_timeout_ms)
    horizon = now - min(rules.finished_retention_ms, window)
    if life.closed and next(iter(life.closed.values())) <= horizon:
        life.closed = {m: at for m, at in life.closed.items() if at > horizon}
    return dequeued, outputs
