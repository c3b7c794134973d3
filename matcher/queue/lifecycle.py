"""A match's life after the wave: ready checks, placement reports and claim admission.

The region's fold (:mod:`matcher.queue.fold`) hands these functions its state: tickets
of a proposed match wait here (seats reserved) until every player accepts, tickets of a
created match wait here until the platform reports its placement, and (with claims on)
a join waits here until every player's claim is granted. Every deadline is decided by
a wave tick, never by a clock (docs/adr/0111).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from matcher.core import Match, Ticket
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested
from matcher.queue.events import DequeueReason, TicketLeft, WaveTick
from matcher.queue.outcomes import Dequeued, Step

if TYPE_CHECKING:
    from matcher.queue.fold import QueuedTicket, QueueRules, RegionQueue


class TicketStage(enum.Enum):
    SEARCHING = "searching"
    REQUIRES_ACCEPTANCE = "requires_acceptance"
    PLACING = "placing"
    MATCHED = "matched"


class PlacementOutcome(enum.Enum):
    STARTED = "started"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class LifecyclePolicy:
    """A queue's opt-in steps after the wave (built from its settings).

    ``ready_check_ms``: 0, matches are created at once; else proposed, and every player
    must accept within this long. ``placement_timeout_ms``: 0, a created match is final;
    else its tickets wait (PLACING) for the platform's report this long, an unreported
    placement counting as started. ``placement_requeues``: how often a ticket is put
    back after a failed placement before it is dequeued with PLACEMENT_FAILED.
    """

    ready_check_ms: int = 0
    placement_timeout_ms: int = 0
    placement_requeues: int = 2

    def __post_init__(self) -> None:
        for name in ("ready_check_ms", "placement_timeout_ms", "placement_requeues"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: must be >= 0")


NO_POLICY = LifecyclePolicy()


@dataclass(frozen=True, slots=True)
class ReadyCheckAnswered:
    """A player's answer to a proposed match (published by the platform)."""

    match_id: str
    queue: str
    region: str
    player_id: str
    accepted: bool
    at_ms: int


@dataclass(frozen=True, slots=True)
class PlacementReported:
    """Whether a created match's server started (published by the platform)."""

    match_id: str
    queue: str
    region: str
    outcome: PlacementOutcome
    at_ms: int
    detail: str | None = None


LifecycleEvent = ReadyCheckAnswered | PlacementReported | ClaimDecided


