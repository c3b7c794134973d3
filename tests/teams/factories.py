"""Small builders for team-queue tests: parties, snapshots and profiles."""

from __future__ import annotations

from collections.abc import Sequence

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.teams.model import Party


def player(player_id: str, rating: int, roles: Sequence[tuple[str, int]] = ()) -> Player:
    """A player rated ``rating`` (no roles), or rated per role when ``roles`` is given."""
    if roles:
        return Player(player_id, tuple(sorted(roles)), roles=tuple(name for name, _ in roles))
    return Player(player_id, (("mmr", rating),))


def party(ticket_id: str, ratings: Sequence[int], order: int = 0, joined_at_ms: int = 0) -> Party:
    players = tuple(player(f"{ticket_id}.{n}", value) for n, value in enumerate(ratings))
    return Party(ticket_id, players, tuple(ratings), joined_at_ms, 0, order)


def ticket(
    ticket_id: str,
    players: Sequence[Player],
    joined_at_ms: int = 0,
    queue: str = "5v5",
    region: str = "eu",
) -> Ticket:
    return Ticket(ticket_id, queue, region, tuple(players), joined_at_ms)


def snapshot(
    tickets: Sequence[Ticket], seed: int = 7, queue: str = "5v5", region: str = "eu"
) -> WaveSnapshot:
    waiting = tuple(WaitingTicket(t, i % 3) for i, t in enumerate(tickets))
    return WaveSnapshot(queue, region, "w1", 1, seed, 1_000_000, waiting)


def profile(
    strategy: str = "rebalance",
    team_size: int = 5,
    team_count: int = 2,
    team_size_min: int | None = None,
    roles: Sequence[str] = (),
    options: dict[str, object] | None = None,
    queue: str = "5v5",
) -> QueueProfile:
    return QueueProfile(
        queue,
        strategy,
        ("dust", "nuke", "inferno"),
        fallback_servers=("s1", "s2"),
        team_count=team_count,
        team_size=team_size,
        team_size_min=team_size_min,
        roles=tuple(roles),
        options=options or {},
    )
