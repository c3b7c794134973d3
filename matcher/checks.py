"""Checks every strategy's output must pass, whatever the strategy.

Strategy-specific checkers (sides, windows, roles) live beside their strategy and
call :func:`wave_result_problems` first.
"""

from __future__ import annotations

from collections import Counter

from matcher.core import (
    Match,
    Player,
    QueueProfile,
    WaveResult,
    WaveSnapshot,
    derive_match_id,
)
from matcher.placement import derive_match_ids


def wave_result_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """Return every way ``result`` breaks the rules common to all strategies (empty if none).

    Rules: each ticket of the snapshot is used at most once; every seat's ticket and
    player belong to the snapshot; a party's players all sit on one team; unmatched is
    exactly the snapshot's other tickets; no match is played on a map one of its players
    vetoed; match ids are the derived ones.

    A lean pass (:func:`passes_common_rules`) clears a valid result; only a result it
    does not clear is examined rule by rule, to name every problem.

    >>> from matcher.core import QueueProfile, WaveResult, WaveSnapshot
    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> wave_result_problems(snapshot, QueueProfile("q", "optimal", ("m",)),
    ...                      WaveResult("optimal", (), ("t-9",)))
    ["unmatched is not exactly the snapshot's tickets left out of every match"]

    Notes: O(players) time.
    """
    if passes_common_rules(snapshot, profile, result):
        return []
    return _every_problem(snapshot, profile, result)