class LifecycleRejected(ValueError):
    """An event the fold cannot apply (it goes to the dead-letter topic with ``code``)."""

    def __init__(self, code: str, reason: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.code, self.reason, self.field = code, reason, field


# -- outputs ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchProposal:
    """A wave's match awaiting every player's acceptance (published as MatchProposed);
    with ``deadline_at_ms`` None it is the match created (published as MatchCreated)."""

    match: Match
    queue: str
    region: str
    wave_id: str
    strategy: str
    config_fingerprint: str
    at_ms: int
    deadline_at_ms: int | None = None


@dataclass(frozen=True, slots=True)
class StageStatus:
    """A ticket's status outside the plain search (or back in it, with ``detail``)."""

    ticket_id: str
    queue: str
    region: str
    stage: TicketStage
    waves_waited: int
    at_ms: int
    match_id: str | None = None
    deadline_ms: int | None = None
    detail: str | None = None


LifecycleOutput = MatchProposal | StageStatus | ClaimRequested | ClaimDecided | ClaimReleased


# -- state ------------------------------------------------------------------------------


@dataclass(slots=True)
class Held:
    """Tickets of one match (proposed or placing), or one pending join, out of the queue."""

    tickets: dict[str, QueuedTicket]
    deadline_ms: int
    proposal: MatchProposal | None = None
    accepted: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Lifecycle:
    """The region's held tickets; every player of them is in ``players`` (seat reserved)."""

    proposals: dict[str, Held] = field(default_factory=dict)
    placing: dict[str, Held] = field(default_factory=dict)
    #: Joins waiting for their claims: ticket id -> (ticket, players granted so far).
    pending: dict[str, tuple[Ticket, set[str]]] = field(default_factory=dict)
    players: dict[str, str] = field(default_factory=dict)
    #: Tickets that asked for claims and still hold them: released when they leave.
    claimed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    placement_failures: dict[str, int] = field(default_factory=dict)
    #: Matches resolved lately (match id -> log time), so a late answer is told apart
    #: from an answer for a match that never was.
    closed: dict[str, int] = field(default_factory=dict)

    def holds(self) -> bool:
        return bool(self.players)


def waited(queue: RegionQueue, queued: QueuedTicket) -> int:
    return queue.waves_closed - queued.joined_wave


# -- claims -----------------------------------------------------------------------------


def hold_for_claims(queue: RegionQueue, ticket: Ticket) -> Step:
    """Keep a valid join pending and ask for its players' claims (docs/adr/0110)."""
    life = queue.life
    players = tuple(p.player_id for p in ticket.players)
    life.pending[ticket.ticket_id] = (ticket, set())
    life.claimed[ticket.ticket_id] = players
    for player_id in players:
        life.players[player_id] = ticket.ticket_id
    requests = tuple(
        ClaimRequested(p, ticket.ticket_id, queue.queue, queue.region, ticket.joined_at_ms)
        for p in players
    )
    return Step("pending", lifecycle=requests)


def claim_decided(queue: RegionQueue, event: ClaimDecided, rules: QueueRules) -> Step:
    life = queue.life
    entry = life.pending.get(event.ticket_id)
    if entry is None:
        return Step("claim_stale")
    ticket, granted = entry
    if not event.granted:
        del life.pending[event.ticket_id]
        _unhold(life, ticket)
        holder = event.holder or ("?", "?", "?")
        detail = (
            f"player {event.player_id} already holds ticket {holder[0]} in {holder[1]}/{holder[2]}"
        )
        return queue._refuse(ticket, DequeueReason.REJECTED, detail)
    granted.add(event.player_id)
    if len(granted) < len(ticket.players):
        return Step("claim_granted")
    del life.pending[event.ticket_id]
    _unhold(life, ticket)
    return queue._admit(ticket, rules, event.at_ms)


def _unhold(life: Lifecycle, ticket: Ticket) -> None:
    for player in ticket.players:
        if life.players.get(player.player_id) == ticket.ticket_id:
            del life.players[player.player_id]


def releases(queue: RegionQueue, dequeued: tuple[Dequeued, ...]) -> tuple[ClaimReleased, ...]:
    """The claim releases of tickets that left the region's state for good."""
    claimed = queue.life.claimed
    if not claimed:
        return ()
    out = []
    for gone in dequeued:
        players = claimed.pop(gone.ticket_id, None)
        for player_id in players or ():
            out.append(
                ClaimReleased(player_id, gone.ticket_id, queue.queue, queue.region, gone.at_ms)
            )
    return tuple(out)


# -- after the wave ---------------------------------------------------------------------


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
    """
    outputs: list[LifecycleOutput] = []
    for match in matches:
        held = _take(queue, match)
        if policy.ready_check_ms:
            deadline = tick.tick_at_ms + policy.ready_check_ms
            proposal = MatchProposal(
                match,
                queue.queue,
                queue.region,
                tick.wave_id,
                strategy,
                tick.config_fingerprint,
                tick.tick_at_ms,
                deadline,
            )
            queue.life.proposals[match.match_id] = Held(held, deadline, proposal)
            outputs.append(proposal)
            outputs += _stages(
                queue,
                held,
                TicketStage.REQUIRES_ACCEPTANCE,
                tick.tick_at_ms,
                match.match_id,
                deadline,
                closing=1,
            )
        else:
            outputs += _start_placing(queue, match.match_id, held, tick.tick_at_ms, policy, 1)
    created = () if policy.ready_check_ms else matches
    return created, [], outputs


def _take(queue: RegionQueue, match: Match) -> dict[str, QueuedTicket]:
    held = {}
    for ticket_id in match.ticket_ids():
        queued = queue.tickets.pop(ticket_id)
        held[ticket_id] = queued
        for player in queued.ticket.players:
            queue.player_ticket.pop(player.player_id, None)
            queue.life.players[player.player_id] = ticket_id
    return held


def _stages(
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


def _start_placing(
    queue: RegionQueue,
    match_id: str,
    held: dict[str, QueuedTicket],
    at_ms: int,
    policy: LifecyclePolicy,
    closing: int = 0,
) -> list[LifecycleOutput]:
    deadline = at_ms + policy.placement_timeout_ms
    queue.life.placing[match_id] = Held(held, deadline)
    return _stages(queue, held, TicketStage.PLACING, at_ms, match_id, deadline, None, closing)


# -- answers and reports ----------------------------------------------------------------


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
        return _cancel(
            queue, event.match_id, decliners, DequeueReason.DECLINED, event.at_ms, detail
        )
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
        outputs = _start_placing(queue, match_id, held.tickets, at_ms, policy)
        return Step("match_confirmed", lifecycle=(created, *outputs))
    dequeued, stages = _matched(queue, match_id, held, at_ms, proposal.wave_id, None)
    return Step("match_confirmed", dequeued=dequeued, lifecycle=(created, *stages))


def _matched(
    queue: RegionQueue,
    match_id: str,
    held: Held,
    at_ms: int,
    wave_id: str | None,
    detail: str | None,
) -> tuple[tuple[Dequeued, ...], list[LifecycleOutput]]:
    stages = _stages(queue, held.tickets, TicketStage.MATCHED, at_ms, match_id, None)
    dequeued = _finish(queue, held.tickets, DequeueReason.MATCHED, at_ms, match_id, wave_id, detail)
    return dequeued, stages


def _finish(
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
        _unhold(queue.life, queued.ticket)
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
            )
        )
    return tuple(out)


def _cancel(
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
    gone = {t: q for t, q in held.tickets.items() if t in leaving}
    back = {t: q for t, q in held.tickets.items() if t not in leaving}
    dequeued = _finish(queue, gone, reason, at_ms, None, None, detail)
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
        _unhold(queue.life, queued.ticket)
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
    return _stages(queue, back, TicketStage.SEARCHING, at_ms, None, None, detail)


def placement(queue: RegionQueue, event: PlacementReported, policy: LifecyclePolicy) -> Step:
    held = queue.life.placing.get(event.match_id)
    if held is None:
        _unknown_match(queue, event.match_id, "placement")
    assert held is not None
    del queue.life.placing[event.match_id]
    queue.life.closed[event.match_id] = event.at_ms
    if event.outcome is PlacementOutcome.STARTED:
        dequeued, stages = _matched(queue, event.match_id, held, event.at_ms, None, None)
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
    failures = queue.life.placement_failures
    back: dict[str, QueuedTicket] = {}
    gone: dict[str, QueuedTicket] = {}
    for ticket_id, queued in held.tickets.items():
        failures[ticket_id] = failures.get(ticket_id, 0) + 1
        (back if failures[ticket_id] <= policy.placement_requeues else gone)[ticket_id] = queued
    dequeued = _finish(queue, gone, DequeueReason.PLACEMENT_FAILED, at_ms, None, None, why)
    stages = requeue(queue, back, at_ms, f"returned to the queue: {why}")
    return Step("placement_failed", dequeued=dequeued, lifecycle=tuple(stages))


# -- leaves and ticks -------------------------------------------------------------------


def leave(queue: RegionQueue, event: TicketLeft) -> Step | None:
    """A leave of a held ticket; None when the region does not hold it either."""
    life = queue.life
    entry = life.pending.pop(event.ticket_id, None)
    if entry is not None:
        _unhold(life, entry[0])
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
            step = _cancel(
                queue, match_id, {event.ticket_id}, DequeueReason.LEFT, event.left_at_ms, detail
            )
            return step
    for held in life.placing.values():
        queued = held.tickets.pop(event.ticket_id, None)
        if queued is not None:
            dequeued = _finish(
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
        step = _cancel(queue, match_id, silent, DequeueReason.ACCEPTANCE_TIMED_OUT, now, detail)
        dequeued += step.dequeued
        outputs += step.lifecycle
    for match_id in [m for m, h in life.placing.items() if h.deadline_ms <= now]:
        held = life.placing.pop(match_id)
        life.closed[match_id] = now
        gone, stages = _matched(queue, match_id, held, now, None, "placement not reported")
        dequeued += gone
        outputs += stages
    expired_before = now - rules.ticket_ttl_ms
    for ticket_id in [t for t, (k, _) in life.pending.items() if k.joined_at_ms <= expired_before]:
        ticket, _ = life.pending.pop(ticket_id)
        _unhold(life, ticket)
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
    horizon = now - rules.finished_retention_ms
    if life.closed and next(iter(life.closed.values())) <= horizon:
        life.closed = {m: at for m, at in life.closed.items() if at > horizon}
    return dequeued, outputs
