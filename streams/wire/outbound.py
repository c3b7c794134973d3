"""The core's outputs to records: one writer table over :data:`matcher.queue.Output`.

:meth:`Writer.records` walks a step's outputs in their order (the publication order the
core decided) and writes each with the writer of its type; each output carries its own
key. The bulk records (matches, dequeues, statuses) have their own byte writers
(:mod:`streams.wire.matches`, :mod:`streams.wire.tickets`); the few others (claims,
backfill results, the wave's summary) go through fastavro. A :class:`Writer` belongs to
one worker (or replay): the bytes it remembers are its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from matcher.core import Match
from matcher.queue import Dequeued, Searching, Step, TicketJoined, WaveSummary
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested, SearchHeld
from matcher.queue.lifecycle import BackfillResult, MatchProposal, StageStatus
from matcher.queue.outcomes import Output
from schemas.codec import encoder_for
from schemas.topics import (
    CLEANUP,
    MATCHES,
    QUEUE,
    STATUS,
    WAVES,
    claim_key,
    queue_key,
    search_key,
)
from streams.wire.avro import NULL, SOME, Binary, fresh_string, header, symbols
from streams.wire.matches import MatchWriter, Write
from streams.wire.tickets import TicketWriter

#: (topic, key, value). The key is None only on a dead letter of an input without a key.
Record = tuple[str, bytes | None, bytes]

_MATCHES, _CLEANUP, _STATUS, _QUEUE, _WAVES = (
    MATCHES.name,
    CLEANUP.name,
    STATUS.name,
    QUEUE.name,
    WAVES.name,
)
_encode = {
    name: encoder_for(name)
    for name in (
        "ClaimRequested",
        "ClaimDecided",
        "ClaimReleased",
        "SearchHeld",
        "BackfillResult",
        "WaveClosed",
    )
}


class Writer:
    """Writes the core's outputs as records, one writer per output type."""

    def __init__(self) -> None:
        binary = Binary()
        self._matches = MatchWriter(binary)
        self._tickets = TicketWriter(binary)
        self._wave_matches: Write = _outside_a_wave
        self._duration_ms = 0.0
        self._table: dict[type, Callable[[Any], Record]] = {
            Match: self._match,
            MatchProposal: self._proposal,
            Dequeued: self._dequeued,
            Searching: self._searching,
            StageStatus: self._stage,
            ClaimRequested: _claim_requested,
            ClaimDecided: _claim_decided,
            ClaimReleased: _claim_released,
            SearchHeld: _search_held,
            BackfillResult: _backfill_result,
            WaveSummary: self._wave_closed,
            TicketJoined: _search_copy,
        }

    def records(self, step: Step, duration_ms: float = 0.0) -> list[Record]:
        """Every output record of ``step``, in the order of its outputs.

        ``duration_ms`` is how long the fold of a wave took (its WaveClosed says).
        Notes: O(records).
        """
        outputs = step.outputs
        if len(outputs) == 1 and type(outputs[0]) is Searching:  # a join: the usual step
            status = outputs[0]
            return [(_STATUS, status.ticket_id.encode(), self._tickets.searching(status))]
        summary = step.summary
        if summary is not None:  # a wave's matches are written with its provenance
            self._wave_matches = self._matches.for_wave(
                (
                    summary.queue,
                    summary.region,
                    summary.wave_id,
                    summary.strategy,
                    summary.config_fingerprint,
                    summary.closed_at_ms,
                    None,
                )
            )
            self._duration_ms = duration_ms
        table = self._table
        try:
            return [table[type(output)](output) for output in outputs]
        finally:
            self._wave_matches = _outside_a_wave

    def record(self, output: Output) -> Record:
        """The record of one output (a wave's Match needs :meth:`records`)."""
        return self._table[type(output)](output)

    def _match(self, match: Match) -> Record:
        return (_MATCHES, match.match_id.encode(), self._wave_matches(match))

    def _proposal(self, proposal: MatchProposal) -> Record:
        """MatchProposed, or MatchCreated once its ready check passed (no deadline)."""
        write = self._matches.for_wave(
            (
                proposal.queue,
                proposal.region,
                proposal.wave_id,
                proposal.strategy,
                proposal.config_fingerprint,
                proposal.at_ms,
                proposal.deadline_at_ms,
            )
        )
        return (_MATCHES, proposal.match.match_id.encode(), write(proposal.match))

    def _dequeued(self, dequeued: Dequeued) -> Record:
        return (_CLEANUP, dequeued.ticket_id.encode(), self._tickets.dequeued(dequeued))

    def _searching(self, status: Searching) -> Record:
        return (_STATUS, status.ticket_id.encode(), self._tickets.searching(status))

    def _stage(self, status: StageStatus) -> Record:
        return (_STATUS, status.ticket_id.encode(), self._tickets.stage(status))

    def _wave_closed(self, summary: WaveSummary) -> Record:
        value = _encode["WaveClosed"](wave_closed(summary, self._duration_ms))
        return (_WAVES, queue_key(summary.queue, summary.region), value)


