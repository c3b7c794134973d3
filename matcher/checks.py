"""Checks every strategy's output must pass, whatever the strategy.

Strategy-specific checkers (sides, windows, roles) live beside their strategy and
call :func:`wave_result_problems` first.
"""

from __future__ import annotations

from collections import Counter

from matcher.core import (
    Match,
    QueueProfile,
    Ticket,
    WaveResult,
    WaveSnapshot,
    derive_match_id,
)


def wave_result_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """Return every way ``result`` breaks the rules common to all strategies (empty if none).

    Rules: each ticket of the snapshot is used at most once; every seat's ticket and
    player belong to the snapshot; a party's players all sit on one team; unmatched is
    exactly the snapshot's other tickets; no match is played on a map one of its players
    vetoed; match ids are the derived ones.

    Notes: O(players) time.
    """
    problems: list[str] = []
    tickets = {waiting.ticket.ticket_id: waiting.ticket for waiting in snapshot.tickets}
    used: Counter[str] = Counter()
    for match in result.matches:
        problems.extend(_match_problems(snapshot, profile, match, tickets))
        used.update(match.ticket_ids())
    problems.extend(f"ticket {tid} is in {n} matches" for tid, n in used.items() if n > 1)
    expected_unmatched = set(tickets) - set(used)
    if set(result.unmatched) != expected_unmatched or len(result.unmatched) != len(
        expected_unmatched
    ):
        problems.append("unmatched is not exactly the snapshot's tickets left out of every match")
    return problems


def _match_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, match: Match, tickets: dict[str, Ticket]
) -> list[str]:
    problems: list[str] = []
    team_of_ticket: dict[str, str] = {}
    seated: Counter[tuple[str, str]] = Counter()
    for team in match.teams:
        for seat in team.seats:
            ticket = tickets.get(seat.ticket_id)
            if ticket is None:
                problems.append(f"match {match.match_id}: ticket {seat.ticket_id} not in the wave")
                continue
            if seat.player_id not in {player.player_id for player in ticket.players}:
                problems.append(f"match {match.match_id}: {seat.player_id} not in its ticket")
            if team_of_ticket.setdefault(seat.ticket_id, team.name) != team.name:
                problems.append(f"match {match.match_id}: party {seat.ticket_id} split")
            seated[(seat.ticket_id, seat.player_id)] += 1
            vetoes = next(
                (p.vetoed_maps for p in ticket.players if p.player_id == seat.player_id), ()
            )
            if match.map_name in vetoes:
                problems.append(f"match {match.match_id}: map vetoed by {seat.player_id}")
    problems.extend(
        f"match {match.match_id}: player {pid} seated {n} times"
        for (_, pid), n in seated.items()
        if n > 1
    )
    for ticket_id in team_of_ticket:
        ticket = tickets.get(ticket_id)
        if ticket is not None:
            missing = {p.player_id for p in ticket.players} - {
                pid for (tid, pid) in seated if tid == ticket_id
            }
            if missing:
                problems.append(f"match {match.match_id}: party {ticket_id} incomplete")
    expected_id = derive_match_id(
        snapshot.queue, snapshot.region, snapshot.wave_id, match.ticket_ids()
    )
    if match.match_id != expected_id:
        problems.append(f"match {match.match_id}: id is not the derived one")
    if match.map_name not in profile.maps:
        problems.append(f"match {match.match_id}: map {match.map_name!r} not in the queue")
    return problems


def is_valid_result(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> bool:
    return not wave_result_problems(snapshot, profile, result)
