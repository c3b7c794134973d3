"""The edge of a match's life after the wave: its wire events to the fold's and back.

Inputs (answers, placement reports, claims) become :mod:`matcher.queue.lifecycle` and
:mod:`matcher.queue.claims` events; the fold's lifecycle outputs become records (topic,
key, Avro bytes). Not a hot path: these records are a few per match, through fastavro.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from matcher.queue import DequeueReason, Step
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested
from matcher.queue.lifecycle import (
    LifecycleOutput,
    MatchProposal,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
    StageStatus,
)
from schemas import models as wire
from schemas.codec import encoder_for
from schemas.topics import MATCHES, QUEUE, STATUS, claim_key, queue_key
from streams import translate

Record = tuple[str, bytes, bytes]
LifecycleWire = (
    wire.ReadyCheckAnswered
    | wire.PlacementReported
    | wire.ClaimRequested
    | wire.ClaimDecided
    | wire.ClaimReleased
)
LIFECYCLE_WIRE = (
    wire.ReadyCheckAnswered,
    wire.PlacementReported,
    wire.ClaimRequested,
    wire.ClaimDecided,
    wire.ClaimReleased,
)

_encode = {
    name: encoder_for(name)
    for name in (
        "MatchProposed",
        "MatchCreated",
        "ClaimRequested",
        "ClaimDecided",
        "ClaimReleased",
        "TicketStatus",
    )
}


def to_domain(
    event: LifecycleWire,
) -> ReadyCheckAnswered | PlacementReported | ClaimRequested | ClaimDecided | ClaimReleased:
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


def _record(output: LifecycleOutput) -> Record:
    if isinstance(output, MatchProposal):
        return _match_record(output)
    if isinstance(output, StageStatus):
        return (STATUS.name, output.ticket_id.encode(), _encode["TicketStatus"](stage(output)))
    if isinstance(output, ClaimRequested):
        body = _claim(output) | {"requested_at_ms": output.at_ms}
        return (QUEUE.name, claim_key(output.player_id), _encode["ClaimRequested"](body))
    if isinstance(output, ClaimReleased):
        body = _claim(output) | {"released_at_ms": output.at_ms}
        return (QUEUE.name, claim_key(output.player_id), _encode["ClaimReleased"](body))
    holder = output.holder or (None, None, None)
    body = _claim(output) | {
        "granted": output.granted,
        "holder_ticket_id": holder[0],
        "holder_queue": holder[1],
        "holder_region": holder[2],
        "decided_at_ms": output.at_ms,
    }
    return (QUEUE.name, queue_key(output.queue, output.region), _encode["ClaimDecided"](body))


def _claim(output: ClaimRequested | ClaimDecided | ClaimReleased) -> dict[str, Any]:
    return {
        "player_id": output.player_id,
        "ticket_id": output.ticket_id,
        "queue": output.queue,
        "region": output.region,
    }


def _match_record(proposal: MatchProposal) -> Record:
    body = translate.match_created(
        proposal.match,
        proposal.queue,
        proposal.region,
        proposal.wave_id,
        proposal.strategy,
        proposal.config_fingerprint,
        proposal.at_ms,
    )
    if proposal.deadline_at_ms is None:
        value = _encode["MatchCreated"](body)
    else:
        body["proposed_at_ms"] = body.pop("created_at_ms")
        body["deadline_at_ms"] = proposal.deadline_at_ms
        value = _encode["MatchProposed"](body)
    return (MATCHES.name, proposal.match.match_id.encode(), value)


def stage(status: StageStatus) -> dict[str, Any]:
    """The TicketStatus of a lifecycle stage (docs/adr/0112: ``state`` stays SEARCHING).

    Until TicketStatus r2 carries ``stage``, ``match_id``, ``deadline_at_ms`` and
    ``detail``, only the r1 fields are written.
    """
    return {
        "ticket_id": status.ticket_id,
        "queue": status.queue,
        "region": status.region,
        "state": "SEARCHING",
        "position": 1,
        "waves_waited": status.waves_waited,
        "estimated_wait_ms": None,
        "next_wave_at_ms": None,
        "wave_id": None,
        "at_ms": status.at_ms,
    }


#: The r1 reason written for each dequeue reason r1 lacks (docs/adr/0112).
R1_REASON = {
    DequeueReason.DECLINED: DequeueReason.LEFT,
    DequeueReason.ACCEPTANCE_TIMED_OUT: DequeueReason.EXPIRED,
    DequeueReason.PLACEMENT_FAILED: DequeueReason.REJECTED,
}
_MATCHED = DequeueReason.MATCHED


def r1_dequeues(step: Step) -> Step:
    """``step`` with each dequeue reason r1 lacks written as its nearest r1 reason, the
    precise one leading the detail."""
    if not any(d.reason in R1_REASON for d in step.dequeued if d.reason is not _MATCHED):
        return step
    dequeued = tuple(
        replace(d, reason=R1_REASON[d.reason], detail=f"{d.reason.name}: {d.detail}")
        if d.reason in R1_REASON
        else d
        for d in step.dequeued
    )
    return replace(step, dequeued=dequeued)


def split(outputs: tuple[LifecycleOutput, ...]) -> tuple[list[Record], list[Record]]:
    """The records of lifecycle outputs: matches (published before the dequeues that
    name them) and the rest."""
    matches = [_record(o) for o in outputs if isinstance(o, MatchProposal)]
    rest = [_record(o) for o in outputs if not isinstance(o, MatchProposal)]
    return matches, rest
