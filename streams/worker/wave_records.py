"""MatchCreated, TicketDequeued and TicketStatus bytes written straight from the fold's objects.

A 10,000-player wave publishes 5,000 MatchCreated and 10,000 TicketDequeued records.
Going through :mod:`streams.translate`'s dicts (nested ones for a match's teams) and
then an encoder costs about as much again as the encoding: these writers read the
:class:`~matcher.core.Match` and :class:`~matcher.queue.Dequeued` fields directly and
write the wave's constant fields (queue, region, wave id, strategy, fingerprint, time)
once per wave. The bytes are those of ``encoder_for(...)(translate.match_created(...))``
``encoder_for(...)(translate.ticket_dequeued(...))`` and the same for statuses:
tests/streams/test_wave_records.py compares them on generated matches, dequeues, statuses.
"""

from __future__ import annotations

from collections.abc import Callable

from matcher.core import Match
from matcher.queue import Dequeued, DequeueReason, Searching
from schemas.codec import max_bytes, within_limit
from schemas.direct import (
    KNOWN_STRINGS as _KNOWN_STRINGS,
)
from schemas.direct import (
    double,
    header,
    optional_long,
    optional_string,
    string,
    symbols,
    zigzag_varint,
)
from schemas.models import MatchCreated, TicketDequeued, TicketStatus

_MATCH_HEADER = header("MatchCreated")
_DEQUEUED_HEADER = header("TicketDequeued")
_REASONS = symbols("TicketDequeued", "reason")
_MATCHED = _REASONS["MATCHED"]  # the reason of nearly every dequeue: skip Enum.name
_NULL, _SOME = b"\x00", b"\x02"  # union branches 0 (null) and 1 (the value)
_END = b"\x00"  # the zero count closing an array or a map
_ONE, _TWO = zigzag_varint(1), zigzag_varint(2)
_MATCH_LIMIT = max_bytes(MatchCreated)
_DEQUEUED_LIMIT = max_bytes(TicketDequeued)
_STATUS_HEADER = header("TicketStatus")
_SEARCHING = symbols("TicketStatus", "state")["SEARCHING"]
_STATUS_LIMIT = max_bytes(TicketStatus)


def match_created_writer(
    queue: str, region: str, wave_id: str, strategy: str, fingerprint: str, created_at_ms: int
) -> Callable[[Match], bytes]:
    """Return ``write(match)``: the MatchCreated record of a match of this wave.

    Notes: O(seats + quality figures) per match.
    """
    wave = string(queue) + string(region) + string(wave_id)
    provenance = string(strategy) + string(fingerprint) + zigzag_varint(created_at_ms)

    def write(match: Match) -> bytes:
        teams = match.teams
        if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
            data = _duel(match, wave, provenance)
        else:
            data = _any_shape(match, wave, provenance)
        return data if len(data) <= _MATCH_LIMIT else within_limit(MatchCreated, data)

    return write


def _duel(match: Match, wave: bytes, provenance: bytes) -> bytes:
    """The usual shape, two teams of one seat, in one join (every duel's match)."""
    (first_team, second_team) = match.teams
    first, second = first_team.seats[0], second_team.seats[0]
    known = _KNOWN_STRINGS.get
    return b"".join(
        (
            _MATCH_HEADER,
            string(match.match_id),
            wave,
            _TWO,
            known(first_team.name) or string(first_team.name),
            _ONE,
            string(first.ticket_id),
            string(first.player_id),
            known(first.role) or string(first.role),
            zigzag_varint(first.rating),
            _END,
            known(second_team.name) or string(second_team.name),
            _ONE,
            string(second.ticket_id),
            string(second.player_id),
            known(second.role) or string(second.role),
            zigzag_varint(second.rating),
            _END,
            _END,
            known(match.map_name) or string(match.map_name),
            known(match.server) or string(match.server),
            known(match.channel) or string(match.channel),
            _quality(match.quality),
            provenance,
        )
    )


def _any_shape(match: Match, wave: bytes, provenance: bytes) -> bytes:
    parts = [_MATCH_HEADER, string(match.match_id), wave]
    append = parts.append
    teams = match.teams
    if teams:
        append(zigzag_varint(len(teams)))
        for team in teams:
            append(string(team.name))
            if team.seats:
                append(zigzag_varint(len(team.seats)))
                for seat in team.seats:
                    append(string(seat.ticket_id))
                    append(string(seat.player_id))
                    append(string(seat.role))
                    append(zigzag_varint(seat.rating))
            append(_END)
    append(_END)
    append(string(match.map_name))
    append(string(match.server))
    append(string(match.channel))
    append(_quality(match.quality))
    append(provenance)
    return b"".join(parts)


def _quality(quality: tuple[tuple[str, float], ...]) -> bytes:
    if not quality:
        return _END
    # translate builds a dict: a repeated name keeps its first place and its last value.
    figures = dict(quality).items() if len(quality) > 1 else quality
    parts = [zigzag_varint(len(figures))]
    for name, value in figures:
        parts.append(string(name))
        parts.append(double(float(value)))
    parts.append(_END)
    return b"".join(parts)


def ticket_dequeued(dequeued: Dequeued) -> bytes:
    """The TicketDequeued record of ``dequeued``.

    Notes: O(length of its strings).
    """
    known = _KNOWN_STRINGS.get
    reason = dequeued.reason
    match_id, wave_id, detail = dequeued.match_id, dequeued.wave_id, dequeued.detail
    data = b"".join(
        (
            _DEQUEUED_HEADER,
            known(dequeued.ticket_id) or string(dequeued.ticket_id),
            known(dequeued.queue) or string(dequeued.queue),
            known(dequeued.region) or string(dequeued.region),
            _MATCHED if reason is DequeueReason.MATCHED else _REASONS[reason.name],
            _NULL if match_id is None else _SOME + (known(match_id) or string(match_id)),
            _NULL if wave_id is None else _SOME + (known(wave_id) or string(wave_id)),
            zigzag_varint(dequeued.waves_waited),
            _NULL if detail is None else _SOME + string(detail),
            zigzag_varint(dequeued.at_ms),
        )
    )
    return data if len(data) <= _DEQUEUED_LIMIT else within_limit(TicketDequeued, data)


def ticket_status(status: Searching) -> bytes:
    """The TicketStatus record (state SEARCHING) of ``status``.

    Notes: O(length of its strings).
    """
    data = b"".join(
        (
            _STATUS_HEADER,
            string(status.ticket_id),
            string(status.queue),
            string(status.region),
            _SEARCHING,
            zigzag_varint(status.position),
            zigzag_varint(status.waves_waited),
            optional_long(status.estimated_wait_ms),
            optional_long(status.next_wave_at_ms),
            optional_string(status.wave_id),
            zigzag_varint(status.at_ms),
        )
    )
    return data if len(data) <= _STATUS_LIMIT else within_limit(TicketStatus, data)
