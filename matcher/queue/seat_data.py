"""The opaque data of a wave's tickets, attached to the seats its strategy chose.

Strategies never see a use for the data (no rule reads it, docs/adr/0173), so they build
seats without it; the wave attaches each player's :func:`~matcher.core.seat_data` after
the strategy's result is checked, before anything is taken or held.
"""

from __future__ import annotations

from dataclasses import replace

from matcher.core import Match, Seat, Team, WaveResult, WaveSnapshot, seat_data


def with_seat_data(result: WaveResult, snapshot: WaveSnapshot) -> WaveResult:
    """``result`` with each seat carrying its player's data; ``result`` itself when no
    ticket of the wave has any (the usual wave: one pass over its tickets).

    Notes: O(players) for that pass; O(seats) more when some ticket has data.
    """
    if not _any_data(snapshot):
        return result
    data: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    for waiting in snapshot.tickets:
        ticket = waiting.ticket
        for player in ticket.players:
            found = seat_data(ticket, player)
            if found:
                data[(ticket.ticket_id, player.player_id)] = found
    return replace(result, matches=tuple(_with_data(match, data) for match in result.matches))


def _any_data(snapshot: WaveSnapshot) -> bool:
    # Plain loops, no generator per ticket: every wave pays this pass.
    for waiting in snapshot.tickets:
        ticket = waiting.ticket
        if ticket.data:
            return True
        for player in ticket.players:
            if player.data:
                return True
    return False


def _with_data(match: Match, data: dict[tuple[str, str], tuple[tuple[str, str], ...]]) -> Match:
    teams = tuple(
        Team(team.name, tuple(_seat(seat, data) for seat in team.seats)) for team in match.teams
    )
    return replace(match, teams=teams)


def _seat(seat: Seat, data: dict[tuple[str, str], tuple[tuple[str, str], ...]]) -> Seat:
    found = data.get((seat.ticket_id, seat.player_id), ())
    return replace(seat, data=found) if found else seat
