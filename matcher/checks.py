"""Checks every strategy's output must pass, whatever the strategy.

Strategy-specific checkers (sides, windows, roles) live beside their strategy and
call :func:`wave_result_problems` first; :func:`matcher.strategies.result_problems`
runs the queue's strategy's checker (the one the worker runs on every wave).
"""

from __future__ import annotations

from collections import Counter

from matcher.core import Match, Player, QueueProfile, WaveResult, WaveSnapshot
from matcher.placement import derive_match_ids


def wave_result_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """Return every way ``result`` breaks the rules common to all strategies (empty if none).

    Rules: each ticket of the snapshot is used at most once; every seat's ticket and
    player belong to the snapshot; a party's players all sit on one team, each once;
    unmatched is exactly the snapshot's other tickets; no match is played on a map one
    of its players vetoed or outside the queue's maps; match ids are the derived ones.

    >>> from matcher.core import QueueProfile, WaveResult, WaveSnapshot
    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> wave_result_problems(snapshot, QueueProfile("q", "optimal", ("m",)),
    ...                      WaveResult("optimal", (), ("t-9",)))
    ["unmatched is not exactly the snapshot's tickets left out of every match"]

    Notes: O(players) time.
    """
    players = {
        waiting.ticket.ticket_id: {player.player_id: player for player in waiting.ticket.players}
        for waiting in snapshot.tickets
    }
    matches = result.matches
    expected_ids = derive_match_ids(
        snapshot.queue, snapshot.region, snapshot.wave_id, [m.ticket_ids() for m in matches]
    )
    maps = frozenset(profile.maps)
    problems: list[str] = []
    used: Counter[str] = Counter()
    for match, expected_id in zip(matches, expected_ids, strict=True):
        problems.extend(_match_problems(match, players))
        if match.match_id != expected_id:
            problems.append(f"match {match.match_id}: id is not the derived one")
        if match.map_name not in maps:
            problems.append(f"match {match.match_id}: map {match.map_name!r} not in the queue")
        used.update(match.ticket_ids())
    problems.extend(f"ticket {tid} is in {n} matches" for tid, n in used.items() if n > 1)
    unmatched = result.unmatched
    expected_unmatched = players.keys() - used.keys()
    if len(unmatched) != len(expected_unmatched) or set(unmatched) != expected_unmatched:
        problems.append("unmatched is not exactly the snapshot's tickets left out of every match")
    return problems


def _match_problems(match: Match, players: dict[str, dict[str, Player]]) -> list[str]:
    """Seats, parties and vetoes of one match."""
    label = f"match {match.match_id}"
    problems: list[str] = []
    team_of_ticket: dict[str, str] = {}
    seated_of_ticket: dict[str, list[str]] = {}
    for team in match.teams:
        for seat in team.seats:
            party = players.get(seat.ticket_id)
            if party is None:
                problems.append(f"{label}: ticket {seat.ticket_id} not in the wave")
                continue
            player = party.get(seat.player_id)
            if player is None:
                problems.append(f"{label}: {seat.player_id} not in its ticket")
            elif match.map_name in player.vetoed_maps:
                problems.append(f"{label}: map vetoed by {seat.player_id}")
            if team_of_ticket.setdefault(seat.ticket_id, team.name) != team.name:
                problems.append(f"{label}: party {seat.ticket_id} split")
            seated_of_ticket.setdefault(seat.ticket_id, []).append(seat.player_id)
    for ticket_id, seated in seated_of_ticket.items():
        if len(seated) != len(set(seated)):
            problems.extend(
                f"{label}: player {pid} seated {n} times"
                for pid, n in Counter(seated).items()
                if n > 1
            )
        if not players[ticket_id].keys() <= set(seated):
            problems.append(f"{label}: party {ticket_id} incomplete")
    return problems
