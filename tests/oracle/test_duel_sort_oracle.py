"""``optimal`` under a queue's soft ``sort`` (issue 35, ADR 0195) against brute force on
small waves: still the most pairs (the sort keeps nobody out), and among those the least
summed score ``diff**2 + sum of (weight x number gap)**2``; the live checker proves that
objective and fails a result that ignores the sort."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.duel.checks import duel_result_problems
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import check_rules, run_wave
from tests.oracle.test_duel_checks_oracle import CLOSED_AT_MS, pair_ok, random_checks, wave

WAVES = 25


def profile_of(
    sort: list[dict[str, object]], checks: list[dict[str, object]], max_distance: int
) -> QueueProfile:
    rules: dict[str, object] = {"rating": "mmr", "max_distance": max_distance, "sort": sort}
    if checks:
        rules["checks"] = checks
    profile = QueueProfile("q", "optimal", ("m",), rules=rules)
    check_rules(profile)  # accepted at start
    return profile


def score(profile: QueueProfile, a: Player, b: Player) -> int:
    """The pair's score by the ADR's formula (every ticket waited 0 waves)."""
    total = ((a.rating("mmr") or 0) - (b.rating("mmr") or 0)) ** 2
    for key in profile.ruleset.sort:
        x, y = a.number(key.number), b.number(key.number)
        if x is not None and y is not None:
            total += round((key.weight * (x - y)) ** 2)
    return total


def best(cost: dict[tuple[int, int], int], left: tuple[int, ...]) -> tuple[int, int]:
    """(most pairs, least summed cost) over the pairings of ``left`` by the legal pairs
    in ``cost``, by exhaustion."""
    if len(left) < 2:
        return 0, 0
    first, rest = left[0], left[1:]
    pairs, spent = best(cost, rest)
    found = (pairs, -spent)
    for other in rest:
        if (first, other) in cost:
            more, more_spent = best(cost, tuple(x for x in rest if x != other))
            found = max(found, (more + 1, -(more_spent + cost[first, other])))
    return found[0], -found[1]


def players_of(snapshot: WaveSnapshot) -> list[Player]:
    return [w.ticket.players[0] for w in snapshot.tickets]


@pytest.mark.parametrize("seed", range(WAVES))
def test_optimal_is_the_most_pairs_then_least_score_with_the_sort(seed: int) -> None:
    rng = random.Random(2000 + seed)
    sort = [{"number": "level", "weight": rng.choice((5, 20, 60, -30))}]
    checks = random_checks(rng) if rng.random() < 0.5 else []
    profile = profile_of(sort, checks, rng.choice((100, 250, 1000)))
    snapshot = rated_snapshot(wave(seed), profile.ruleset)
    result = run_wave(snapshot, profile)
    assert duel_result_problems(snapshot, profile, result) == []
    assert wave_rule_problems(snapshot, profile, result) == []
    players, tickets = players_of(snapshot), snapshot.tickets
    cost = {
        (i, j): score(profile, players[i], players[j])
        for i in range(len(players))
        for j in range(len(players))
        if i != j and pair_ok(profile, tickets[i], tickets[j])
    }
    index = {w.ticket.ticket_id: i for i, w in enumerate(tickets)}
    pairs = [tuple(index[team.seats[0].ticket_id] for team in m.teams) for m in result.matches]
    found = (len(pairs), sum(cost[a, b] for a, b in pairs))
    assert found == best(cost, tuple(range(len(players)))), seed
    # The sort keeps nobody out: as many pairs as without it.
    unsorted = profile_of([], checks, profile.ruleset.max_distance.base)  # type: ignore[union-attr]
    assert len(run_wave(snapshot, unsorted).matches) == len(pairs)


def four(levels: Sequence[float]) -> WaveSnapshot:
    """Four players at ratings 1500, 1510, 1520, 1530 with the given levels."""
    tickets = tuple(
        WaitingTicket(
            Ticket(
                f"t{i}",
                "q",
                "eu",
                (Player(f"p{i}", (("mmr", 1500 + 10 * i),), numbers=(("level", level),)),),
                CLOSED_AT_MS,
            ),
            0,
        )
        for i, level in enumerate(levels)
    )
    return WaveSnapshot("q", "eu", "w", 1, 3, CLOSED_AT_MS, tickets)


def test_the_sort_pairs_by_level_and_the_checker_fails_a_result_that_ignores_it() -> None:
    snapshot = four((1, 30, 30, 1))  # by rating p0-p1, p2-p3; by level p0-p3, p1-p2
    plain = run_wave(snapshot, profile_of([], [], 1000))
    sorted_ = profile_of([{"number": "level", "weight": 20}], [], 1000)
    result = run_wave(snapshot, sorted_)

    def pairs(found) -> set[frozenset[str]]:  # type: ignore[no-untyped-def]
        return {frozenset(s.player_id for t in m.teams for s in t.seats) for m in found.matches}

    assert pairs(plain) == {frozenset({"p0", "p1"}), frozenset({"p2", "p3"})}
    assert pairs(result) == {frozenset({"p0", "p3"}), frozenset({"p1", "p2"})}
    assert duel_result_problems(snapshot, sorted_, result) == []
    problems = duel_result_problems(snapshot, sorted_, plain)
    assert problems and problems[0].startswith("not optimal"), problems


def test_a_large_wave_is_valid_under_the_sort() -> None:
    profile = profile_of([{"number": "level", "weight": 20}], [], 250)
    snapshot = rated_snapshot(wave(11, size=1_200), profile.ruleset)
    result = run_wave(snapshot, profile)
    assert len(result.matches) > 200
    assert duel_result_problems(snapshot, profile, result) == []


@pytest.mark.parametrize(
    ("options", "rules"),
    [
        ({}, {"sort": [{"number": "level", "weight": 30}]}),
        ({"rematch_cost": 40_000}, {"rematch": {"last": 1, "within_s": 60}}),
        ({"virtual_rating_half_life_ms": 20_000}, {}),
    ],
    ids=("sort", "rematch_cost", "virtual"),
)
def test_a_seeded_draw_is_judged_by_the_choice_check_not_the_least_score(
    options: dict[str, object], rules: dict[str, object]
) -> None:
    """Under ``optimal_choice = "weighted"`` the result is the wave's draw, not the least
    summed score: the checker proves the draw (ADR 0181, on the ratings as paired) and no
    longer calls it "not optimal"; a result that is not the draw still fails."""
    profile = QueueProfile(
        "q",
        "optimal",
        ("m",),
        options={"optimal_choice": "weighted", **options},
        rules={"rating": "mmr", **rules},
    )
    best = QueueProfile("q", "optimal", ("m",), options=options, rules=profile.rules)
    differing = 0
    for seed in range(WAVES):
        snapshot = rated_snapshot(wave(seed), profile.ruleset)
        result = run_wave(snapshot, profile)
        assert duel_result_problems(snapshot, profile, result) == [], seed
        other = run_wave(snapshot, best)
        if players_in(other) != players_in(result):
            differing += 1
            assert duel_result_problems(snapshot, profile, other), seed
    assert differing  # the waves exercise a draw that differs from the least score


def players_in(result) -> set[frozenset[str]]:  # type: ignore[no-untyped-def]
    return {frozenset(s.player_id for t in m.teams for s in t.seats) for m in result.matches}
