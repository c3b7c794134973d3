"""The test oracle of the worker's record writers: each record as a plain dict, encoded by fastavro.

streams/wire/ writes MatchCreated, TicketDequeued and TicketStatus bytes
straight from the fold's objects; these dicts follow the schemas field by field and
:func:`schemas.codec.encoder_for` walks them with fastavro, so a writer that drifts from
the schema or from the objects' meaning gives other bytes.
"""

from __future__ import annotations

from matcher.core import Match
from matcher.queue import Dequeued, DequeueReason, Searching
from schemas.codec import encoder_for

_MATCH_CREATED = encoder_for("MatchCreated")
_TICKET_DEQUEUED = encoder_for("TicketDequeued")
_TICKET_STATUS = encoder_for("TicketStatus")


def match_created(
    match: Match,
    queue: str,
    region: str,
    wave_id: str,
    strategy: str,
    fingerprint: str,
    created_at_ms: int,
) -> bytes:
    # The quality is a map: a repeated name keeps its first place and its last value.
    return _MATCH_CREATED(
        {
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
    )


#: The r1 symbol of each reason TicketDequeued r1 lacks (docs/adr/0112), spelled out here.
R1_REASON = {
    DequeueReason.DECLINED: DequeueReason.LEFT,
    DequeueReason.ACCEPTANCE_TIMED_OUT: DequeueReason.EXPIRED,
    DequeueReason.PLACEMENT_FAILED: DequeueReason.REJECTED,
}
#: Written LEFT with no cause (docs/adr/0145): its detail says so.
NO_CAUSE = {DequeueReason.MATCHED_ELSEWHERE: DequeueReason.LEFT}


def ticket_dequeued(dequeued: Dequeued) -> bytes:
    reason, cause = dequeued.reason, None
    if reason in R1_REASON:  # docs/adr/0112: the nearest r1 symbol, the precise one as cause
        reason, cause = R1_REASON[reason], reason.name
    reason = NO_CAUSE.get(reason, reason)
    return _TICKET_DEQUEUED(
        {
            "ticket_id": dequeued.ticket_id,
            "queue": dequeued.queue,
            "region": dequeued.region,
            "reason": reason.name,
            "match_id": dequeued.match_id,
            "wave_id": dequeued.wave_id,
            "waves_waited": dequeued.waves_waited,
            "detail": dequeued.detail,
            "at_ms": dequeued.at_ms,
            "cause": cause,
        }
    )


def ticket_status(status: Searching) -> bytes:
    return _TICKET_STATUS(
        {
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
            "stage": "SEARCHING",
            "match_id": None,
            "deadline_at_ms": None,
            "detail": None,
        }
    )
