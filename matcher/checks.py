"""Checks every strategy's output must pass, whatever the strategy.

Strategy-specific checkers (sides, windows, roles) live beside their strategy and
call :func:`wave_result_problems` first; :func:`matcher.strategies.result_problems`
runs the queue's strategy's checker (the one the worker runs on every wave).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from matcher.core import Match, Player, QueueProfile, WaveResult, WaveSnapshot
from matcher.event_size import QUALITY_BYTES, QUALITY_FIGURES, STRING_FRAMING
from matcher.peers import host_limit
from matcher.placement import (
    channel_name,
    derive_match_ids,
    has_home_servers,
    latency_region,
    queue_servers,
    region_servers,
)


def wave_result_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """Return every way ``result`` breaks the rules common to all strategies (empty if none).

    Rules: each ticket of the snapshot is used at most once; every seat's ticket and
    player belong to the snapshot; a party's players all sit on one team, each once;
    unmatched is exactly the snapshot's other tickets; no match is played on a map one
    of its players vetoed or outside the queue's maps; match ids are the derived ones;
    the n-th match is on channel ``channel_name(snapshot.matches_placed + n)``, on a
    server of the queue, one of the latency-best region's when every player measured a
    region hosting servers (:mod:`matcher.placement`).

    >>> from matcher.core import QueueProfile, WaveResult, WaveSnapshot
    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> wave_result_problems(snapshot, QueueProfile("q", "optimal", ("m",)),
    ...                      WaveResult("optimal", (), ("t-9",)))
    ["unmatched is not exactly the snapshot's tickets left out of every match"]

    Notes: O(players) time, O(players * regions hosting servers) with latencies.
    """
    parties = {waiting.ticket.ticket_id: waiting.ticket.players for waiting in snapshot.tickets}
    maps = frozenset(profile.maps)
    problems: list[str] = []
    used: dict[str, int] = {}
    groups: list[tuple[str, ...]] = []
    for match in result.matches:
        tickets = _seat_problems(match, parties, problems)
        groups.append(tuple(tickets))
        for ticket_id in tickets:
            used[ticket_id] = used.get(ticket_id, 0) + 1
        if match.map_name not in maps:
            problems.append(f"match {match.match_id}: map {match.map_name!r} not in the queue")
    expected_ids = derive_match_ids(snapshot.queue, snapshot.region, snapshot.wave_id, groups)
    problems.extend(
        f"match {match.match_id}: id is not the derived one"
        for match, expected_id in zip(result.matches, expected_ids, strict=True)
        if match.match_id != expected_id
    )
    problems.extend(f"ticket {tid} is in {n} matches" for tid, n in used.items() if n > 1)
    problems.extend(_placement_problems(snapshot, profile, result.matches, parties))
    unmatched = result.unmatched
    expected_unmatched = parties.keys() - used.keys()
    if len(unmatched) != len(expected_unmatched) or set(unmatched) != expected_unmatched:
        problems.append("unmatched is not exactly the snapshot's tickets left out of every match")
    return problems


#: A quality figure's name, as the contract's Name: 1-64 characters, none a control.
_FIGURE_NAME = re.compile(r"[^\x00-\x1f\x7f-\x9f]{1,64}")


def quality_problems(result: WaveResult) -> list[str]:
    """What keeps a result's quality figures out of its match events: held against a
    plug-in's results (matcher.strategies.register_strategy), whose figures no checker
    of its own re-derives.

    >>> from matcher.core import Match
    >>> bad = Match("m", (), "x", "s", "c", (("spread", float("nan")),))
    >>> quality_problems(WaveResult("p", (bad,), ()))
    ["match m: quality 'spread' is nan, not a finite number"]
    """
    return [problem for match in result.matches for problem in _quality_problems(match)]


def _quality_problems(match: Match) -> list[str]:
    """What keeps ``match``'s quality figures out of its event: more than the contract's
    number, a name that is not a Name, a value that is not finite, or more bytes than
    the event keeps for them."""
    where, problems = f"match {match.match_id}", []
    if len(match.quality) > QUALITY_FIGURES:
        problems.append(f"{where}: {len(match.quality)} quality figures, at most {QUALITY_FIGURES}")
    size = 0
    for name, value in match.quality:
        if not _FIGURE_NAME.fullmatch(name):
            problems.append(f"{where}: quality name {name[:80]!r} is not 1-64 printable characters")
        if not math.isfinite(value):
            problems.append(f"{where}: quality {name[:80]!r} is {value}, not a finite number")
        size += len(name.encode()) + STRING_FRAMING + 8
    if size > QUALITY_BYTES:
        problems.append(f"{where}: quality figures take {size} bytes, at most {QUALITY_BYTES}")
    return problems


def _seat_problems(
    match: Match, parties: dict[str, tuple[Player, ...]], problems: list[str]
) -> dict[str, str]:
    """Add the seat, party and veto problems of one match to ``problems``; return its
    tickets in the wave, each with its team."""
    team_of: dict[str, str] = {}
    seats = solos = 0
    for team in match.teams:
        for seat in team.seats:
            seats += 1
            party = parties.get(seat.ticket_id)
            if party is None:
                problems.append(f"match {match.match_id}: ticket {seat.ticket_id} not in the wave")
                continue
            # A solo's one player is read without a call (nearly every seat).
            if len(party) == 1 and party[0].player_id == seat.player_id:
                player: Player | None = party[0]
            else:
                player = _member(party, seat.player_id)
            if player is None:
                problems.append(f"match {match.match_id}: {seat.player_id} not in its ticket")
            elif match.map_name in player.vetoed_maps:
                problems.append(f"match {match.match_id}: map vetoed by {seat.player_id}")
            named = team_of.get(seat.ticket_id)
            if named is None:
                team_of[seat.ticket_id] = team.name
                solos += len(party) == 1  # counted here: no generator per match
            elif named != team.name:
                problems.append(f"match {match.match_id}: party {seat.ticket_id} split")
    # One seat per ticket (every duel): complete exactly when every ticket is a solo.
    if seats == len(team_of) == solos:
        return team_of
    for ticket_id in team_of:
        seated = [s.player_id for t in match.teams for s in t.seats if s.ticket_id == ticket_id]
        problems.extend(
            f"match {match.match_id}: player {pid} seated {n} times"
            for pid, n in Counter(seated).items()
            if n > 1
        )
        if not {player.player_id for player in parties[ticket_id]} <= set(seated):
            problems.append(f"match {match.match_id}: party {ticket_id} incomplete")
    return team_of


def _placement_problems(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    matches: tuple[Match, ...],
    parties: dict[str, tuple[Player, ...]],
) -> list[str]:
    """The channel and server problems of the wave's matches (stage 7)."""
    problems: list[str] = []
    servers = queue_servers(profile)
    by_latency = has_home_servers(profile)
    placed = snapshot.matches_placed
    peer_hosted = host_limit(profile) > 0
    for number, match in enumerate(matches, start=1):
        expected = channel_name(placed + number)
        if match.channel != expected:
            problems.append(f"match {match.match_id}: channel {match.channel!r}, not {expected!r}")
        if peer_hosted:  # a player's id: the strategy's own checker judges it (ADR 0185)
            continue
        region = _latency_region(profile, match, parties) if by_latency else None
        if region is not None and match.server not in region_servers(profile, region):
            problems.append(
                f"match {match.match_id}: server {match.server!r} is not one of region "
                f"{region!r}, the one minimising the worst player's latency"
            )
        elif match.server not in servers:
            problems.append(f"match {match.match_id}: server {match.server!r} not in the queue")
    return problems


def _latency_region(
    profile: QueueProfile, match: Match, parties: dict[str, tuple[Player, ...]]
) -> str | None:
    latencies = []
    for team in match.teams:
        for seat in team.seats:
            player = _member(parties.get(seat.ticket_id, ()), seat.player_id)
            if player is None or not player.latency_ms:
                return None  # a seat problem already, or a player who measured nothing
            latencies.append(player.latency_ms)
    return latency_region(profile.routes, latencies)


def _member(party: tuple[Player, ...], player_id: str) -> Player | None:
    for player in party:
        if player.player_id == player_id:
            return player
    return None
