"""The edge's only translation: wire models <-> the matcher's frozen dataclasses.

Inputs arrive as validated pydantic models (schemas.models) and leave as matcher
events. Outputs: a wave's summary becomes a plain Avro-ready dict (built directly, not
through pydantic); matches, dequeues and statuses are written as bytes straight from the
fold's objects (streams/worker/records.py).
"""

from __future__ import annotations

from typing import Any

from matcher.core import Player, Ticket
from matcher.queue import (
    LeaveReason,
    QueueEvent,
    TicketJoined,
    TicketLeft,
    WaveSummary,
    WaveTick,
)
from schemas import models as wire


def to_domain(event: wire.TicketJoined | wire.TicketLeft | wire.WaveTick) -> QueueEvent:
    if isinstance(event, wire.TicketJoined):
        return TicketJoined(ticket_from_wire(event))
    if isinstance(event, wire.TicketLeft):
        return TicketLeft(
            event.ticket_id,
            event.queue,
            event.region,
            LeaveReason[event.reason.name],
            event.left_at_ms,
        )
    return WaveTick(
        event.queue,
        event.region,
        event.wave_id,
        event.sequence,
        event.tick_at_ms,
        event.config_fingerprint,
        event.interval_ms,
    )


def ticket_from_wire(event: wire.TicketJoined) -> Ticket:
    players = tuple(
        Player(
            player_id=p.player_id,
            ratings=tuple(sorted(p.ratings.items())),
            roles=tuple(p.roles),
            vetoed_maps=tuple(p.vetoed_maps),
            latency_ms=tuple(sorted(p.latency_ms.items())),
            can_host=bool(getattr(p, "can_host", False)),
            attributes=tuple(sorted(p.attributes.items())),
        )
        for p in event.players
    )
    return Ticket(
        event.ticket_id, event.queue, event.region, players, event.joined_at_ms, event.party_id
    )


def wave_closed(summary: WaveSummary, duration_ms: float) -> dict[str, Any]:
    return {
        "queue": summary.queue,
        "region": summary.region,
        "wave_id": summary.wave_id,
        "wave_number": summary.wave_number,
        "players_in_snapshot": summary.players_in_snapshot,
        "tickets_in_snapshot": summary.tickets_in_snapshot,
        "matches": summary.matches,
        "matched_players": summary.matched_players,
        "unmatched": summary.unmatched,
        "expired": summary.expired,
        "avg_rating_diff": summary.avg_rating_diff,
        "min_rating_diff": summary.min_rating_diff,
        "max_rating_diff": summary.max_rating_diff,
        "strategy": summary.strategy,
        "config_fingerprint": summary.config_fingerprint,
        "closed_at_ms": summary.closed_at_ms,
        "duration_ms": max(0.0, duration_ms),
    }
