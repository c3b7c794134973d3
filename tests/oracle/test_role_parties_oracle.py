"""game-queue's ``role_parties = "interval"`` against brute force on small role waves with
parties (issue 37): every match's teams fill the queue's role slots with roles their
players offer, no legal match is left among the unmatched tickets, the first game spans
the shortest rating interval (of party mean ratings) of any legal game of the wave, the
games' intervals never shrink, and the live checker agrees. Brute force: every choice of
tickets, every side for each, every role for each player."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations, permutations, product

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.strategies import result_problems, run_wave

WAVES = 30
SHAPES = {
    "2v2": ("tank", "dps"),
    "3v3": ("tank", "healer", "dps"),
    "3v3-dps": ("tank", "dps", "dps"),
}


def wave(roles: tuple[str, ...], seed: int) -> WaveSnapshot:
    rng = random.Random(seed)
    names = sorted(set(roles))
    tickets = []
    for i in range(rng.randint(4, 9)):
        size = rng.choice((1, 1, 2) if len(roles) == 2 else (1, 1, 1, 2, 3))
        centre = rng.gauss(1500, 300)
        players = []
        for j in range(size):
            offered = rng.sample(names, rng.choice((1, 1, 2)))
            rating = round(rng.gauss(centre, 50))
            rated = tuple(sorted((role, rating + rng.randint(-20, 20)) for role in offered))
            players.append(Player(f"p{i}.{j}", rated, roles=tuple(offered)))
        tickets.append(WaitingTicket(Ticket(f"t{i}", "q", "eu", tuple(players), 0), 0))
    return WaveSnapshot("q", "eu", "w", 1, seed, 60_000, tuple(tickets))


def fills(players: Sequence[Player], roles: tuple[str, ...]) -> bool:
    return any(
        all(
            role in p.roles and p.rating(role) is not None
            for p, role in zip(players, order, strict=True)
        )
        for order in set(permutations(roles))
    )


def legal(tickets: Sequence[Ticket], roles: tuple[str, ...]) -> bool:
    if sum(t.size for t in tickets) != 2 * len(roles):
        return False
    for sides in product((0, 1), repeat=len(tickets)):
        teams = [
            [p for s, t in zip(sides, tickets, strict=True) if s == side for p in t.players]
            for side in (0, 1)
        ]
        if all(len(team) == len(roles) and fills(team, roles) for team in teams):
            return True
    return False


def mean(ticket: Ticket, roles: tuple[str, ...]) -> float:
    best = [max(p.rating(r) or 0 for r in roles if r in p.roles) for p in ticket.players]
    return sum(best) / len(best)


def span(tickets: Sequence[Ticket], roles: tuple[str, ...]) -> float:
    means = [mean(t, roles) for t in tickets]
    return max(means) - min(means)


def games(tickets: Sequence[Ticket], roles: tuple[str, ...]) -> list[tuple[Ticket, ...]]:
    return [
        chosen
        for count in range(2, 2 * len(roles) + 1)
        for chosen in combinations(tickets, count)
        if legal(chosen, roles)
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_role_intervals_with_parties_against_brute_force(shape: str) -> None:
    roles = SHAPES[shape]
    options = {"mode": "queue", "role_parties": "interval"}
    profile = QueueProfile(
        "q", "game-queue", ("m",), team_size=len(roles), roles=roles, options=options
    )
    made = 0
    for seed in range(WAVES):
        snapshot = wave(roles, seed)
        result = run_wave(snapshot, profile)
        assert result_problems(snapshot, profile, result) == [], (shape, seed)
        by_id = {w.ticket.ticket_id: w.ticket for w in snapshot.tickets}
        spans = []
        for match in result.matches:
            players = {p.player_id: p for t in by_id.values() for p in t.players}
            for team in match.teams:
                assert sorted(s.role for s in team.seats) == sorted(roles)
                assert all(s.role in players[s.player_id].roles for s in team.seats)
            spans.append(span([by_id[t] for t in set(match.ticket_ids())], roles))
        assert spans == sorted(spans), (shape, seed)
        every = games(list(by_id.values()), roles)
        if every:
            assert spans[0] == pytest.approx(min(span(g, roles) for g in every)), (shape, seed)
        left = [by_id[t] for t in result.unmatched]
        assert not games(left, roles), f"{shape} seed {seed}: a legal match left unmade"
        made += len(result.matches)
    assert made >= WAVES // 2  # the waves do make games: the checks above are not vacuous
