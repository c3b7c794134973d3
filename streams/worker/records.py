"""The worker's one writer each of MatchCreated, TicketDequeued and TicketStatus bytes.

A 10,000-player wave publishes 5,000 MatchCreated and 10,000 TicketDequeued records,
and nearly every queue event is a join that publishes one TicketStatus. Building a
dict per record and walking the schema with fastavro would cost about as much again
as the fold, so these writers read the :class:`~matcher.core.Match`,
:class:`~matcher.queue.Dequeued` and :class:`~matcher.queue.Searching` fields
directly and write the bytes that repeat (a wave's queue, region, wave id, strategy,
fingerprint, time; a join's queue, region and wait figures) once.
The bytes are fastavro's for the same records, header included:
tests/streams/test_records.py compares them on generated values, and
:func:`schemas.direct.header` refuses an ``.avsc`` other than the one written for.
"""

from __future__ import annotations

from collections.abc import Callable

from matcher.core import Match
from matcher.queue import Dequeued, DequeueReason, Searching
from schemas.codec import max_bytes, within_limit
from schemas.direct import (
    END,
    KNOWN_STRINGS,
    NULL,
    SOME,
    double,
    fresh_string,
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
_MATCHED_REASON = DequeueReason.MATCHED
_ONE, _TWO = zigzag_varint(1), zigzag_varint(2)
_MATCH_LIMIT = max_bytes(MatchCreated)
_DEQUEUED_LIMIT = max_bytes(TicketDequeued)
_STATUS_HEADER = header("TicketStatus")
_SEARCHING = symbols("TicketStatus", "state")["SEARCHING"]
_STATUS_LIMIT = max_bytes(TicketStatus)
#: Remembered bytes per key, emptied when full (a worker sees few keys at a time).
_MEMO_LIMIT = 4_096


def match_created_writer(
    queue: str, region: str, wave_id: str, strategy: str, fingerprint: str, created_at_ms: int
) -> Callable[[Match], bytes]:
    """Return ``write(match)``: the MatchCreated record of a match of this wave.

    Notes: O(seats + quality figures) per match.
    """
    wave = string(queue) + string(region) + string(wave_id)
    provenance = string(strategy) + string(fingerprint) + zigzag_varint(created_at_ms)
    duel = _duel_writer(wave, provenance)

    def write(match: Match) -> bytes:
        teams = match.teams
        if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
            data = duel(match)
        else:
            data = _any_shape(match, wave, provenance)
        return data if len(data) <= _MATCH_LIMIT else within_limit(MatchCreated, data)

    return write


def _duel_writer(wave: bytes, provenance: bytes) -> Callable[[Match], bytes]:
    """Return ``write(match)`` for the usual shape, two teams of one seat (every duel's match).

    What repeats across a wave's matches is written once and remembered: the bytes
    between the match id and the first seat (they hold the first team's name), between
    the two seats (the second team's name), from the second seat's rating to the quality
    (map, server, channel) and a one-figure quality's name. Each is a function of its
    key alone, so the bytes are those of :func:`_any_shape`.
    """
    tail = END + provenance  # the quality's closing zero count, then provenance
    openings: dict[str, bytes] = {}
    middles: dict[str, bytes] = {}
    places: dict[tuple[str, str, str], bytes] = {}
    figures: dict[str, bytes] = {}
    known = KNOWN_STRINGS.get

    def write(match: Match) -> bytes:
        first_team, second_team = match.teams
        first, second = first_team.seats[0], second_team.seats[0]
        opening = openings.get(first_team.name)
        if opening is None:
            opening = openings[first_team.name] = wave + _TWO + string(first_team.name) + _ONE
        middle = middles.get(second_team.name)
        if middle is None:
            middle = middles[second_team.name] = END + string(second_team.name) + _ONE
        spot = (match.map_name, match.server, match.channel)
        place = places.get(spot)
        if place is None:
            place = places[spot] = END + END + b"".join(map(string, spot))
        quality = match.quality
        if len(quality) == 1:
            name, value = quality[0]
            figure = figures.get(name)
            if figure is None:
                figure = figures[name] = _ONE + string(name)
            quality_bytes, end = figure + double(float(value)), tail
        else:
            quality_bytes, end = _quality(quality), provenance
        return b"".join(
            (
                _MATCH_HEADER,
                known(match.match_id) or string(match.match_id),
                opening,
                known(first.ticket_id) or string(first.ticket_id),
                known(first.player_id) or fresh_string(first.player_id),
                known(first.role) or string(first.role),
                zigzag_varint(first.rating),
                middle,
                known(second.ticket_id) or string(second.ticket_id),
                known(second.player_id) or fresh_string(second.player_id),
                known(second.role) or string(second.role),
                zigzag_varint(second.rating),
                place,
                quality_bytes,
                end,
            )
        )

    return write


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
            append(END)
    append(END)
    append(string(match.map_name))
    append(string(match.server))
    append(string(match.channel))
    append(_quality(match.quality))
    append(provenance)
    return b"".join(parts)


def _quality(quality: tuple[tuple[str, float], ...]) -> bytes:
    if not quality:
        return END
    # A map, as a dict of the pairs reads: a repeated name keeps its first place, last value.
    figures = dict(quality).items() if len(quality) > 1 else quality
    parts = [zigzag_varint(len(figures))]
    for name, value in figures:
        parts.append(string(name))
        parts.append(double(float(value)))
    parts.append(END)
    return b"".join(parts)


def ticket_dequeued(dequeued: Dequeued) -> bytes:
    """The TicketDequeued record of ``dequeued``.

    Notes: O(length of its strings).
    """
    known = KNOWN_STRINGS.get
    match_id, detail = dequeued.match_id, dequeued.detail
    if match_id is not None and detail is None and dequeued.reason is _MATCHED_REASON:
        # A wave's matched tickets (all but a few dequeues): the fields around the
        # ticket id, match id and wait are the wave's, written once (_matched_parts).
        key = (dequeued.queue, dequeued.region, dequeued.wave_id, dequeued.at_ms)
        head, wave, tail = _MATCHED_PARTS.get(key) or _matched_parts(key)
        waited = dequeued.waves_waited
        data = b"".join(
            (
                _DEQUEUED_HEADER,
                known(dequeued.ticket_id) or string(dequeued.ticket_id),
                head,
                known(match_id) or string(match_id),
                wave,
                zigzag_varint(waited),
                tail,
            )
        )
        return data if len(data) <= _DEQUEUED_LIMIT else within_limit(TicketDequeued, data)
    reason, wave_id = dequeued.reason, dequeued.wave_id
    cause = NULL
    nearest = R1_REASON.get(reason)
    if nearest is not None:
        cause = SOME + _CAUSES[reason.name]
        reason = nearest
    data = b"".join(
        (
            _DEQUEUED_HEADER,
            known(dequeued.ticket_id) or string(dequeued.ticket_id),
            known(dequeued.queue) or string(dequeued.queue),
            known(dequeued.region) or string(dequeued.region),
            _REASONS[reason.name],
            NULL if match_id is None else SOME + (known(match_id) or string(match_id)),
            NULL if wave_id is None else SOME + (known(wave_id) or string(wave_id)),
            zigzag_varint(dequeued.waves_waited),
            NULL if detail is None else SOME + string(detail),
            zigzag_varint(dequeued.at_ms),
            cause,
        )
    )
    return data if len(data) <= _DEQUEUED_LIMIT else within_limit(TicketDequeued, data)


#: Dequeue reasons without an r1 ``reason`` symbol: written as the nearest symbol, for
#: readers of the first revision, with the precise one in ``cause`` (docs/adr/0112).
R1_REASON = {
    DequeueReason.DECLINED: DequeueReason.LEFT,
    DequeueReason.ACCEPTANCE_TIMED_OUT: DequeueReason.EXPIRED,
    DequeueReason.PLACEMENT_FAILED: DequeueReason.REJECTED,
}
_CAUSES = symbols("TicketDequeued", "cause")


def _matched_parts(key: tuple[str, str, str | None, int]) -> tuple[bytes, bytes, bytes]:
    """Bytes of a matched dequeue between its ticket id and match id, between the match id
    and its wait, and after the wait (remembered for the few keys of recent waves)."""
    queue, region, wave_id, at_ms = key
    parts = (
        string(queue) + string(region) + _MATCHED + SOME,
        NULL if wave_id is None else SOME + string(wave_id),
        NULL + zigzag_varint(at_ms) + NULL,  # no detail; the time; no cause
    )
    if len(_MATCHED_PARTS) >= 64:
        _MATCHED_PARTS.clear()
    _MATCHED_PARTS[key] = parts
    return parts


_MATCHED_PARTS: dict[tuple[str, str, str | None, int], tuple[bytes, bytes, bytes]] = {}


def ticket_status(status: Searching, stage: bytes | None = None) -> bytes:
    """The TicketStatus record (state SEARCHING) of ``status``; ``stage`` is the bytes of
    its last four fields (:func:`stage_fields`), stage SEARCHING and nothing else if None.

    >>> from schemas.codec import decode
    >>> decode(ticket_status(Searching("t-1", "1v1", "eu", 3, 0, 1767225600000))).position
    3

    Notes: O(length of its strings).
    """
    place = _PLACES.get((status.queue, status.region))
    if place is None:
        place = _place(status.queue, status.region)
    wait = (status.waves_waited, status.estimated_wait_ms, status.next_wave_at_ms, status.wave_id)
    figures = _WAITS.get(wait) or _waits(wait)
    ticket_id = status.ticket_id
    data = b"".join(
        (
            _STATUS_HEADER,
            KNOWN_STRINGS.get(ticket_id) or string(ticket_id),
            place,
            zigzag_varint(status.position),
            figures,
            zigzag_varint(status.at_ms),
            _SEARCHING_STAGE if stage is None else stage,
        )
    )
    return data if len(data) <= _STATUS_LIMIT else within_limit(TicketStatus, data)


def stage_fields(
    stage: str, match_id: str | None, deadline_at_ms: int | None, detail: str | None
) -> bytes:
    """The bytes of a status's ``stage``, ``match_id``, ``deadline_at_ms`` and ``detail``.

    >>> stage_fields("SEARCHING", None, None, None).hex()
    '0200000000'
    """
    return b"".join(
        (
            SOME + _STAGES[stage],
            optional_string(match_id),
            optional_long(deadline_at_ms),
            optional_string(detail),
        )
    )


_STAGES = symbols("TicketStatus", "stage")
_SEARCHING_STAGE = stage_fields("SEARCHING", None, None, None)


def _place(queue: str, region: str) -> bytes:
    """The bytes between a status's ticket id and its position."""
    if len(_PLACES) >= _MEMO_LIMIT:
        _PLACES.clear()
    place = _PLACES[queue, region] = string(queue) + string(region) + _SEARCHING
    return place


def _waits(key: tuple[int, int | None, int | None, str | None]) -> bytes:
    """The bytes between a status's position and its time."""
    waited, estimate, next_wave, wave_id = key
    if len(_WAITS) >= _MEMO_LIMIT:
        _WAITS.clear()
    figures = _WAITS[key] = (
        zigzag_varint(waited)
        + optional_long(estimate)
        + optional_long(next_wave)
        + optional_string(wave_id)
    )
    return figures


_PLACES: dict[tuple[str, str], bytes] = {}
_WAITS: dict[tuple[int, int | None, int | None, str | None], bytes] = {}