def _outside_a_wave(match: Match) -> bytes:
    raise ValueError(f"match {match.match_id} is not a wave's: a Match output needs its wave")


def wave_closed(summary: WaveSummary, duration_ms: float) -> dict[str, Any]:
    """The WaveClosed record of ``summary`` as fastavro's dict."""
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


def _claim(output: ClaimRequested | ClaimDecided | ClaimReleased) -> dict[str, Any]:
    return {
        "player_id": output.player_id,
        "ticket_id": output.ticket_id,
        "queue": output.queue,
        "region": output.region,
    }


def _claim_requested(output: ClaimRequested) -> Record:
    if output.match_id is not None:
        return _search_request(output, output.match_id)
    body = _claim(output) | {"requested_at_ms": output.at_ms}
    return (_QUEUE, claim_key(output.player_id), _encode["ClaimRequested"](body))


def _claim_released(output: ClaimReleased) -> Record:
    if output.match_id is not None:
        return _search_claim(output, "RELEASED")
    body = _claim(output) | {"released_at_ms": output.at_ms}
    return (_QUEUE, claim_key(output.player_id), _encode["ClaimReleased"](body))


def _claim_decided(output: ClaimDecided) -> Record:
    if output.ended is not None:
        return _search_claim(output, "ENDED")
    if output.match_id is not None:
        return _search_claim(output, "GRANTED" if output.granted else "REFUSED")
    holder = output.holder or (None, None, None)
    body = _claim(output) | {
        "granted": output.granted,
        "holder_ticket_id": holder[0],
        "holder_queue": holder[1],
        "holder_region": holder[2],
        "decided_at_ms": output.at_ms,
    }
    return (_QUEUE, queue_key(output.queue, output.region), _encode["ClaimDecided"](body))


def _search_held(output: SearchHeld) -> Record:
    """A hold (or give-back) notice to one other place of a searching ticket: a few per
    ready check, so written by fastavro."""
    body = {
        "ticket_id": output.ticket_id,
        "player_id": output.player_id,
        "queue": output.queue,
        "region": output.region,
        "match_id": output.match_id,
        "holder_queue": output.holder[0],
        "holder_region": output.holder[1],
        "held": output.held,
        "at_ms": output.at_ms,
    }
    return (_QUEUE, queue_key(output.queue, output.region), _encode["SearchHeld"](body))


_SEARCH_CLAIM = header("SearchClaim")
_SEARCH_ACTIONS = symbols("SearchClaim", "action")
_SEARCH_ENDS = symbols("SearchClaim", "ended")
_SEARCH_BINARY = Binary()


def _search_claim(output: ClaimRequested | ClaimDecided | ClaimReleased, action: str) -> Record:
    """A claim of a ticket searching several places, as a SearchClaim (docs/adr/0145).

    Written by hand as the other bulk records are (a wave writes one per tentative
    ticket); tests/streams/test_search_claim_bytes.py holds it to fastavro's bytes.
    """
    holder = output.holder if isinstance(output, ClaimDecided) else None
    ended = output.ended if isinstance(output, ClaimDecided) else None
    binary = _SEARCH_BINARY
    string, optional = binary.string, binary.optional_string
    value = b"".join(
        (
            _SEARCH_CLAIM,
            _SEARCH_ACTIONS[action],
            string(output.ticket_id),
            string(output.player_id),
            string(output.queue),
            string(output.region),
            optional(output.match_id or None),  # a leave's claim: null (docs/adr/0146)
            optional(holder[1] if holder else None),
            optional(holder[2] if holder else None),
            NULL if ended is None else SOME + _SEARCH_ENDS[ended.upper()],
            binary.long(output.at_ms),
        )
    )
    if action in ("REQUESTED", "RELEASED"):
        key = search_key(output.ticket_id)
    else:
        key = queue_key(output.queue, output.region)
    return (_QUEUE, key, value)


