"""Stage 1 of the multifactor strategy: which tickets play this wave, and their pair tables.

Selection is by priority (most waves waited, then join order) so that the search,
which only rearranges the selected tickets, can never starve a long-waiting ticket.
Pair tables hold every pairwise term of a match score as exact integers in float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from matcher.core import LastMatch, Player, QueueProfile, Ticket, WaveSnapshot
from matcher.multifactor.config import MultifactorConfig
from matcher.multifactor.factors import ping_units, relation_penalty_units

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.signedinteger[npt.NBitBase]]

#: Channels of ``Pool.pairs``, each a flattened (players x players) table: |rating
#: difference|, ping units, penalty units when teammates, and (penalty when opponents -
#: penalty when teammates).
RATING_GAP, PING, SAME_TEAM, CROSS_EXTRA = range(4)
#: Columns of ``Pool.whole_terms`` (summed over every pair of a match) and of
#: ``Pool.cross_terms`` (summed over the pairs on opposite teams).
WHOLE_CHANNELS = (RATING_GAP, SAME_TEAM)
CROSS_CHANNELS = (PING, CROSS_EXTRA)


def player_rating(player: Player) -> int | None:
    """The rating a player is matched on: their best one (the team queues' seat rating).

    >>> player_rating(Player("p", (("bw", 1400), ("sc2", 1600))))
    1600
    """
    return max((value for _, value in player.ratings), default=None)


@dataclass(frozen=True, eq=False)
class Pool:
    """The selected tickets of a wave, their players and every pairwise term.

    ``bins`` is one feasible packing of the tickets into teams (ticket indices): the
    search falls back on it when it cannot cut its own order into full teams.
    ``whole_terms`` and ``cross_terms`` hold the same integers as ``pairs``, one row
    per pair of players (row ``a * players + b``), two channels side by side: the
    evaluator gathers both channels of a pair in one read, and in int32 when every
    match sum fits (half the memory traffic of float64; integer sums are exact).
    """

    team_size: int
    tickets: tuple[Ticket, ...]
    ticket_players: tuple[tuple[int, ...], ...]
    players: tuple[Player, ...]
    ratings: tuple[int, ...]
    capped: FloatArray
    pairs: FloatArray
    hosts: FloatArray
    bins: tuple[tuple[int, ...], ...]
    left_out: tuple[str, ...]
    whole_terms: IntArray
    cross_terms: IntArray
    capped_int: IntArray
    #: With ``p2p_host_max_ms``: ``reach[a, b]`` is True when player ``a`` can host and
    #: reaches ``b`` within the limit (``a == b`` included); a candidate's possible hosts
    #: are its seats whose row is True on every seat of it (matcher/peers.py).
    reach: npt.NDArray[np.bool_] | None = None

    def ticket_key(self, index: int) -> float:
        """Mean rating of a ticket's players: the order of the sorted start."""
        members = self.ticket_players[index]
        return sum(self.ratings[p] for p in members) / len(members)


def build_pool(snapshot: WaveSnapshot, profile: QueueProfile, config: MultifactorConfig) -> Pool:
    """Select the tickets of the wave and tabulate every pairwise term of a match score.

    Notes: O(tickets x open teams) selection, O(players^2 x regions) tables.
    """
    size = profile.team_size
    ordered = sorted(enumerate(snapshot.tickets), key=lambda item: (-item[1].wait_cycles, item[0]))
    playable: list[Ticket] = []
    left_out: list[Ticket] = []
    for _, waiting in ordered:
        ticket = waiting.ticket
        rated = all(player_rating(p) is not None for p in ticket.players)
        (playable if rated and 1 <= ticket.size <= size else left_out).append(ticket)
    bins = _select_bins([t.size for t in playable], size)
    chosen = sorted(i for team in bins for i in team)
    index_of = {old: new for new, old in enumerate(chosen)}
    tickets = tuple(playable[i] for i in chosen)
    left_out.extend(t for i, t in enumerate(playable) if i not in index_of)
    players, ticket_players = _flatten(tickets)
    ratings = tuple(rating for rating in map(player_rating, players) if rating is not None)
    history = {m.player_id: m for m in snapshot.last_matches}
    pairs = _pair_tables(players, ratings, ticket_players, history, config)
    capped = np.clip(
        np.array(ratings, dtype=np.float64), config.rating_floor, config.rating_ceiling
    )
    return Pool(
        team_size=size,
        tickets=tickets,
        ticket_players=ticket_players,
        players=players,
        ratings=ratings,
        capped=capped,
        pairs=pairs,
        hosts=np.array([1.0 if p.can_host else 0.0 for p in players], dtype=np.float64),
        bins=tuple(tuple(index_of[i] for i in team) for team in bins),
        left_out=tuple(t.ticket_id for t in left_out),
        whole_terms=_channels(pairs, WHOLE_CHANNELS, size),
        cross_terms=_channels(pairs, CROSS_CHANNELS, size),
        capped_int=_narrow(capped, 2 * size),
        reach=_reach_table(players, config) if config.p2p_host_max_ms else None,
    )


def _channels(pairs: FloatArray, channels: tuple[int, ...], team_size: int) -> IntArray:
    """Rows of pair terms, one column per channel; int32 when no match sum can overflow it.

    >>> _channels(np.array([[1.0, 2.0], [3.0, -4.0]]), (1, 0), 3).tolist()
    [[3, 1], [-4, 2]]
    """
    table = np.ascontiguousarray(pairs[list(channels)].T)
    # A match sums at most all its pairs twice over (all pairs plus the cross ones).
    return _narrow(table, 2 * team_size * (2 * team_size - 1))


def _narrow(values: FloatArray, terms: int) -> IntArray:
    """Integer-valued ``values`` as int32 if a sum of ``terms`` of them fits, else int64.

    >>> _narrow(np.array([3.0, -4.0]), 6).dtype, _narrow(np.array([2.0**40]), 6).dtype
    (dtype('int32'), dtype('int64'))
    """
    bound = float(np.abs(values).max(initial=0.0)) * terms
    result: IntArray = values.astype(np.int32 if bound < np.iinfo(np.int32).max else np.int64)
    return result


def _select_bins(sizes: list[int], team_size: int) -> list[list[int]]:
    """First-fit of tickets (priority order) into teams; keep full teams, an even number.

    >>> _select_bins([2, 2, 1, 1, 1], 3)
    [[0, 2], [1, 3]]
    """
    teams: list[list[int]] = []
    fill: list[int] = []
    for index, size in enumerate(sizes):
        slot = next((t for t, used in enumerate(fill) if used + size <= team_size), None)
        if slot is None:
            teams.append([index])
            fill.append(size)
        else:
            teams[slot].append(index)
            fill[slot] += size
    full = [team for team, used in zip(teams, fill, strict=True) if used == team_size]
    return full[: len(full) - len(full) % 2]


def _flatten(tickets: tuple[Ticket, ...]) -> tuple[tuple[Player, ...], tuple[tuple[int, ...], ...]]:
    players: list[Player] = []
    ticket_players: list[tuple[int, ...]] = []
    for ticket in tickets:
        ticket_players.append(tuple(range(len(players), len(players) + ticket.size)))
        players.extend(ticket.players)
    return tuple(players), tuple(ticket_players)


def _pair_tables(
    players: tuple[Player, ...],
    ratings: tuple[int, ...],
    ticket_players: tuple[tuple[int, ...], ...],
    history: dict[str, LastMatch],
    config: MultifactorConfig,
) -> FloatArray:
    count = len(players)
    pairs = np.zeros((4, count, count), dtype=np.float64)
    values = np.array(ratings, dtype=np.float64)
    pairs[RATING_GAP] = np.abs(values[:, None] - values[None, :])
    pairs[PING] = _ping_table(players, config)
    same, cross = _penalty_tables(players, ticket_players, history, config)
    pairs[SAME_TEAM] = same
    pairs[CROSS_EXTRA] = cross - same
    return pairs.reshape(4, count * count)


#: A round trip nobody measured: larger than any sum of two latencies.
_UNKNOWN = np.iinfo(np.int64).max // 4


def _round_trips(players: tuple[Player, ...], peers: bool) -> npt.NDArray[np.int64]:
    """Every pair's round trip: measured first when ``peers``, else the best shared region's
    sum (peers.round_trip_ms and region_estimate_ms as a table); ``_UNKNOWN`` if neither."""
    regions = sorted({region for p in players for region, _ in p.latency_ms})
    latency = np.full((len(players), max(len(regions), 1)), _UNKNOWN, dtype=np.int64)
    column = {region: c for c, region in enumerate(regions)}
    for row, player in enumerate(players):
        for region, ms in player.latency_ms:
            latency[row, column[region]] = ms
    best: npt.NDArray[np.int64] = (latency[:, None, :] + latency[None, :, :]).min(axis=2)
    if peers:
        measured = _measured_table(players)
        best = np.where(measured >= 0, measured, best)
    return best


def _ping_table(players: tuple[Player, ...], config: MultifactorConfig) -> FloatArray:
    """Perceived score units of every pair's estimated round trip (see pair_ping_ms)."""
    best = _round_trips(players, bool(config.ping_peer))
    best[best >= _UNKNOWN] = config.ping_unknown_ms
    end = config.ping_curve[-1][0]
    curve = np.array([ping_units(ms, config) for ms in range(end + 1)], dtype=np.float64)
    result: FloatArray = curve[np.minimum(best, end)]
    return result


def _measured_table(players: tuple[Player, ...]) -> npt.NDArray[np.int64]:
    """Every pair's measured round trip (peers.measured_ms: the larger report), -1 if none."""
    row_of = {p.player_id: i for i, p in enumerate(players)}
    measured = np.full((len(players), len(players)), -1, dtype=np.int64)
    for a, player in enumerate(players):
        for peer, ms in player.peer_latency_ms:
            b = row_of.get(peer)
            if b is not None and ms > measured[a, b]:
                measured[a, b] = measured[b, a] = ms
    return measured


def _reach_table(players: tuple[Player, ...], config: MultifactorConfig) -> npt.NDArray[np.bool_]:
    """``reach[a, b]``: ``a`` can host and reaches ``b`` within ``p2p_host_max_ms``."""
    hosts = np.array([p.can_host for p in players], dtype=np.bool_)
    reach: npt.NDArray[np.bool_] = hosts[:, None] & (
        _round_trips(players, peers=True) <= config.p2p_host_max_ms
    )
    np.fill_diagonal(reach, hosts)
    return reach


def _penalty_tables(
    players: tuple[Player, ...],
    ticket_players: tuple[tuple[int, ...], ...],
    history: dict[str, LastMatch],
    config: MultifactorConfig,
) -> tuple[FloatArray, FloatArray]:
    """Penalty units of each pair as teammates and as opponents; zero within a party."""
    count = len(players)
    same = np.zeros((count, count), dtype=np.float64)
    cross = np.zeros((count, count), dtype=np.float64)
    row_of = {p.player_id: i for i, p in enumerate(players)}
    party = np.zeros(count, dtype=np.int64)
    for t, members in enumerate(ticket_players):
        party[list(members)] = t
    for player_id, last in history.items():
        a = row_of.get(player_id)
        if a is None:
            continue
        for other in (*last.teammates, *last.opponents):
            b = row_of.get(other)
            if b is None or b == a or party[a] == party[b]:
                continue
            for now_teammates, table in ((True, same), (False, cross)):
                units = relation_penalty_units(player_id, other, now_teammates, history, config)
                table[a, b] = table[b, a] = units
    return same, cross
