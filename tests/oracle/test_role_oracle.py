"""Role queues under rating limits against brute force on small waves: which seat a
player takes changes their seat rating, so a split refused in its best-rated seating may
be legal in another. After a wave no legal match is left among the unmatched tickets,
over every split and every seating, and the live checker says the same. Distributions:
one rating for everyone, ties, two populations, sparse tails, long waits; solos and
duos, players offering one role or several."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import combinations, permutations, product

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveResult, WaveSnapshot
from matcher.strategies import result_problems, run_wave
from tests.oracle.test_team_oracle import CLOSED_AT_MS, DISTRIBUTIONS

WAVES = 8
STRATEGIES: tuple[tuple[str, dict[str, object]], ...] = (
    ("rebalance", {}),
    ("game-queue", {}),
    ("game-queue", {"mode": "offline"}),
)
SHAPES = (("tank", "dps"), ("tank", "healer", "dps"))
#: The expanding limit grows with the match's oldest wait, which the oracle reads too.
RULES: tuple[dict[str, object], ...] = (
    {"max_team_gap": 0},
    {"max_team_gap": 50},
    {"max_spread": 150},
    {"max_spread": 100, "max_team_gap": 60},
    {"max_team_gap": {"base": 0, "growth_per_s": 1, "cap": 120}},
)


def wave(name: str, roles: tuple[str, ...], seed: int) -> WaveSnapshot:
    main_rating, longest = DISTRIBUTIONS[name]  # a player's main role's rating
    rng = random.Random(seed)
    names = sorted(set(roles))
    tickets = []
    for i in range(rng.randint(4, 9)):
        size = rng.choice((1, 1, 1, 2))
        base = main_rating(rng)
        players = []
        for j in range(size):
            ratings = tuple((role, base + rng.choice((-100, 0, 0, 50, 100))) for role in names)
            offered = tuple(rng.sample(names, rng.randint(1, len(names))))
            players.append(
                Player(f"p{i}.{j}", ratings, roles=offered if rng.random() < 0.6 else ())
            )
        joined = CLOSED_AT_MS - rng.randint(0, longest) * 1000
        tickets.append(
            WaitingTicket(Ticket(f"t{i}", "q", "eu", tuple(players), joined), rng.randint(0, 9))
        )
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tuple(tickets))


def limit(rule: object, oldest_s: float) -> float:
    """A rule's limit when the match's oldest ticket has waited ``oldest_s`` (the default
    expansion age)."""
    if isinstance(rule, dict):
        return float(min(rule["cap"], rule["base"] + rule["growth_per_s"] * oldest_s))
    assert isinstance(rule, int | float)
    return float(rule)


def seatings(players: Sequence[Player], roles: tuple[str, ...]) -> Iterator[list[int]]:
    """Every seating of a team's ``players`` in its ``roles`` slots, as seat ratings."""
    for slots in set(permutations(roles)):
        offered = [p.roles or tuple(name for name, _ in p.ratings) for p in players]
        if all(role in mine for role, mine in zip(slots, offered, strict=True)):
            yield [p.rating(role) or 0 for p, role in zip(players, slots, strict=True)]


def legal(teams: Sequence[Sequence[int]], rules: Mapping[str, object], oldest_s: float) -> bool:
    seats = [rating for team in teams for rating in team]
    if "max_spread" in rules and max(seats) - min(seats) > limit(rules["max_spread"], oldest_s):
        return False
    if "max_team_gap" in rules:
        means = [sum(team) / len(team) for team in teams]
        return max(means) - min(means) <= limit(rules["max_team_gap"], oldest_s) + 1e-9
    return True