def passes_common_rules(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> bool:
    """True only when ``result`` breaks none of :func:`wave_result_problems`' rules.

    Stricter, never looser: anything unusual (a ticket repeating a player id) gives
    False and the full examination decides. It works per match on counts and sets
    instead of building per-ticket maps, derives the wave's ids in one pass, and checks
    duels' seats in one pass over the snapshot's tickets, in their order
    (tests/test_common_checks_fast.py holds it to the full examination on broken results).

    >>> from matcher.core import QueueProfile, WaveResult, WaveSnapshot
    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> passes_common_rules(snapshot, QueueProfile("q", "optimal", ("m",)),
    ...                     WaveResult("optimal", (), ()))
    True

    Notes: O(players) time.
    """
    matches = result.matches
    expected_ids = derive_match_ids(
        snapshot.queue, snapshot.region, snapshot.wave_id, [_ticket_group(m) for m in matches]
    )
    maps = frozenset(profile.maps)
    # Two solos, the shape of every duel: ticket id -> (player id, map), checked below
    # against the snapshot in its order (that of the tickets in memory, unlike matches').
    seated: dict[str, tuple[str, str]] = {}
    others: list[Match] = []
    for match, expected_id in zip(matches, expected_ids, strict=True):
        if match.match_id != expected_id or match.map_name not in maps:
            return False
        teams = match.teams
        if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
            first, second = teams[0].seats[0], teams[1].seats[0]
            seated[first.ticket_id] = (first.player_id, match.map_name)
            seated[second.ticket_id] = (second.player_id, match.map_name)
        else:
            others.append(match)
    if len(seated) != 2 * (len(matches) - len(others)):  # a ticket in two duels
        return False
    players_of: dict[str, tuple[Player, ...]] = {}
    found = 0
    for waiting in snapshot.tickets:
        ticket = waiting.ticket
        players = players_of[ticket.ticket_id] = ticket.players
        seat = seated.get(ticket.ticket_id)
        if seat is not None:
            # One player, the one seated, who did not veto the map.
            if len(players) != 1 or players[0].player_id != seat[0]:
                return False
            if seat[1] in players[0].vetoed_maps:
                return False
            found += 1
    if found != len(seated) or len(players_of) != len(snapshot.tickets):
        return False  # a seat's ticket is not in the wave, or the wave repeats a ticket
    used = set(seated)
    for match in others:
        if not _match_fits(match, players_of, used):
            return False
    unmatched = result.unmatched
    return (
        len(unmatched) == len(players_of) - len(used)
        and used.isdisjoint(unmatched)
        and (players_of.keys() >= set(unmatched))
        and len(set(unmatched)) == len(unmatched)
    )


def _ticket_group(match: Match) -> tuple[str, ...]:
    """The ticket ids a match's id is derived from; a duel's two in seat order (the
    derivation sorts two ids itself)."""
    teams = match.teams
    if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
        return (teams[0].seats[0].ticket_id, teams[1].seats[0].ticket_id)
    return match.ticket_ids()


def _match_fits(match: Match, players_of: dict[str, tuple[Player, ...]], used: set[str]) -> bool:
    """Seats, parties and vetoes of one match; adds its tickets to ``used``."""
    teams, map_name = match.teams, match.map_name
    seats_of: dict[str, int] = {}
    for team in teams:
        for seat in team.seats:
            if not _seat_fits(seat.ticket_id, seat.player_id, map_name, players_of):
                return False
            seats_of[seat.ticket_id] = seats_of.get(seat.ticket_id, -1) + 1
    for ticket_id, more in seats_of.items():
        # Every seat of a ticket fits it; one team, complete, nobody twice:
        if ticket_id in used or (more and not _party_seated(match, ticket_id, players_of)):
            return False
        if not more and len(players_of[ticket_id]) != 1:
            return False
        used.add(ticket_id)
    return True


def _seat_fits(
    ticket_id: str, player_id: str, map_name: str, players_of: dict[str, tuple[Player, ...]]
) -> bool:
    players = players_of.get(ticket_id)
    if players is None:
        return False
    for player in players:
        if player.player_id == player_id:
            return map_name not in player.vetoed_maps
    return False


def _party_seated(match: Match, ticket_id: str, players_of: dict[str, tuple[Player, ...]]) -> bool:
    """A party sits on one team, each of its players exactly once."""
    teams = {
        team.name for team in match.teams for seat in team.seats if seat.ticket_id == ticket_id
    }
    seated = [s.player_id for t in match.teams for s in t.seats if s.ticket_id == ticket_id]
    party = [player.player_id for player in players_of[ticket_id]]
    return len(teams) == 1 and len(seated) == len(set(seated)) == len(party) == len(set(party))


def _every_problem(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> list[str]:
    problems: list[str] = []
    tickets = {waiting.ticket.ticket_id: waiting.ticket for waiting in snapshot.tickets}
    players = {
        ticket_id: {player.player_id: player for player in ticket.players}
        for ticket_id, ticket in tickets.items()
    }
    used: Counter[str] = Counter()
    for match in result.matches:
        problems.extend(_match_problems(snapshot, profile, match, players))
        used.update(match.ticket_ids())
    problems.extend(f"ticket {tid} is in {n} matches" for tid, n in used.items() if n > 1)
    expected_unmatched = set(tickets) - set(used)
    if set(result.unmatched) != expected_unmatched or len(result.unmatched) != len(
        expected_unmatched
    ):
        problems.append("unmatched is not exactly the snapshot's tickets left out of every match")
    return problems


def _match_problems(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    match: Match,
    players: dict[str, dict[str, Player]],
) -> list[str]:
    problems: list[str] = []
    team_of_ticket: dict[str, str] = {}
    seated_of_ticket: dict[str, set[str]] = {}
    known_seats = 0
    for team in match.teams:
        for seat in team.seats:
            party = players.get(seat.ticket_id)
            if party is None:
                problems.append(f"match {match.match_id}: ticket {seat.ticket_id} not in the wave")
                continue
            known_seats += 1
            player = party.get(seat.player_id)
            if player is None:
                problems.append(f"match {match.match_id}: {seat.player_id} not in its ticket")
            elif match.map_name in player.vetoed_maps:
                problems.append(f"match {match.match_id}: map vetoed by {seat.player_id}")
            if team_of_ticket.setdefault(seat.ticket_id, team.name) != team.name:
                problems.append(f"match {match.match_id}: party {seat.ticket_id} split")
            seated_of_ticket.setdefault(seat.ticket_id, set()).add(seat.player_id)
    if known_seats > sum(len(pids) for pids in seated_of_ticket.values()):
        seen: Counter[tuple[str, str]] = Counter(
            (s.ticket_id, s.player_id) for t in match.teams for s in t.seats
        )
        problems.extend(
            f"match {match.match_id}: player {pid} seated {n} times"
            for (_, pid), n in seen.items()
            if n > 1
        )
    for ticket_id, pids in seated_of_ticket.items():
        if not pids >= players[ticket_id].keys():
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
