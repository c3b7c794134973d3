"""Admission by claim (docs/adr/0110): a join waits, pending, for its players' claims."""

from __future__ import annotations

from typing import TYPE_CHECKING

from matcher.core import Ticket
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested
from matcher.queue.events import DequeueReason
from matcher.queue.lifecycle import unhold
from matcher.queue.outcomes import Dequeued, Step

if TYPE_CHECKING:
    from matcher.queue.fold import QueueRules, RegionQueue


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
        unhold(life, ticket)
        holder = event.holder or ("?", "?", "?")
        detail = (
            f"player {event.player_id} already holds ticket {holder[0]} in {holder[1]}/{holder[2]}"
        )
        return queue._refuse(ticket, DequeueReason.REJECTED, detail)
    granted.add(event.player_id)
    if len(granted) < len(ticket.players):
        return Step("claim_granted")
    del life.pending[event.ticket_id]
    unhold(life, ticket)
    return queue._admit(ticket, rules, event.at_ms)


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
