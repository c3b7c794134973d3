"""game-queue and rebalance through the checker: modes, roles, options, determinism."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Player, WaveSnapshot
from matcher.strategies import run_wave
from matcher.teams.checks import team_result_problems
from matcher.teams.imbalance import Imbalance, imbalance
from matcher.teams.roles import shortest_role_interval, split_representatives
from tests.teams.factories import player, profile, snapshot, ticket

ROLES = ("tank", "healer", "dps")


def any_wave(sizes: list[int], ratings: list[int], queue: str = "5v5") -> WaveSnapshot:
    """Tickets whose players are rated under "any", as the streaming tests send them."""
    tickets, n = [], 0
    for i, size in enumerate(sizes):
        members = [
            Player(f"p{n + j}", (("any", ratings[(n + j) % len(ratings)]),)) for j in range(size)
        ]
        n += size
        tickets.append(ticket(f"t{i}", members, joined_at_ms=i * 100, queue=queue))
    return snapshot(tickets, queue=queue)


@pytest.mark.parametrize("strategy", ["rebalance", "game-queue"])
@pytest.mark.parametrize("k", [3, 5])
def test_any_rated_parties_all_play_in_a_queue_without_roles(strategy: str, k: int) -> None:
    sizes = [1, 2, 3, 1, 1, 2, 1, 3, 2, 1, 2, 1]
    total = sum(sizes)  # 20 players: three 3v3 games (2 left over) or two 5v5 games
    snap = any_wave(sizes, [1500, 1620, 1410, 1700, 1380, 1555])
    prof = profile(strategy, team_size=k)
    result = run_wave(snap, prof)
    assert team_result_problems(snap, prof, result) == []
    expected = (total // (2 * k)) * 2 * k
    assert result.stat("players_matched") == expected
    for match in result.matches:
        assert {seat.role for team in match.teams for seat in team.seats} == {""}
        assert {seat.rating for team in match.teams for seat in team.seats} <= {
            1500,
            1620,
            1410,
            1700,
            1380,
            1555,
        }


def test_game_queue_worked_example_offline_and_queue_agree() -> None:
    snap = any_wave([1, 1, 1, 1], [10, 20, 30, 40], queue="2v2")
    for mode in ("offline", "queue"):
        prof = profile("game-queue", team_size=2, options={"mode": mode}, queue="2v2")
        result = run_wave(snap, prof)
        assert team_result_problems(snap, prof, result) == []
        (match,) = result.matches
        teams = [sorted(seat.rating for seat in team.seats) for team in match.teams]
        assert sorted(teams) == [[10, 40], [20, 30]]
        assert match.quality_of("imbalance") == pytest.approx(math.sqrt(125))
        assert match.quality_of("team_rating_diff") == 0.0
        assert match.quality_of("rating_spread") == 30.0


def test_beta_prefers_the_game_of_the_longest_waiting_players() -> None:
    # Two equally good games; the later-joined pair is perfectly even, the early pair is not.
    players = [player(f"p{i}", r) for i, r in enumerate([1000, 1010, 1500, 1500])]
    tickets = [
        ticket(f"t{i}", [p], joined_at_ms=at, queue="1v1")
        for i, (p, at) in enumerate(zip(players, [0, 0, 900_000, 900_000], strict=True))
    ]
    snap = snapshot(tickets, queue="1v1")
    plain = run_wave(
        snap, profile("game-queue", team_size=1, options={"mode": "queue"}, queue="1v1")
    )
    assert plain.matches[0].ticket_ids() == ("t2", "t3")  # f = 0 first
    timed = profile("game-queue", team_size=1, options={"mode": "queue", "beta": 1.0}, queue="1v1")
    result = run_wave(snap, timed)
    assert team_result_problems(snap, timed, result) == []
    assert result.matches[0].ticket_ids() == ("t0", "t1")  # joined 900 s earlier: g smaller


def test_max_imbalance_leaves_lopsided_games_queued() -> None:
    snap = any_wave(
        [1, 1, 1, 1, 1, 1, 1, 1], [1000, 1001, 1002, 1003, 1900, 1300, 1600, 1100], queue="2v2"
    )
    prof = profile("game-queue", team_size=2, options={"max_imbalance": 5.0}, queue="2v2")
    result = run_wave(snap, prof)
    assert team_result_problems(snap, prof, result) == []
    assert len(result.matches) == 1
    assert result.matches[0].quality_of("imbalance") <= 5.0  # type: ignore[operator]
    assert len(result.unmatched) == 4


@pytest.mark.parametrize(
    ("options", "team_count", "message"),
    [
        ({"mode": "fast"}, 2, "options.mode"),
        ({"beat": 1}, 2, "options.beat: unknown option"),
        ({"q": 0.5}, 2, "options.q"),
        ({"window": 1}, 2, "options.window"),
        ({"max_nodes": 0}, 2, "options.max_nodes"),
        ({}, 3, "team_count: the game queue plays two teams"),
    ],
)
def test_bad_options_name_the_field(
    options: dict[str, object], team_count: int, message: str
) -> None:
    prof = profile("game-queue", team_count=team_count, options=options)
    with pytest.raises(ValueError, match=message):
        run_wave(any_wave([1, 1], [1, 2]), prof)


def test_relaxed_team_sizes_are_rejected_by_the_game_queue() -> None:
    with pytest.raises(ValueError, match="team_size_min"):
        run_wave(any_wave([1, 1], [1, 2]), profile("game-queue", team_size_min=3))


ROLE_PLAYER = st.tuples(
    st.sets(st.sampled_from(ROLES), min_size=1, max_size=2), st.integers(1000, 2000)
)


def role_players(drawn: list[tuple[set[str], int]]) -> list[Player]:
    return [
        player(f"p{i}", 0, [(role, rating + 10 * n) for n, role in enumerate(sorted(roles))])
        for i, (roles, rating) in enumerate(drawn)
    ]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(ROLE_PLAYER, min_size=1, max_size=14),
    st.sampled_from(["rebalance", "game-queue"]),
    st.sampled_from([{}, {"mode": "queue"}, {"method": "greedy"}]),
    st.lists(st.integers(1, 2), min_size=0, max_size=3),
)
def test_role_waves_pass_the_checker_and_are_deterministic(
    drawn: list[tuple[set[str], int]], strategy: str, options: dict[str, object], parties: list[int]
) -> None:
    if ("method" in options) != (strategy == "rebalance"):
        options = {}
    people = role_players(drawn)
    tickets, start = [], 0
    for number, size in enumerate([*parties, *([1] * len(people))]):
        members = people[start : start + size]
        if not members:
            break
        tickets.append(ticket(f"t{number}", members, joined_at_ms=number, queue="3v3"))
        start += len(members)
    snap = snapshot(tickets, queue="3v3", seed=11)
    prof = profile(strategy, team_size=3, roles=ROLES, options=options, queue="3v3")
    result = run_wave(snap, prof)
    assert team_result_problems(snap, prof, result) == []
    assert run_wave(snap, prof) == result


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 3), st.integers(1000, 2000)), min_size=0, max_size=16),
    st.sampled_from([3, 5]),
    st.sampled_from(["rebalance", "game-queue"]),
    st.sampled_from([{}, {"mode": "queue"}, {"mode": "queue", "beta": 0.1}]),
    st.integers(0, 2**32),
)
def test_party_waves_pass_the_checker_and_are_deterministic(
    drawn: list[tuple[int, int]], k: int, strategy: str, options: dict[str, object], seed: int
) -> None:
    if strategy == "rebalance":
        options = {}
    tickets = [
        ticket(f"t{i}", [player(f"p{i}.{j}", rating + 7 * j) for j in range(size)], i, queue="q")
        for i, (size, rating) in enumerate(drawn)
    ]
    snap = snapshot(tickets, queue="q", seed=seed)
    prof = profile(strategy, team_size=k, options=options, queue="q")
    result = run_wave(snap, prof)
    assert team_result_problems(snap, prof, result) == []
    assert run_wave(snap, prof) == result
    players = sum(size for size, _ in drawn)
    if strategy == "game-queue" and all(size == 1 for size, _ in drawn):
        # Solos always fill every whole game the wave holds.
        assert result.stat("players_matched") == players // (2 * k) * 2 * k


def brute_role_f(people: list[Player], roles: tuple[str, ...], params: Imbalance) -> float:
    """Least f over every choice of two teams each filling ``roles`` with distinct players."""
    best = math.inf
    for first in itertools.permutations(range(len(people)), len(roles)):
        if any(people[i].rating(r) is None for i, r in zip(first, roles, strict=True)):
            continue
        rest = [i for i in range(len(people)) if i not in first]
        for second in itertools.permutations(rest, len(roles)):
            if first > second or any(
                people[i].rating(r) is None for i, r in zip(second, roles, strict=True)
            ):
                continue
            teams = [
                [people[i].rating(r) or 0 for i, r in zip(team, roles, strict=True)]
                for team in (first, second)
            ]
            best = min(best, imbalance(teams, params))
    return best


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(ROLES[:2]), st.integers(1000, 1400)), min_size=4, max_size=7
    ),
    st.sampled_from([0.0, 1.0]),
    st.sampled_from([1.0, 2.0, math.inf]),
)
def test_role_interval_game_is_within_rho_of_the_best_game(
    drawn: list[tuple[str, int]], alpha: float, q: float
) -> None:
    roles = ("tank", "dps")
    params = Imbalance(alpha=alpha, p=1.0, q=q)
    people = [player(f"p{i}", 0, [(role, rating)]) for i, (role, rating) in enumerate(drawn)]
    order = sorted(range(len(people)), key=lambda i: drawn[i][1])
    people = [people[i] for i in order]
    ratings = [drawn[i][1] for i in order]
    found = shortest_role_interval(people, ratings, roles)
    optimum = brute_role_f(people, roles, params)
    if found is None:
        assert optimum == math.inf
        return
    _, _, matched = found
    first, second = split_representatives(matched, ratings, roles, params)
    approx = imbalance([[ratings[i] for i in first], [ratings[i] for i in second]], params)
    assert approx <= params.rho(len(roles)) * optimum + 1e-6


def test_role_queue_plays_the_shortest_interval_with_two_of_each_role() -> None:
    drawn = [("tank", 1000), ("dps", 1005), ("dps", 1008), ("tank", 1010), ("dps", 1500)]
    drawn += [("tank", 2000)]
    people = [player(f"p{i}", 0, [(role, rating)]) for i, (role, rating) in enumerate(drawn)]
    found = shortest_role_interval(people, [r for _, r in drawn], ("tank", "dps"))
    assert found is not None
    assert found[:2] == (0, 3)  # 1000..1010: the only 2-tank, 2-dps run narrower than 990
    tickets = [ticket(f"t{i}", [p], joined_at_ms=i, queue="2v2") for i, p in enumerate(people)]
    snap = snapshot(tickets, queue="2v2")
    prof = profile(
        "game-queue", team_size=2, roles=("tank", "dps"), options={"mode": "queue"}, queue="2v2"
    )
    result = run_wave(snap, prof)
    assert team_result_problems(snap, prof, result) == []
    assert [m.ticket_ids() for m in result.matches] == [("t0", "t1", "t2", "t3")]
    (match,) = result.matches
    for team in match.teams:
        assert sorted(seat.role for seat in team.seats) == ["dps", "tank"]
    # Tanks 1000 / 1010 and dps 1005 / 1008: the least gap pairs 1000 with 1008.
    sums = sorted(sum(seat.rating for seat in team.seats) for team in match.teams)
    assert sums == [2008, 2015]
    assert result.unmatched == ("t4", "t5")
