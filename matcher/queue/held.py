"""Tickets held after the wave: proposed (a ready check) or placing, and their return
to the queue with the wave they joined in (docs/adr/0111)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from matcher.core import Match
from matcher.fastbuild import builder
from matcher.queue import departures
from matcher.queue.estimate import rating_band
from matcher.queue.events import DequeueReason, WaveTick
from matcher.queue.lifecycle import (
    Held,
    LifecycleOutput,
    LifecyclePolicy,
    MatchProposal,
    StageStatus,
    TicketStage,
    unhold,
    waited,
)
from matcher.queue.meetings import forget_meeting
from matcher.queue.outcomes import Dequeued, Step
from matcher.queue.wave_close import matched_ticket_ids

if TYPE_CHECKING:
    from matcher.queue.fold import QueuedTicket, RegionQueue


def divert(
    queue: RegionQueue,
    matches: tuple[Match, ...],
    tick: WaveTick,
    strategy: str,
    policy: LifecyclePolicy,
) -> tuple[tuple[Match, ...], list[Dequeued], list[LifecycleOutput]]:
    """Take a wave's matches out of the queue into a ready check or a placement.

    Returns the matches to publish as created (none under a ready check), the dequeues
    that remain to publish (none: the tickets are held) and the lifecycle outputs.
    Notes: O(queue) for a big wave, like a wave's removal of its matched tickets.
    """
    outputs: list[LifecycleOutput] = []
    at_ms, closed = tick.tick_at_ms, queue.waves_closed + 1  # this wave counts as waited
    held_by_match = _take(queue, matches)
    if not policy.ready_check_ms:
        for match, held in zip(matches, held_by_match, strict=True):
            outputs += start_placing(queue, match.match_id, held, at_ms, policy, 1)
        return matches, [], outputs
    deadline = at_ms + policy.ready_check_ms
    name, region, wave_id, fingerprint = (
        queue.queue,
        queue.region,
        tick.wave_id,
        (tick.config_fingerprint),
    )
    stage, proposals = TicketStage.REQUIRES_ACCEPTANCE, queue.life.proposals
    for match, held in zip(matches, held_by_match, strict=True):
        match_id = match.match_id
        proposal = _make_proposal(
            match, name, region, wave_id, strategy, fingerprint, at_ms, deadline
        )
        proposals[match_id] = Held(held, deadline, proposal)
        outputs.append(proposal)
        for ticket_id, queued in held.items():  # in ticket id order
            outputs.append(
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
                )
            )
    return (), [], outputs


# Built by the thousand when a big wave proposes its matches (matcher/fastbuild.py).
_make_proposal = builder(MatchProposal)
_make_stage = builder(StageStatus)


def _take(queue: RegionQueue, matches: tuple[Match, ...]) -> list[dict[str, QueuedTicket]]:
    """Move each match's tickets from the queue to the held players, in bulk (as a wave
    removes its matched tickets: departures.drop); each match's tickets in ticket id order."""
    ticket_ids, match_ids = matched_ticket_ids(matches)
    tickets = queue.tickets
    chosen = [(t, tickets[t]) for t in ticket_ids]
    departures.drop(queue, set(ticket_ids), chosen)
    players = queue.life.players
    out: list[dict[str, QueuedTicket]] = []
    last = None
    for (ticket_id, queued), match_id in zip(chosen, match_ids, strict=True):
        if match_id != last:
            out.append({})
            last = match_id
        out[-1][ticket_id] = queued
        for player in queued.ticket.players:
            players[player.player_id] = ticket_id
    return out


def held_players(tickets: dict[str, QueuedTicket]) -> list[str]:
    """The players of held tickets (of one match)."""
    return [p.player_id for q in tickets.values() for p in q.ticket.players]


def stages(
    queue: RegionQueue,
    held: dict[str, QueuedTicket],
    stage: TicketStage,
    at_ms: int,
    match_id: str | None,
    deadline: int | None,
    detail: str | None = None,
    closing: int = 0,
) -> list[LifecycleOutput]:
    """``closing`` is 1 inside a wave close: the closing wave counts as waited (as for
    a matched ticket's dequeue)."""
    return [
        StageStatus(
            t,
            queue.queue,
            queue.region,
            stage,
            waited(queue, q) + closing,
            at_ms,
            match_id,
            deadline,
            detail,
        )
        for t, q in sorted(held.items())
    ]


