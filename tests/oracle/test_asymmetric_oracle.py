"""Asymmetric teams (issue 35) against brute force on small waves: every match gives each
team exactly its size and fills its own role slots with players who offer them, its split
has the least gap between team mean ratings among the legal splits of its tickets, and no
legal match is left among the unmatched tickets (under the queue's rules); the live
checker agrees with the oracle."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, permutations, product

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import lineup_problem, rated_snapshot, waited_s
from matcher.ruleset import QueueRuleSet
from matcher.strategies import check_profile, result_problems, run_wave
from matcher.teams.rebalance import composition_key

CLOSED_AT_MS = 600_000
WAVES = 30
SURVIVORS = ("survivor",) * 4
#: (label, team sizes, team roles, rules)
QUEUES: tuple[tuple[str, tuple[int, ...], tuple[tuple[str, ...], ...], dict[str, object]], ...] = (
    ("1v4-roles", (1, 4), (("hunter",), SURVIVORS), {}),
    ("2v2-attack-defend", (2, 2), (("attack", "attack"), ("defend", "support")), {}),
    ("2v3", (2, 3), (), {}),
    ("2v3-spread", (2, 3), (), {"max_spread": {"base": 400, "growth_per_s": 0, "cap": 400}}),
    ("1v2v3", (1, 2, 3), (), {}),
)


def player(rng: random.Random, name: str, roles: Sequence[str]) -> Player:
    if not roles:
        return Player(name, (("mmr", round(rng.gauss(1500, 250))),))
    offered = tuple(sorted(set(rng.sample(list(roles), rng.choice((1, 1, 2))))))
    ratings = tuple((role, round(rng.gauss(1500, 250))) for role in offered)
    return Player(name, ratings, roles=offered)


def wave(seed: int, roles: Sequence[str]) -> WaveSnapshot:
    rng = random.Random(seed)
    tickets = []
    for i in range(rng.randint(2, 9)):
        size = rng.choice((1, 1, 1, 2))
        players = tuple(player(rng, f"p{i}.{j}", roles) for j in range(size))
        joined = CLOSED_AT_MS - rng.randint(0, 60) * 1000
        tickets.append(
            WaitingTicket(Ticket(f"t{i}", "q", "eu", players, joined), rng.randint(0, 9))
        )
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tuple(tickets))


def seatings(players: Sequence[Player], roles: tuple[str, ...]) -> list[list[int]]:
    """Every seat-rating list of ``players`` on the role slots ``roles`` (all: no roles)."""
    if not roles:
        return [[max(value for _, value in p.ratings) for p in players]]
    found = []
    for order in set(permutations(roles, len(players))):
        if all(
            r in p.offered_roles() and p.rating(r) is not None
            for p, r in zip(players, order, strict=True)
        ):
            found.append([p.rating(r) or 0 for p, r in zip(players, order, strict=True)])
    return found


def legal_splits(
    tickets: Sequence[Ticket],
    sizes: tuple[int, ...],
    team_roles: tuple[tuple[str, ...], ...],
    rules: QueueRuleSet,
) -> list[list[list[int]]]:
    """Every legal split of ``tickets`` (parties whole) as the teams' seat ratings."""
    if sum(t.size for t in tickets) != sum(sizes):
        return []
    waited = waited_s(CLOSED_AT_MS, [t.joined_at_ms for t in tickets])
    seated = [p for t in tickets for p in t.players]
    found = []
    for sides in product(range(len(sizes)), repeat=len(tickets)):
        teams = [
            [p for side, t in zip(sides, tickets, strict=True) if side == s for p in t.players]
            for s in range(len(sizes))
        ]
        if [len(team) for team in teams] != list(sizes):
            continue
        options = [
            seatings(team, team_roles[s] if team_roles else ()) for s, team in enumerate(teams)
        ]
        for ratings in product(*options):
            if lineup_problem(rules, list(ratings), waited, (), seated) is None:
                found.append([list(r) for r in ratings])
    return found


