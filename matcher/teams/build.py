"""From lineups to published matches: seats, placement (stage 7), ids and quality.

Every team strategy ends here so that the same lineups under the same wave seed give
the same maps, servers, channels and ids, whichever strategy found them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from matcher.core import (
    Match,
    QueueProfile,
    Seat,
    Team,
    WaveResult,
    WaveSnapshot,
    derive_match_id,
)
from matcher.placement import (
    Latencies,
    NoPlayableMap,
    channel_name,
    choose_map,
    choose_server,
)
from matcher.teams.imbalance import Imbalance, quality_of
from matcher.teams.model import Lineup, Party, seat_rating


def build_match(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    parties: Sequence[Party],
    lineup: Lineup,
    rng: random.Random,
    match_number: int,
    params: Imbalance,
    extra_quality: Sequence[tuple[str, float]] = (),
) -> Match | None:
    """The match of ``lineup``, or None when its players veto every map of the queue.

    Teams are named team1, team2, ...; seats follow the lineup's order. The server is
    the latency-best region's when every player measured one hosting servers; otherwise
    both ends of the route are the wave's region (a team wave is one region's queue).
    ``match_number`` counts the wave's matches from 1; the channel continues the region's
    count (``snapshot.matches_placed``).

    Notes: O(players * regions hosting servers) plus one RNG draw for the map and at
    most one for the server.
    """
    teams: list[Team] = []
    vetoes: set[str] = set()
    latencies: list[Latencies] = []
    for number, (members, roles) in enumerate(zip(lineup.teams, lineup.roles, strict=True), 1):
        players = [(parties[i].ticket_id, player) for i in members for player in parties[i].players]
        seats = tuple(
            Seat(ticket_id, player.player_id, role, seat_rating(player, role))
            for (ticket_id, player), role in zip(players, roles, strict=True)
        )
        vetoes.update(vetoed for _, player in players for vetoed in player.vetoed_maps)
        latencies.extend(player.latency_ms for _, player in players)
        teams.append(Team(f"team{number}", seats))
    try:
        map_name = choose_map(rng, profile.maps, vetoes)
    except NoPlayableMap:
        return None
    server = choose_server(rng, profile, snapshot.region, snapshot.region, latencies)
    ticket_ids = tuple(parties[i].ticket_id for team in lineup.teams for i in team)
    ratings = [[seat.rating for seat in team.seats] for team in teams]
    return Match(
        match_id=derive_match_id(snapshot.queue, snapshot.region, snapshot.wave_id, ticket_ids),
        teams=tuple(teams),
        map_name=map_name,
        server=server,
        channel=channel_name(snapshot.matches_placed + match_number),
        quality=quality_of(ratings, params, extra_quality),
    )


def build_result(
    strategy: str,
    snapshot: WaveSnapshot,
    matches: Sequence[Match],
    stats: Sequence[tuple[str, float]] = (),
) -> WaveResult:
    """The wave result: ``matches`` plus every other ticket of the snapshot, in log order."""
    used = {ticket_id for match in matches for ticket_id in match.ticket_ids()}
    unmatched = tuple(
        waiting.ticket.ticket_id
        for waiting in snapshot.tickets
        if waiting.ticket.ticket_id not in used
    )
    matched_players = sum(len(team.seats) for match in matches for team in match.teams)
    total_players = sum(waiting.ticket.size for waiting in snapshot.tickets)
    figures = (
        ("matches", float(len(matches))),
        ("players_matched", float(matched_players)),
        ("share_matched", matched_players / total_players if total_players else 0.0),
        *stats,
    )
    return WaveResult(strategy, tuple(matches), unmatched, figures)
