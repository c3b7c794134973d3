"""Stages 7-8, shared by both duel strategies: placed matches and the wave's stats.

The wave RNG is ``random.Random(snapshot.seed)``; it draws, match by match in
creation order, the map then the server. The same pairs in the same order thus get
the same placements whichever strategy found them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from matcher.core import (
    Match,
    QueueProfile,
    Seat,
    Team,
    WaitingTicket,
    WaveResult,
    WaveSnapshot,
    derive_match_id,
)
from matcher.duel.model import BW, SC2, DuelPair, DuelPlayer
from matcher.placement import channel_name, choose_map, choose_server


def duel_players(snapshot: WaveSnapshot) -> tuple[list[DuelPlayer], list[str]]:
    """Return the wave's duel players (wave order) and the ids of tickets unfit for a duel.

    A ticket is fit when it holds exactly one player who offers BW or SC2 with a
    rating for it; a party, or a player with neither race, stays queued untouched.

    Notes: O(tickets).
    """
    players: list[DuelPlayer] = []
    unfit: list[str] = []
    for waiting in snapshot.tickets:
        player = _duel_player(waiting, snapshot.region)
        if player is None:
            unfit.append(waiting.ticket.ticket_id)
        else:
            players.append(player)
    return players, unfit


def _duel_player(waiting: WaitingTicket, default_region: str) -> DuelPlayer | None:
    ticket = waiting.ticket
    if len(ticket.players) != 1:
        return None
    player = ticket.players[0]
    offered = player.offered_roles()
    bw = player.rating(BW) if BW in offered else None
    sc2 = player.rating(SC2) if SC2 in offered else None
    if bw is None and sc2 is None:
        return None
    return DuelPlayer(
        player_id=player.player_id,
        bw_mmr=bw,
        sc2_mmr=sc2,
        wait_cycles=waiting.wait_cycles,
        region=ticket.region or default_region,
        vetoed_maps=player.vetoed_maps,
        ticket_id=ticket.ticket_id,
    )


def build_result(
    strategy: str,
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    pairs: Sequence[DuelPair],
    extra_stats: Sequence[tuple[str, float]] = (),
) -> WaveResult:
    """Stage 7 (map, server, channel) and stage 8 (stats) for pairs in creation order.

    Notes: O(pairs * maps + tickets).
    """
    rng = random.Random(snapshot.seed)
    matches = tuple(
        _placed(rng, snapshot, profile, pair, number) for number, pair in enumerate(pairs, start=1)
    )
    used = {player.ticket_id for pair in pairs for player in (pair.bw, pair.sc2)}
    unmatched = tuple(
        w.ticket.ticket_id for w in snapshot.tickets if w.ticket.ticket_id not in used
    )
    return WaveResult(strategy, matches, unmatched, wave_stats(pairs, len(unmatched), extra_stats))


def _placed(
    rng: random.Random, snapshot: WaveSnapshot, profile: QueueProfile, pair: DuelPair, number: int
) -> Match:
    bw, sc2 = pair.bw, pair.sc2
    assert bw.bw_mmr is not None and sc2.sc2_mmr is not None
    map_name = choose_map(rng, profile.maps, bw.vetoed_maps + sc2.vetoed_maps)
    server = choose_server(rng, profile, bw.region, sc2.region)
    return Match(
        match_id=derive_match_id(
            snapshot.queue, snapshot.region, snapshot.wave_id, (bw.ticket_id, sc2.ticket_id)
        ),
        teams=(
            Team(BW, (Seat(bw.ticket_id, bw.player_id, BW, bw.bw_mmr),)),
            Team(SC2, (Seat(sc2.ticket_id, sc2.player_id, SC2, sc2.sc2_mmr),)),
        ),
        map_name=map_name,
        server=server,
        channel=channel_name(number),
        quality=(("mmr_diff", float(pair.diff)),),
    )


def wave_stats(
    pairs: Sequence[DuelPair], remaining: int, extra: Sequence[tuple[str, float]] = ()
) -> tuple[tuple[str, float], ...]:
    """Stage 8: matches, remaining tickets, avg/min/max and summed squared MMR diff.

    >>> a, b = DuelPlayer("a", 1500, None), DuelPlayer("b", None, 1530)
    >>> dict(wave_stats([DuelPair(a, b)], 3))["mmr_diff_avg"]
    30.0

    Notes: O(pairs).
    """
    diffs = [pair.diff for pair in pairs]
    return (
        ("matches", float(len(pairs))),
        ("remaining", float(remaining)),
        ("mmr_diff_avg", sum(diffs) / len(diffs) if diffs else 0.0),
        ("mmr_diff_min", float(min(diffs, default=0))),
        ("mmr_diff_max", float(max(diffs, default=0))),
        ("mmr_diff_squared_sum", float(sum(d * d for d in diffs))),
        *extra,
    )