@pytest.mark.parametrize("queue", QUEUES, ids=lambda q: q[0])
def test_asymmetric_teams_against_brute_force(
    queue: tuple[str, tuple[int, ...], tuple[tuple[str, ...], ...], dict[str, object]],
) -> None:
    _, sizes, team_roles, rules = queue
    profile = QueueProfile(
        "q",
        "rebalance",
        ("m",),
        team_count=len(sizes),
        team_size=max(sizes),
        rules=rules,
        team_sizes=sizes,
        team_roles=team_roles,
    )
    check_profile(profile)
    roles = sorted({r for team in team_roles for r in team})
    made = 0
    for seed in range(WAVES):
        snapshot = wave(seed, roles)
        rated = rated_snapshot(snapshot, profile.ruleset)
        result = run_wave(snapshot, profile)
        assert result_problems(snapshot, profile, result) == [], seed
        by_id = {w.ticket.ticket_id: w.ticket for w in rated.tickets}
        for match in result.matches:
            made += 1
            assert [len(team.seats) for team in match.teams] == list(sizes)
            for team, slots in zip(match.teams, team_roles or [()] * len(sizes), strict=True):
                used = Counter(seat.role for seat in team.seats)
                assert not slots or not used - Counter(slots), (seed, used, slots)
            tickets = [by_id[t] for t in dict.fromkeys(match.ticket_ids())]
            splits = legal_splits(tickets, sizes, team_roles, profile.ruleset)
            if not team_roles:  # with roles the strategy seats each team by its best ratings
                best = min(composition_key(split) for split in splits)
                seats = [[seat.rating for seat in team.seats] for team in match.teams]
                assert composition_key(seats) <= best, (seed, seats, best)
        left = [by_id[t] for t in result.unmatched]
        for number in range(1, sum(sizes) + 1):
            for chosen in combinations(left, number):
                assert not legal_splits(chosen, sizes, team_roles, profile.ruleset), (
                    f"seed {seed}: {[t.ticket_id for t in chosen]} could still play"
                )
    assert made > 0


def test_asymmetric_settings_are_checked_with_one_line() -> None:
    def refused(**fields: object) -> str:
        base: dict[str, object] = {"team_count": 2, "team_size": 4, "team_sizes": (1, 4)}
        base.update(fields)
        profile = QueueProfile("q", str(base.pop("strategy", "rebalance")), ("m",), **base)  # type: ignore[arg-type]
        with pytest.raises(ValueError) as caught:
            check_profile(profile)
        return str(caught.value)

    assert refused(team_sizes=(1, 4, 4)) == "team_sizes: 3 sizes for team_count = 2"
    assert refused(team_sizes=(1, 3)).startswith("team_sizes: each 1..team_size, the largest")
    assert refused(team_roles=(("hunter",),)) == "team_roles: 1 teams for team_count = 2"
    assert refused(team_roles=(("hunter",), ("survivor",))) == (
        "team_roles.1: 1 role slots for a team of 4 (one per seat)"
    )
    assert refused(strategy="game-queue") == (
        "team_sizes: not honoured by strategy 'game-queue' (asymmetric teams: rebalance)"
    )


def test_a_player_offering_no_team_role_is_rejected_at_join() -> None:
    from matcher.queue.admission import admission_problem

    profile = QueueProfile(
        "q",
        "rebalance",
        ("m",),
        team_size=4,
        team_sizes=(1, 4),
        team_roles=(("hunter",), SURVIVORS),
    )
    healer = Player("p1", (("healer", 1500),), roles=("healer",))
    hunter = Player("p2", (("hunter", 1500),), roles=("hunter",))
    assert admission_problem(Ticket("t1", "q", "eu", (healer,), 0), profile) == (
        "player p1 offers none of the roles hunter, survivor"
    )
    assert admission_problem(Ticket("t2", "q", "eu", (hunter,), 0), profile) is None
