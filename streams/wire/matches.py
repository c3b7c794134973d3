"""MatchCreated and MatchProposed bytes, written straight from :class:`~matcher.core.Match`.

A 10,000-player wave publishes 5,000 matches (as created, or proposed under a ready
check). Building a dict per record and walking the schema with fastavro would cost about
as much again as the fold, so :class:`MatchWriter` reads the match's fields directly and
writes the bytes that repeat within a wave (queue, region, wave id, team names, map,
server, channel, provenance) once. The two records share their fields up to the
provenance: MatchCreated ends with ``created_at_ms``, MatchProposed with
``proposed_at_ms`` and ``deadline_at_ms``; each has its own header and limit. The bytes
are fastavro's (tests/streams/test_records.py, tests/streams/test_lifecycle_log.py).
A match none of whose seats carries data is written as the revision before the seats'
``data`` (its bytes unchanged, docs/adr/0171); one with data as the current schema.
"""

from __future__ import annotations

from collections.abc import Callable

from matcher.core import Match
from schemas.codec import WRITTEN_WITHOUT, max_bytes, within_limit
from schemas.models import MatchCreated, MatchProposed
from streams.wire.avro import END, Binary, double, fresh_string, header, revision_header

_ONE, _TWO = b"\x02", b"\x04"  # the longs 1 and 2: a team count, a seat count
#: A wave's writers remembered by the writer (a worker sees few waves at a time).
_WAVES_REMEMBERED = 64

Write = Callable[[Match], bytes]
#: (queue, region, wave id, strategy, config fingerprint, time, deadline or None).
WaveKey = tuple[str, str, str, str, str, int, int | None]


class MatchWriter:
    """Writes a wave's matches as MatchCreated (no deadline) or MatchProposed records."""

    def __init__(self, binary: Binary) -> None:
        self._binary = binary
        self._waves: dict[WaveKey, Write] = {}
        self._created = (_without_data("MatchCreated"), max_bytes(MatchCreated), MatchCreated)
        self._proposed = (_without_data("MatchProposed"), max_bytes(MatchProposed), MatchProposed)
        self._with_data = {
            MatchCreated: header("MatchCreated"),
            MatchProposed: header("MatchProposed"),
        }

    def for_wave(self, key: WaveKey) -> Write:
        """The writer of the wave ``key`` names (remembered: a wave writes thousands)."""
        write = self._waves.get(key)
        if write is None:
            if len(self._waves) >= _WAVES_REMEMBERED:
                self._waves.clear()
            write = self._waves[key] = self._wave_writer(key)
        return write

    def _wave_writer(self, key: WaveKey) -> Write:
        queue, region, wave_id, strategy, fingerprint, at_ms, deadline = key
        string, long = self._binary.string, self._binary.long
        head, limit, model = self._created if deadline is None else self._proposed
        wave = string(queue) + string(region) + string(wave_id)
        provenance = string(strategy) + string(fingerprint) + long(at_ms)
        if deadline is not None:
            provenance += long(deadline)
        duel = self._duel_writer(head, wave, provenance)
        with_data = self._with_data[model]

        def write(match: Match) -> bytes:
            teams = match.teams
            # A duel's two seats are read directly: no generator on every match.
            if (
                len(teams) == 2
                and len(first := teams[0].seats) == 1
                and len(second := teams[1].seats) == 1
                and not (first[0].data or second[0].data)
            ):
                data = duel(match)
            elif any(seat.data for team in teams for seat in team.seats):
                data = self._any_shape(with_data, match, wave, provenance, True)
            else:
                data = self._any_shape(head, match, wave, provenance)
            return data if len(data) <= limit else within_limit(model, data)

        return write

    def _duel_writer(self, head: bytes, wave: bytes, provenance: bytes) -> Write:
        """``write(match)`` for the usual shape, two teams of one seat (every duel's match).

        What repeats across a wave's matches is written once and remembered: the bytes
        between the match id and the first seat (they hold the first team's name),
        between the two seats (the second team's name), from the second seat's rating to
        the quality (map, server, channel) and a one-figure quality's name. Each is a
        function of its key alone, so the bytes are those of :meth:`_any_shape`.
        """
        binary = self._binary
        string, long, known = binary.string, binary.long, binary.strings.get
        fresh = fresh_string
        tail = END + provenance  # the quality's closing zero count, then provenance
        openings: dict[str, bytes] = {}
        middles: dict[str, bytes] = {}
        places: dict[tuple[str, str, str], bytes] = {}
        figures: dict[str, bytes] = {}

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
                quality_bytes, end = self._quality(quality), provenance
            return b"".join(
                (
                    head,
                    known(match.match_id) or string(match.match_id),
                    opening,
                    known(first.ticket_id) or string(first.ticket_id),
                    known(first.player_id) or fresh(first.player_id),
                    known(first.role) or string(first.role),
                    long(first.rating),
                    middle,
                    known(second.ticket_id) or string(second.ticket_id),
                    known(second.player_id) or fresh(second.player_id),
                    known(second.role) or string(second.role),
                    long(second.rating),
                    place,
                    quality_bytes,
                    end,
                )
            )

        return write

    def _any_shape(
        self, head: bytes, match: Match, wave: bytes, provenance: bytes, data: bool = False
    ) -> bytes:
        string, long = self._binary.string, self._binary.long
        parts = [head, string(match.match_id), wave]
        append = parts.append
        teams = match.teams
        if teams:
            append(long(len(teams)))
            for team in teams:
                append(string(team.name))
                if team.seats:
                    append(long(len(team.seats)))
                    for seat in team.seats:
                        append(string(seat.ticket_id))
                        append(string(seat.player_id))
                        append(string(seat.role))
                        append(long(seat.rating))
                        if data:
                            append(self._data(seat.data))
                append(END)
        append(END)
        append(string(match.map_name))
        append(string(match.server))
        append(string(match.channel))
        append(self._quality(match.quality))
        append(provenance)
        return b"".join(parts)

    def _data(self, data: tuple[tuple[str, str], ...]) -> bytes:
        if not data:
            return END
        parts = [self._binary.long(len(data))]
        for name, value in data:  # sorted, unique names: the map's bytes are fixed
            parts.append(fresh_string(name))
            parts.append(fresh_string(value))
        parts.append(END)
        return b"".join(parts)

    def _quality(self, quality: tuple[tuple[str, float], ...]) -> bytes:
        if not quality:
            return END
        # A map, as a dict of the pairs reads: a repeated name keeps its first place, last value.
        figures = dict(quality).items() if len(quality) > 1 else quality
        string = self._binary.string
        parts = [self._binary.long(len(figures))]
        for name, value in figures:
            parts.append(string(name))
            parts.append(double(float(value)))
        parts.append(END)
        return b"".join(parts)


def _without_data(name: str) -> bytes:
    """The header of the revision before the seats' ``data`` (schemas.codec.WRITTEN_WITHOUT)."""
    header(name)  # the current schema must still be the one this writer knows
    return revision_header(name, WRITTEN_WITHOUT[name][0])