def possible(
    snapshot: WaveSnapshot,
    among: Sequence[str],
    roles: tuple[str, ...],
    rules: Mapping[str, object],
) -> bool:
    """Whether the tickets ``among`` hold a legal match: some tickets, parties whole on one
    team, each team seated in its roles, within the rules."""
    by_id = {w.ticket.ticket_id: w.ticket for w in snapshot.tickets}
    tickets = [by_id[ticket_id] for ticket_id in among]
    size = len(roles)
    for count in range(1, len(tickets) + 1):
        for chosen in combinations(tickets, count):
            if sum(len(t.players) for t in chosen) != 2 * size:
                continue
            oldest_s = (CLOSED_AT_MS - min(t.joined_at_ms for t in chosen)) / 1000
            for sides in product((0, 1), repeat=count):
                teams = [
                    [p for t, s in zip(chosen, sides, strict=True) if s == side for p in t.players]
                    for side in (0, 1)
                ]
                if any(len(team) != size for team in teams):
                    continue
                options = [list(seatings(team, roles)) for team in teams]
                if any(legal(pair, rules, oldest_s) for pair in product(*options)):
                    return True
    return False


Variant = tuple[str, dict[str, object]]


def variant_id(variant: Variant) -> str:
    return "-".join([variant[0], *map(str, variant[1].values())])


@pytest.mark.parametrize("rules", RULES, ids=[f"rules{i}" for i in range(len(RULES))])
@pytest.mark.parametrize("roles", SHAPES, ids=lambda r: f"{len(r)}roles")
@pytest.mark.parametrize("variant", STRATEGIES, ids=variant_id)
def test_role_waves_leave_no_legal_match(
    variant: Variant, roles: tuple[str, ...], rules: dict[str, object]
) -> None:
    strategy, options = variant
    profile = QueueProfile(
        "q", strategy, ("m",), team_size=len(roles), roles=roles, options=options, rules=rules
    )
    for name in DISTRIBUTIONS:
        for seed in range(WAVES):
            snapshot = wave(name, roles, seed)
            result = run_wave(snapshot, profile)
            assert result_problems(snapshot, profile, result) == [], (name, seed)
            for match in result.matches:
                teams = [[seat.rating for seat in team.seats] for team in match.teams]
                joined = [
                    w.ticket.joined_at_ms
                    for w in snapshot.tickets
                    if w.ticket.ticket_id in match.ticket_ids()
                ]
                assert legal(teams, rules, (CLOSED_AT_MS - min(joined)) / 1000), (name, seed)
            assert not possible(snapshot, result.unmatched, roles, rules), (name, seed)


def flexible_wave() -> WaveSnapshot:
    """Four solos whose only legal 2v2 under a zero team gap seats the flexible player as
    damage: the best-rated seating (as tank) of every split breaks the gap."""
    players = (
        Player("p0", (("dps", 1000), ("tank", 1100)), roles=("tank", "dps")),
        Player("p1", (("dps", 1000), ("tank", 1200))),
        Player("p2", (("dps", 1000), ("tank", 1100))),
        Player("p3", (("dps", 1250), ("tank", 1200))),
    )
    tickets = tuple(
        WaitingTicket(Ticket(f"t{i}", "q", "eu", (player,), CLOSED_AT_MS), 0)
        for i, player in enumerate(players)
    )
    return WaveSnapshot("q", "eu", "w", 1, 821, CLOSED_AT_MS, tickets)


@pytest.mark.parametrize("variant", STRATEGIES, ids=variant_id)
def test_a_match_legal_only_in_another_seating_is_made_and_checked(variant: Variant) -> None:
    strategy, options = variant
    roles = ("tank", "dps")
    profile = QueueProfile(
        "q",
        strategy,
        ("m",),
        team_size=2,
        roles=roles,
        options=options,
        rules={"max_team_gap": 0},
    )
    snapshot = flexible_wave()
    result = run_wave(snapshot, profile)
    assert len(result.matches) == 1 and result.unmatched == ()
    assert result_problems(snapshot, profile, result) == []
    # The checker holds a result that leaves that match out to the promise.
    empty: WaveResult = replace(result, matches=(), unmatched=tuple(f"t{i}" for i in range(4)))
    problems = result_problems(snapshot, profile, empty)
    assert any(p.startswith("not maximal: tickets t0, t1, t2, t3") for p in problems), problems
