"""Stages 7-8, shared by both duel strategies: placed matches and the wave's stats.

The wave RNG is ``random.Random(snapshot.seed)``; it draws, match by match in
creation order, the map then the server. The same pairs in the same order thus get
the same placements whichever strategy found them. Channels continue the region's
count of matches (``snapshot.matches_placed``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from matcher.core import (
    Match,
    QueueProfile,
    Seat,
    Team,
    Ticket,
    WaveResult,
    WaveSnapshot,
)
from matcher.duel.model import BW, SC2, DuelPair, DuelPlayer
from matcher.fastbuild import builder
from matcher.placement import (
    CHANNEL_COUNT,
    Latencies,
    channel_name,
    derive_match_ids,
    has_home_servers,
    place_matches,
)
from matcher.wave_memo import per_wave

# Built 10,000 or 5,000 times a 10,000-player wave: fastbuild matters (docs/benchmarks/duel.md).
_make_player = builder(DuelPlayer)
_make_seat = builder(Seat)
_make_match = builder(Match)
_make_team = builder(Team)


@per_wave
def duel_players(
    snapshot: WaveSnapshot, rating: str | None = None
) -> tuple[Sequence[DuelPlayer], Sequence[str]]:
    """Return the wave's duel players (wave order) and the ids of tickets unfit for a duel:
    the wave's one answer, which the strategy and its checker share
    (:func:`matcher.wave_memo.per_wave`).

    A ticket is fit when it holds exactly one player who offers BW or SC2 with a
    rating for it; a party, or a player with neither race, stays queued untouched.
    In a mirror 1v1 (``rating``, the queue's ``rules.rating``) a player is fit with that
    rating and may take either side at it.

    Notes: O(tickets).
    """
    players: list[DuelPlayer] = []
    unfit: list[str] = []
    default_region = snapshot.region
    for waiting in snapshot.tickets:
        ticket = waiting.ticket
        if rating is None:
            player = _duel_player(ticket, waiting.wait_cycles, default_region)
        else:
            player = _mirror_player(ticket, waiting.wait_cycles, default_region, rating)
        if player is None:
            unfit.append(ticket.ticket_id)
        else:
            players.append(player)
    return players, unfit


def _duel_player(ticket: Ticket, wait_cycles: int, default_region: str) -> DuelPlayer | None:
    if len(ticket.players) != 1:
        return None
    player = ticket.players[0]
    # Player.rating and Player.offered_roles in one pass: the first rating of a race
    # counts, and only offered races (every rated one when none is named).
    bw = sc2 = None
    for name, value in player.ratings:
        if name == BW:
            bw = value if bw is None else bw
        elif name == SC2:
            sc2 = value if sc2 is None else sc2
    if player.roles:
        bw = bw if BW in player.roles else None
        sc2 = sc2 if SC2 in player.roles else None
    if bw is None and sc2 is None:
        return None
    # DuelPlayer's fields in order: player id, bw, sc2, wait, region, vetoes, ticket id.
    return _make_player(
        player.player_id,
        bw,
        sc2,
        wait_cycles,
        ticket.region or default_region,
        player.vetoed_maps,
        ticket.ticket_id,
    )


def _mirror_player(
    ticket: Ticket, wait_cycles: int, default_region: str, rating: str
) -> DuelPlayer | None:
    if len(ticket.players) != 1:
        return None
    player = ticket.players[0]
    value = player.rating(rating)
    if value is None:
        return None
    region = ticket.region or default_region
    return _make_player(
        player.player_id, value, value, wait_cycles, region, player.vetoed_maps, ticket.ticket_id
    )


def build_result(
    strategy: str,
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    pairs: Sequence[DuelPair],
    extra_stats: Sequence[tuple[str, float]] = (),
    sides: tuple[str, str] = (BW, SC2),
) -> WaveResult:
    """Stage 7 (map, server, channel) and stage 8 (stats) for pairs in creation order.

    The wave RNG draws, match by match, the map then the server
    (:func:`matcher.placement.place_matches`, from both players' latencies when they
    measured a region hosting servers). ``sides`` name the two teams (and their seats'
    role): BW and SC2, or a mirror 1v1's :data:`~matcher.duel.model.MIRROR_SIDES`.

    Notes: O(pairs + distinct veto sets * maps + tickets).
    """
    # One pass over the pairs reads each player once; a wave places 5,000 of them.
    vetoes, regions, ticket_ids, diffs = [], [], [], []
    for pair in pairs:
        bw, sc2 = pair.bw, pair.sc2
        vetoes.append(bw.vetoed_maps + sc2.vetoed_maps)
        regions.append((bw.region, sc2.region))
        ticket_ids.append((bw.ticket_id, sc2.ticket_id))
        diffs.append(pair.diff)
    measured = _pair_latencies(snapshot, profile, ticket_ids)
    spots = place_matches(random.Random(snapshot.seed), profile, vetoes, regions, measured)
    ids = derive_match_ids(snapshot.queue, snapshot.region, snapshot.wave_id, ticket_ids)
    matches = _matches(pairs, ids, spots, diffs, sides, snapshot.matches_placed)
    used = {ticket_id for both in ticket_ids for ticket_id in both}
    unmatched = tuple(
        w.ticket.ticket_id for w in snapshot.tickets if w.ticket.ticket_id not in used
    )
    stats = _stats(diffs, len(unmatched), extra_stats)
    return WaveResult(strategy, matches, unmatched, stats)


def _pair_latencies(
    snapshot: WaveSnapshot, profile: QueueProfile, ticket_ids: Sequence[tuple[str, str]]
) -> list[tuple[Latencies, Latencies]] | None:
    """Both players' latencies of each pair; None when no latency can choose a server."""
    if not has_home_servers(profile):
        return None
    latency_of = {
        w.ticket.ticket_id: w.ticket.players[0].latency_ms
        for w in snapshot.tickets
        if w.ticket.players and w.ticket.players[0].latency_ms
    }
    if not latency_of:
        return None
    return [(latency_of.get(a, ()), latency_of.get(b, ())) for a, b in ticket_ids]


def _matches(
    pairs: Sequence[DuelPair],
    ids: Sequence[str],
    spots: Sequence[tuple[str, str]],
    diffs: Sequence[int],
    sides: tuple[str, str],
    placed_before: int,
) -> tuple[Match, ...]:
    """The placed matches, the n-th on channel ``channel_name(placed_before + n)``."""
    make_seat, make_team, make_match = _make_seat, _make_team, _make_match
    first, second = sides
    first_role, second_role = seat_roles(sides)
    channels = [channel_name(placed_before + n) for n in range(1, CHANNEL_COUNT + 1)]
    # A wave's diffs repeat (a few hundred values for 5,000 matches): one quality each.
    qualities: dict[int, tuple[tuple[str, float], ...]] = {}
    matches = []
    for index, (pair, match_id, (map_name, server), diff) in enumerate(
        zip(pairs, ids, spots, diffs, strict=True)
    ):
        bw, sc2 = pair.bw, pair.sc2
        bw_mmr, sc2_mmr = bw.bw_mmr, sc2.sc2_mmr
        assert bw_mmr is not None and sc2_mmr is not None
        bw_team = make_team(first, (make_seat(bw.ticket_id, bw.player_id, first_role, bw_mmr, ()),))
        sc2_team = make_team(
            second, (make_seat(sc2.ticket_id, sc2.player_id, second_role, sc2_mmr, ()),)
        )
        quality = qualities.get(diff)
        if quality is None:
            quality = qualities[diff] = (("mmr_diff", float(diff)),)
        matches.append(
            make_match(
                match_id,
                (bw_team, sc2_team),
                map_name,
                server,
                channels[index % CHANNEL_COUNT],
                quality,
            )
        )
    return tuple(matches)


def seat_roles(sides: tuple[str, str]) -> tuple[str, str]:
    """The seats' roles of a duel's two sides: the race, or none in a mirror 1v1."""
    return sides if sides == (BW, SC2) else ("", "")


def wave_stats(
    pairs: Sequence[DuelPair], remaining: int, extra: Sequence[tuple[str, float]] = ()
) -> tuple[tuple[str, float], ...]:
    """Stage 8: matches, remaining tickets, avg/min/max and summed squared MMR diff.

    >>> a, b = DuelPlayer("a", 1500, None), DuelPlayer("b", None, 1530)
    >>> dict(wave_stats([DuelPair(a, b)], 3))["mmr_diff_avg"]
    30.0

    Notes: O(pairs).
    """
    return _stats([pair.diff for pair in pairs], remaining, extra)


def _stats(
    diffs: Sequence[int], remaining: int, extra: Sequence[tuple[str, float]]
) -> tuple[tuple[str, float], ...]:
    return (
        ("matches", float(len(diffs))),
        ("remaining", float(remaining)),
        ("mmr_diff_avg", sum(diffs) / len(diffs) if diffs else 0.0),
        ("mmr_diff_min", float(min(diffs, default=0))),
        ("mmr_diff_max", float(max(diffs, default=0))),
        ("mmr_diff_squared_sum", float(sum(d * d for d in diffs))),
        *extra,
    )
