"""The rebalance methods: the documented worked example, and each method against a
literal reading of its definition on small inputs."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.teams.model import Party, TeamShape
from matcher.teams.rebalance import (
    combination,
    composition_key,
    greedy,
    permutation,
    rebalance,
)
from tests.teams.factories import party

SEVEN = TeamShape(2, 7, 7)


def worked_example() -> list[Party]:
    groups = [
        ("IJK", [60, 60, 60]),
        ("LMN", [50, 50, 50]),
        ("GH", [70, 70]),
        ("BC", [40, 40]),
        ("A", [70]),
        ("E", [60]),
        ("F", [50]),
        ("D", [40]),
    ]
    return [party(name, ratings, order) for order, (name, ratings) in enumerate(groups)]


def names(parties: list[Party], teams: tuple[tuple[int, ...], ...]) -> list[list[str]]:
    return [[parties[i].ticket_id for i in team] for team in teams]


def totals(parties: list[Party], teams: tuple[tuple[int, ...], ...]) -> list[int]:
    return [sum(parties[i].total for i in team) for team in teams]


def test_greedy_reproduces_the_documented_example() -> None:
    parties = worked_example()
    lineup = greedy(parties, SEVEN)
    assert lineup is not None
    assert names(parties, lineup.teams) == [["IJK", "BC", "A", "F"], ["LMN", "GH", "E", "D"]]
    assert totals(parties, lineup.teams) == [380, 390]


def test_greedy_gives_the_lowest_team_each_party_in_turn() -> None:
    # a -> team 1 (both empty: lower number), b -> team 2 (0 < 50), c -> team 2 (40 < 50),
    # d -> team 1, the only one with room.
    parties = [party("a", [50], 0), party("b", [40], 1), party("c", [30], 2), party("d", [20], 3)]
    lineup = greedy(parties, TeamShape(2, 2, 2))
    assert lineup is not None
    assert names(parties, lineup.teams) == [["a", "d"], ["b", "c"]]


def test_greedy_is_optimal_on_the_example_by_the_criterion() -> None:
    # Totals are multiples of 10 and 770 / 2 = 385 is not, so 380 vs 390 is the best.
    parties = worked_example()
    best = combination(parties, SEVEN)
    greedy_lineup = greedy(parties, SEVEN)
    assert best is not None and greedy_lineup is not None
    assert composition_key(_ratings(parties, best.teams)) == (0, round(10 / 7, 9))
    assert composition_key(_ratings(parties, greedy_lineup.teams)) == (0, round(10 / 7, 9))


def test_combination_follows_the_criterion_not_the_first_fill() -> None:
    # docs/adr/0032: filling team 1 then team 2 in log order gives a distance of 40/3;
    # two other compositions reach 20/3, and the criterion picks the first of them.
    parties = [party("AB", [80, 30], 0)] + [
        party(name, [value], order)
        for order, (name, value) in enumerate([("C", 70), ("D", 80), ("E", 100), ("F", 40)], 1)
    ]
    three = TeamShape(2, 3, 3)
    fills = _all_exact_fills(parties, three)
    distinct = {frozenset(frozenset(team) for team in split): split for split in fills}
    distances = sorted(composition_key(_ratings(parties, s))[1] for s in distinct.values())
    assert distances == [round(20 / 3, 9), round(20 / 3, 9), round(40 / 3, 9), round(100 / 3, 9)]
    assert composition_key(_ratings(parties, fills[0])) == (0, round(40 / 3, 9))
    lineup = combination(parties, three)
    assert lineup is not None
    assert names(parties, lineup.teams) == [["AB", "D"], ["C", "E", "F"]]


def _ratings(parties: list[Party], teams: tuple[tuple[int, ...], ...]) -> list[list[int]]:
    return [[r for i in team for r in parties[i].ratings] for team in teams]


def _all_exact_fills(parties: list[Party], shape: TeamShape) -> list[tuple[tuple[int, ...], ...]]:
    """Literal "combination": every sequence, filling team 1 then team 2 ..."""
    fills = []
    for sequence in itertools.permutations(range(len(parties))):
        teams: list[list[int]] = [[] for _ in range(shape.team_count)]
        fill = [0] * shape.team_count
        current = 0
        for index in sequence:
            while (
                current < shape.team_count and fill[current] + parties[index].size > shape.size_max
            ):
                current += 1
            if current == shape.team_count:
                break
            teams[current].append(index)
            fill[current] += parties[index].size
        else:
            if min(fill) >= shape.size_min:
                fills.append(tuple(tuple(team) for team in teams))
    return fills


def _literal_permutation(
    parties: list[Party], shape: TeamShape
) -> list[tuple[tuple[int, ...], ...]]:
    deals = []
    for sequence in itertools.permutations(range(len(parties))):
        teams: list[list[int]] = [[] for _ in range(shape.team_count)]
        fill = [0] * shape.team_count
        turn = 0  # every team starts empty: the emptiest is team 1
        ok = True
        for index in sequence:
            for offset in range(shape.team_count):
                t = (turn + offset) % shape.team_count
                if fill[t] + parties[index].size <= shape.size_max:
                    teams[t].append(index)
                    fill[t] += parties[index].size
                    turn = t + 1
                    break
            else:
                ok = False
                break
        if ok and min(fill) >= shape.size_min:
            deals.append(tuple(tuple(team) for team in teams))
    return deals


party_sizes = st.lists(st.integers(1, 3), min_size=2, max_size=6)


@settings(max_examples=60, deadline=None)
@given(
    party_sizes,
    st.integers(0, 2**32),
    st.sampled_from([(2, 2, 2), (2, 3, 3), (3, 2, 2), (2, 4, 4)]),
)
def test_combination_is_the_best_over_every_sequence(
    sizes: list[int], seed: int, dims: tuple[int, int, int]
) -> None:
    teams, low, high = dims
    shape = TeamShape(teams, low, high)
    rng = random.Random(seed)
    parties = [
        party(f"t{i}", [rng.randint(0, 50) for _ in range(n)], i) for i, n in enumerate(sizes)
    ]
    fills = _all_exact_fills(parties, shape)
    lineup = combination(parties, shape)
    if not fills:
        assert lineup is None
        return
    assert lineup is not None
    best = min(composition_key(_ratings(parties, split)) for split in fills)
    assert composition_key(_ratings(parties, lineup.teams)) == best


@settings(max_examples=60, deadline=None)
@given(party_sizes, st.integers(0, 2**32), st.sampled_from([(2, 1, 4), (2, 2, 3), (3, 1, 3)]))
def test_permutation_is_the_best_over_every_deal(
    sizes: list[int], seed: int, dims: tuple[int, int, int]
) -> None:
    teams, low, high = dims
    shape = TeamShape(teams, low, high)
    rng = random.Random(seed)
    parties = [
        party(f"t{i}", [rng.randint(0, 50) for _ in range(n)], i) for i, n in enumerate(sizes)
    ]
    deals = _literal_permutation(parties, shape)
    lineup = permutation(parties, shape, max_sequences=720)
    if not deals:
        assert lineup is None
        return
    assert lineup is not None
    best = min(composition_key(_ratings(parties, split)) for split in deals)
    assert composition_key(_ratings(parties, lineup.teams)) == best


def test_permutation_backfills_a_running_match() -> None:
    # Team 1 already holds a player rated 70; three solos join a 2 x (1..3) match.
    parties = [party("b", [40], 0), party("c", [60], 1), party("d", [50], 2)]
    lineup = permutation(parties, TeamShape(2, 1, 3), existing=[[70], []])
    assert lineup is not None
    teams = [[70] + _ratings(parties, lineup.teams)[0], _ratings(parties, lineup.teams)[1]]
    assert sorted(teams[0]) == [40, 70]
    assert composition_key(teams) == (0, 0.0)


def test_rebalance_auto_picks_the_documented_method() -> None:
    parties = worked_example()
    assert rebalance(parties, SEVEN) == greedy(parties, SEVEN)
    solos = [party(f"s{i}", [10 * i], i) for i in range(6)]
    assert rebalance(solos, TeamShape(2, 3, 3)) == combination(solos, TeamShape(2, 3, 3))
    assert rebalance(solos, TeamShape(2, 2, 4)) == permutation(solos, TeamShape(2, 2, 4))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=5),
    st.integers(0, 2**32),
    st.lists(st.integers(0, 3), min_size=2, max_size=3),
)
def test_permutation_with_capacities_finds_the_best_exact_backfill(
    sizes: list[int], seed: int, members: list[int]
) -> None:
    # A running session: members already seated per team, and open slots that the
    # parties exactly fill, dealt at random over the teams (each team its own size).
    rng = random.Random(seed)
    parties = [
        party(f"t{i}", [rng.randint(0, 50) for _ in range(n)], i) for i, n in enumerate(sizes)
    ]
    existing = [[rng.randint(0, 50) for _ in range(m)] for m in members]
    slots = [rng.randrange(len(members)) for _ in range(sum(sizes))]
    caps = [m + slots.count(k) for k, m in enumerate(members)]
    shape = TeamShape(len(members), min(caps), max(caps))
    exact = [
        split
        for assign in itertools.product(range(len(members)), repeat=len(parties))
        for split in [
            tuple(tuple(i for i, t in enumerate(assign) if t == k) for k in range(len(members)))
        ]
        if all(
            len(existing[k]) + sum(parties[i].size for i in split[k]) == caps[k]
            for k in range(len(members))
        )
    ]

    def seated(split: tuple[tuple[int, ...], ...]) -> list[list[int]]:
        return [existing[k] + _ratings(parties, split)[k] for k in range(len(members))]

    lineup = permutation(parties, shape, existing, max_sequences=720, capacities=caps)
    if not exact:
        assert lineup is None
        return
    assert lineup is not None
    assert lineup.teams in exact  # capacities hold: every team filled to its own size
    assert composition_key(seated(lineup.teams)) == min(composition_key(seated(s)) for s in exact)