def start_placing(
    queue: RegionQueue,
    match_id: str,
    held: dict[str, QueuedTicket],
    at_ms: int,
    policy: LifecyclePolicy,
    closing: int = 0,
) -> list[LifecycleOutput]:
    deadline = at_ms + policy.placement_timeout_ms
    queue.life.placing[match_id] = Held(held, deadline)
    return stages(queue, held, TicketStage.PLACING, at_ms, match_id, deadline, None, closing)


def matched(
    queue: RegionQueue,
    match_id: str,
    held: Held,
    at_ms: int,
    wave_id: str | None,
    detail: str | None,
) -> tuple[tuple[Dequeued, ...], list[LifecycleOutput]]:
    statuses = stages(queue, held.tickets, TicketStage.MATCHED, at_ms, match_id, None)
    # The wait estimator learns a held ticket's wait now, when it is matched for good.
    queue.estimator.observe_late(
        [(rating_band(q.ticket), waited(queue, q)) for q in held.tickets.values()]
    )
    dequeued = finish(queue, held.tickets, DequeueReason.MATCHED, at_ms, match_id, wave_id, detail)
    return dequeued, statuses


def finish(
    queue: RegionQueue,
    tickets: dict[str, QueuedTicket],
    reason: DequeueReason,
    at_ms: int,
    match_id: str | None,
    wave_id: str | None,
    detail: str | None,
) -> tuple[Dequeued, ...]:
    out = []
    for ticket_id, queued in sorted(tickets.items()):
        unhold(queue.life, queued.ticket)
        queue.finished[ticket_id] = at_ms
        queue.life.placement_failures.pop(ticket_id, None)
        out.append(
            Dequeued(
                ticket_id,
                queue.queue,
                queue.region,
                reason,
                waited(queue, queued),
                at_ms,
                match_id,
                wave_id,
                detail,
                # The time-to-match metric's start, as for a ticket matched at its wave.
                queued.ticket.joined_at_ms if reason is DequeueReason.MATCHED else None,
            )
        )
    return tuple(out)


def cancel(
    queue: RegionQueue,
    match_id: str,
    leaving: set[str],
    reason: DequeueReason,
    at_ms: int,
    detail: str,
) -> Step:
    """End a proposal: ``leaving`` tickets are dequeued, the others go back to the queue."""
    held = queue.life.proposals.pop(match_id)
    queue.life.closed[match_id] = at_ms
    forget_meeting(queue.meetings, held_players(held.tickets))  # the match was never played
    gone = {t: q for t, q in held.tickets.items() if t in leaving}
    back = {t: q for t, q in held.tickets.items() if t not in leaving}
    dequeued = finish(queue, gone, reason, at_ms, None, None, detail)
    stages = requeue(queue, back, at_ms, f"returned to the queue: {detail}")
    return Step("match_cancelled", dequeued=dequeued, lifecycle=tuple(stages))


def requeue(
    queue: RegionQueue, back: dict[str, QueuedTicket], at_ms: int, detail: str
) -> list[LifecycleOutput]:
    """Put held tickets back in the queue with the wave they joined in (their waiting
    time), behind every ticket that joined in the same wave or earlier."""
    if not back:
        return []
    for queued in back.values():
        unhold(queue.life, queued.ticket)
    merged: dict[str, QueuedTicket] = {}
    returning = sorted(back.items(), key=lambda item: (item[1].joined_wave, item[0]))
    index = 0
    for ticket_id, queued in queue.tickets.items():
        while index < len(returning) and returning[index][1].joined_wave < queued.joined_wave:
            merged[returning[index][0]] = returning[index][1]
            index += 1
        merged[ticket_id] = queued
    for ticket_id, queued in returning[index:]:
        merged[ticket_id] = queued
    queue.tickets = merged
    for ticket_id, queued in back.items():
        for player in queued.ticket.players:
            queue.player_ticket[player.player_id] = ticket_id
    return stages(queue, back, TicketStage.SEARCHING, at_ms, None, None, detail)
