"""The edge of a match's life after the wave: its wire events to the fold's and back.

Inputs (answers, placement reports, claims) become :mod:`matcher.queue.lifecycle` and
:mod:`matcher.queue.claims` events; the fold's lifecycle outputs become records (topic,
key, Avro bytes). Not a hot path: these records are a few per match, through fastavro.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from matcher.core import Match
from matcher.queue import Searching
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested
from matcher.queue.lifecycle import (
    BackfillCancelled,
    BackfillRequested,
    BackfillResult,
    BackfillTeam,
    LifecycleOutput,
    MatchProposal,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
    StageStatus,
)
from schemas import models as wire
from schemas.codec import CURRENT, HEADER_BYTES, encoder_for, max_bytes, within_limit
from schemas.direct import zigzag_varint
from schemas.topics import MATCHES, QUEUE, STATUS, claim_key, queue_key
from streams.worker.records import match_created_writer, stage_fields, ticket_status

Record = tuple[str, bytes, bytes]
LifecycleWire = (
    wire.BackfillRequested
    | wire.BackfillCancelled
    | wire.ReadyCheckAnswered
    | wire.PlacementReported
    | wire.ClaimRequested
    | wire.ClaimDecided
    | wire.ClaimReleased
)
LIFECYCLE_WIRE = (
    wire.BackfillRequested,
    wire.BackfillCancelled,
    wire.ReadyCheckAnswered,
    wire.PlacementReported,
    wire.ClaimRequested,
    wire.ClaimDecided,
    wire.ClaimReleased,
)

_encode = {
    name: encoder_for(name)
    for name in ("ClaimRequested", "ClaimDecided", "ClaimReleased", "BackfillResult")
}
_PROPOSED_HEADER = CURRENT[wire.MatchProposed].header
_PROPOSED_LIMIT = max_bytes(wire.MatchProposed)


def to_domain(
    event: LifecycleWire,
) -> (
    ReadyCheckAnswered
    | PlacementReported
    | ClaimRequested
    | ClaimDecided
    | ClaimReleased
    | BackfillRequested
    | BackfillCancelled
):
    if isinstance(event, wire.BackfillRequested):
        teams = tuple(
            BackfillTeam(t.name, tuple((p.player_id, p.rating) for p in t.players), t.open_slots)
            for t in event.teams
        )
        return BackfillRequested(
            event.session_id,
            event.queue,
            event.region,
            teams,
            event.requested_at_ms,
            event.deadline_at_ms,
        )
    if isinstance(event, wire.BackfillCancelled):
        return BackfillCancelled(event.session_id, event.queue, event.region, event.cancelled_at_ms)
    if isinstance(event, wire.ReadyCheckAnswered):
        return ReadyCheckAnswered(
            event.match_id,
            event.queue,
            event.region,
            event.player_id,
            event.accepted,
            event.answered_at_ms,
        )
    if isinstance(event, wire.PlacementReported):
        return PlacementReported(
            event.match_id,
            event.queue,
            event.region,
            PlacementOutcome[event.outcome.name],
            event.reported_at_ms,
            event.detail,
        )
    if isinstance(event, wire.ClaimRequested):
        return ClaimRequested(
            event.player_id, event.ticket_id, event.queue, event.region, event.requested_at_ms
        )
    if isinstance(event, wire.ClaimReleased):
        return ClaimReleased(
            event.player_id, event.ticket_id, event.queue, event.region, event.released_at_ms
        )
    holder = None
    if event.holder_ticket_id is not None:
        holder = (event.holder_ticket_id, event.holder_queue or "", event.holder_region or "")
    return ClaimDecided(
        event.player_id,
        event.ticket_id,
        event.queue,
        event.region,
        event.granted,
        event.decided_at_ms,
        holder,
    )


def routing_key(event: Any) -> bytes | None:
    """The key a lifecycle event must carry, when it is not ``"<queue>/<region>"``."""
    if isinstance(event, (ClaimRequested, ClaimReleased)):
        return claim_key(event.player_id)
    return None


def record(output: LifecycleOutput) -> Record:
    if isinstance(output, MatchProposal):
        return _match_record(output)
    if isinstance(output, StageStatus):
        return (STATUS.name, output.ticket_id.encode(), stage_status(output))
    if isinstance(output, ClaimRequested):
        body = _claim(output) | {"requested_at_ms": output.at_ms}
        return (QUEUE.name, claim_key(output.player_id), _encode["ClaimRequested"](body))
    if isinstance(output, ClaimReleased):
        body = _claim(output) | {"released_at_ms": output.at_ms}
        return (QUEUE.name, claim_key(output.player_id), _encode["ClaimReleased"](body))
    if isinstance(output, BackfillResult):
        return (
            MATCHES.name,
            output.session_id.encode(),
            _encode["BackfillResult"](_backfill(output)),
        )
    holder = output.holder or (None, None, None)
    body = _claim(output) | {
        "granted": output.granted,
        "holder_ticket_id": holder[0],
        "holder_queue": holder[1],
        "holder_region": holder[2],
        "decided_at_ms": output.at_ms,
    }
    return (QUEUE.name, queue_key(output.queue, output.region), _encode["ClaimDecided"](body))


def _backfill(result: BackfillResult) -> dict[str, Any]:
    return {
        "session_id": result.session_id,
        "queue": result.queue,
        "region": result.region,
        "wave_id": result.wave_id,
        "outcome": result.outcome,
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
            for team in result.teams
        ],
        "decided_at_ms": result.at_ms,
    }


def _claim(output: ClaimRequested | ClaimDecided | ClaimReleased) -> dict[str, Any]:
    return {
        "player_id": output.player_id,
        "ticket_id": output.ticket_id,
        "queue": output.queue,
        "region": output.region,
    }


def _match_record(proposal: MatchProposal) -> Record:
    """MatchCreated, or MatchProposed: the same fields with ``created_at_ms`` read as
    ``proposed_at_ms``, then ``deadline_at_ms`` (so its bytes are MatchCreated's body,
    written by the one MatchCreated writer, and one more long)."""
    created = _created_writer(proposal)(proposal.match)
    if proposal.deadline_at_ms is None:
        return (MATCHES.name, proposal.match.match_id.encode(), created)
    value = b"".join(
        (_PROPOSED_HEADER, created[HEADER_BYTES:], zigzag_varint(proposal.deadline_at_ms))
    )
    if len(value) > _PROPOSED_LIMIT:
        value = within_limit(wire.MatchProposed, value)
    return (MATCHES.name, proposal.match.match_id.encode(), value)


def _created_writer(proposal: MatchProposal) -> Callable[[Match], bytes]:
    """The MatchCreated writer of the proposal's wave and time (a wave proposes thousands)."""
    key = (
        proposal.queue,
        proposal.region,
        proposal.wave_id,
        proposal.strategy,
        proposal.config_fingerprint,
        proposal.at_ms,
    )
    write = _WRITERS.get(key)
    if write is None:
        if len(_WRITERS) >= 64:
            _WRITERS.clear()
        write = _WRITERS[key] = match_created_writer(*key)
    return write


_WRITERS: dict[tuple[str, str, str, str, str, int], Callable[[Match], bytes]] = {}


def stage_status(status: StageStatus) -> bytes:
    """The TicketStatus of a lifecycle stage (docs/adr/0112: ``state`` stays SEARCHING,
    at place 1 and without an estimate; ``stage``, ``match_id``, ``deadline_at_ms`` and
    ``detail`` say where the ticket is)."""
    searching = Searching(
        status.ticket_id, status.queue, status.region, 1, status.waves_waited, status.at_ms
    )
    stage = stage_fields(status.stage.name, status.match_id, status.deadline_ms, status.detail)
    return ticket_status(searching, stage)
