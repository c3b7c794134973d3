"""The edge's only translation: wire models <-> the matcher's frozen dataclasses.

Inputs arrive as validated pydantic models (schemas.models) and leave as matcher
events; outputs leave the fold as matcher values and become plain Avro-ready dicts
(built directly, not through pydantic: a 10,000-player wave publishes ~15,000
records, and model validation would cost more than the matching).
"""

from __future__ import annotations

from typing import Any

from matcher.core import Match, Player, Ticket
from matcher.queue import (
    Dequeued,
    LeaveReason,
    QueueEvent,
    Searching,
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


def match_created(
    match: Match,
    queue: str,
    region: str,
    wave_id: str,
    strategy: str,
    fingerprint: str,
    created_at_ms: int,
) -> dict[str, Any]:
    return {
        "match_id": match.match_id,
        "queue": queue,
        "region": region,
        "wave_id": wave_id,
        "teams": [
            {
                "name": team.name,
                "players": [
                    {
                        "ticket_id": s.ticket_id,
                        "player_id": s.player_id,
                        "role": s.role,
                        "rating": s.rating,
                    }
                    for s in team.seats
                ],
            }
            for team in match.teams
        ],
        "map": match.map_name,
        "server": match.server,
        "channel": match.channel,
        "quality": {name: float(value) for name, value in match.quality},
        "strategy": strategy,
        "config_fingerprint": fingerprint,
        "created_at_ms": created_at_ms,
    }


def ticket_dequeued(dequeued: Dequeued) -> dict[str, Any]:
    return {
        "ticket_id": dequeued.ticket_id,
        "queue": dequeued.queue,
        "region": dequeued.region,
        "reason": dequeued.reason.name,
        "match_id": dequeued.match_id,
        "wave_id": dequeued.wave_id,
        "waves_waited": dequeued.waves_waited,
        "detail": dequeued.detail,
        "at_ms": dequeued.at_ms,
    }


def ticket_status(status: Searching) -> dict[str, Any]:
    return {
        "ticket_id": status.ticket_id,
        "queue": status.queue,
        "region": status.region,
        "state": "SEARCHING",
        "position": status.position,
        "waves_waited": status.waves_waited,
        "estimated_wait_ms": status.estimated_wait_ms,
        "next_wave_at_ms": status.next_wave_at_ms,
        "wave_id": status.wave_id,
        "at_ms": status.at_ms,
    }


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
