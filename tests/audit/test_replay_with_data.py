"""Opaque ticket data (docs/adr/0173) replays byte for byte: the recorded session with data
on every join, and on every seat of its matches as a worker writes it, replays IDENTICAL;
a seat whose data differs from the join's is caught."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from schemas.codec import CURRENT, decode, encode
from schemas.models import MatchCreated, TicketJoined
from schemas.topics import MATCHES, QUEUE
from streams.audit.logfile import read_log, read_metadata, write_log
from streams.audit.rederive import LogRecord
from tests.audit.test_recorded_session import CONFIG, LOG, replay

Seats = dict[tuple[str, str], dict[str, str]]


def with_data(tmp_path: Path, tamper: bool = False) -> tuple[Path, int]:
    """The session with data on its joins and seats; ``tamper``: one seat's data altered.
    Returns the log and the number of seats with data."""
    seats: Seats = {}
    written = [0]

    def change(record: LogRecord) -> LogRecord:
        event = decode(record.value or b"") if record.topic in (QUEUE.name, MATCHES.name) else None
        if isinstance(event, TicketJoined):
            players = tuple(
                p.model_copy(update={"data": {"skin": f"s-{p.player_id}", "é": "ü"}})
                for p in event.players
            )
            ticket_data = {"build": f"b-{event.ticket_id}", "skin": "ticket's"}
            for p in players:  # the player's entry wins on a shared name
                seats[(event.ticket_id, p.player_id)] = dict(sorted((ticket_data | p.data).items()))
            joined = event.model_copy(update={"players": players, "data": ticket_data})
            return replace(record, value=encode(TicketJoined.model_validate(joined.model_dump())))
        if isinstance(event, MatchCreated):
            teams = []
            for team in event.teams:
                players = []
                for seat in team.players:
                    data = dict(seats[(seat.ticket_id, seat.player_id)])
                    if tamper and written[0] == 0:
                        data["build"] = "forged"
                    written[0] += 1
                    players.append(seat.model_copy(update={"data": data}))
                teams.append(team.model_copy(update={"players": tuple(players)}))
            body = event.model_copy(update={"teams": tuple(teams)}).model_dump()
            value = encode(MatchCreated.model_validate(body))
            assert value[:10] == CURRENT[MatchCreated].header
            return replace(record, value=value)
        return record

    records = list(read_log(LOG))
    # Joins first (the export groups records by topic), then the matches that seat them.
    changed = {id(r): change(r) for r in records if r.topic != MATCHES.name}
    changed |= {id(r): change(r) for r in records if r.topic == MATCHES.name}
    out = tmp_path / "with-data.avro"
    write_log(out, [changed[id(r)] for r in records], read_metadata(LOG))
    return out, written[0]


def test_a_session_with_data_replays_identically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, seated = with_data(tmp_path)
    assert seated > 600
    code, out = replay(log, CONFIG, capsys)
    assert code == 0, out
    assert "waves checked        108" in out and "verdict              IDENTICAL" in out


def test_a_seat_with_other_data_than_its_join_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _ = with_data(tmp_path, tamper=True)
    code, out = replay(log, CONFIG, capsys)
    assert code == 1, out
    assert "DIFFERENCE" in out and "verdict              DIFFERENT" in out