_REQUESTED = _SEARCH_CLAIM + _SEARCH_ACTIONS["REQUESTED"]
_NO_HOLDER_NOR_END = NULL + NULL + NULL


def _search_request(output: ClaimRequested, match_id: str) -> Record:
    """:func:`_search_claim`'s REQUESTED, the one a wave writes per tentative ticket:
    the ids are written fresh (each once), not remembered among the wave's strings."""
    string = _SEARCH_BINARY.string
    value = b"".join(
        (
            _REQUESTED,
            fresh_string(output.ticket_id),
            fresh_string(output.player_id),
            string(output.queue),
            string(output.region),
            SOME + fresh_string(match_id) if match_id else NULL,  # a leave's claim (ADR 0146)
            _NO_HOLDER_NOR_END,
            _SEARCH_BINARY.long(output.at_ms),
        )
    )
    return (_QUEUE, search_key(output.ticket_id), value)


def _search_copy(copy: TicketJoined) -> Record:
    """The copy of a join searching several places, for one of its other places.

    Written in the JSON input form, not Avro: the queue's fast decoder reads a JSON join
    in half the CPU of an Avro one (docs/benchmarks/searches.md), and a copy is folded
    once more than it is written. Every player field is written (the copy is the same
    ticket), and a place's ``queue`` and ``open_after_ms`` only when they are not what
    the reader defaults them to (the copy's queue, 0): less text to scan and check.
    tests/streams/test_search_copy.py reads it back as the same join.
    """
    ticket = copy.ticket
    players = []
    for p in ticket.players:
        player: dict[str, Any] = {"player_id": p.player_id, "ratings": dict(p.ratings)}
        if p.roles:
            player["roles"] = p.roles
        if p.vetoed_maps:
            player["vetoed_maps"] = p.vetoed_maps
        if p.latency_ms:
            player["latency_ms"] = dict(p.latency_ms)
        if p.can_host:
            player["can_host"] = True
        if p.attributes:
            player["attributes"] = dict(p.attributes)
        if p.blocked:
            player["blocked_players"] = p.blocked
        if p.deviation is not None:
            player["deviation"] = p.deviation
        if p.numbers:
            player["numbers"] = dict(p.numbers)
        if p.data:
            player["data"] = dict(p.data)
        if p.peer_latency_ms:
            player["peer_latency_ms"] = dict(p.peer_latency_ms)
        players.append(player)
    queue = ticket.queue
    places = []
    for s in copy.searches:
        place: dict[str, Any] = {"region": s.region}
        if s.queue != queue:
            place["queue"] = s.queue
        if s.open_after_ms:
            place["open_after_ms"] = s.open_after_ms
        places.append(place)
    body: dict[str, Any] = {
        "type": "TicketJoined",
        "ticket_id": ticket.ticket_id,
        "queue": queue,
        "region": ticket.region,
        "players": players,
        "joined_at_ms": ticket.joined_at_ms,
        "searches": places,
    }
    if ticket.party_id is not None:
        body["party_id"] = ticket.party_id
    if ticket.priority:
        body["priority"] = ticket.priority
    if ticket.data:
        body["data"] = dict(ticket.data)
    return (_QUEUE, queue_key(queue, ticket.region), _json(body))


#: One encoder for every copy, msgspec's (C): the standard library's took most of a copy's
#: writing. The same compact JSON, in UTF-8; a float in exponent form is written without
#: the "+" and the leading zero of its exponent (``1e16``, not ``1e+16``), the same number
#: to every JSON reader (schemas/README.md, "Copies of a join").
_json = msgspec.json.Encoder().encode


def _backfill_result(result: BackfillResult) -> Record:
    body = {
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
                        "data": dict(s.data),
                    }
                    for s in team.seats
                ],
            }
            for team in result.teams
        ],
        "decided_at_ms": result.at_ms,
    }
    return (_MATCHES, result.session_id.encode(), _encode["BackfillResult"](body))
