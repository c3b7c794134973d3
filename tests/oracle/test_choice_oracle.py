"""``optimal_choice = "weighted"`` (docs/adr/0181) against brute force on small waves.

Every matching of a wave of up to 10 players is enumerated: the strategy's result has
the most pairs any legal matching has, and the largest perturbed gain (``-score`` plus
the wave seed's draw) among those; the live checker agrees. The same seed gives the
same pairs; across a fixed set of seeds, a player gets the closer of two acceptable
opponents about as often as the Gumbel-max law says, and the default never varies. Under
``max_distance`` and block lists (the block oracle's brute force) and on hypothesis waves
(the networkx reference's count) the draw still makes the most pairs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from matcher.core import QueueProfile, WaveResult, WaveSnapshot
from matcher.duel.choice import pair_noise
from matcher.duel.graph import DuelArrays, cost, legal
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer, parse_config
from matcher.duel.result import duel_players
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import result_problems, run_wave
from tests.duel.reference import reference_optimum
from tests.duel.test_properties import waves
from tests.duel.waves import arrays_of, profile_of, snapshot_of
from tests.oracle.distributions import DUEL, MAPS
from tests.oracle.test_block_oracle import WAVES, duel_wave, most_pairs, no_blocked_pair_together

SCALE = 50
WEIGHTED = {"optimal_choice": "weighted", "optimal_choice_scale": SCALE}
SIZES = (2, 3, 6, 9, 10)
WAVE_SEEDS = (1, 2, 3)
#: Wave seeds of the statistical assertions: fixed, so the counts cannot move.
DRAWS = range(400)


def profile(**options: object) -> QueueProfile:
    return QueueProfile("1v1", "optimal", MAPS, options=dict(options))


def matchings(arrays: DuelArrays, free: tuple[int, ...]) -> Iterator[list[tuple[int, int]]]:
    """Every matching of the players ``free`` on legal pairs, each pair on its cheaper side
    (the perturbation is per unordered pair, so the cheaper side always gains more)."""
    if not free:
        yield []
        return
    first, rest = free[0], free[1:]
    yield from matchings(arrays, rest)
    for other in rest:
        sides = [(a, b) for a, b in ((first, other), (other, first)) if legal_pair(arrays, a, b)]
        if not sides:
            continue
        pair = min(sides, key=lambda side: score(arrays, *side))
        left = tuple(p for p in rest if p != other)
        for tail in matchings(arrays, left):
            yield [pair, *tail]


def legal_pair(arrays: DuelArrays, a: int, b: int) -> bool:
    return bool(legal(arrays, np.array([a]), np.array([b]))[0])


def score(arrays: DuelArrays, a: int, b: int) -> int:
    return int(cost(arrays, np.array([a]), np.array([b]))[0])


def gain(arrays: DuelArrays, pairs: list[tuple[int, int]], seed: int) -> int:
    if not pairs:
        return 0
    bw = np.array([a for a, _ in pairs], dtype=np.int64)
    sc2 = np.array([b for _, b in pairs], dtype=np.int64)
    noise = pair_noise(seed, SCALE, arrays.size)(bw, sc2)
    return int((noise - cost(arrays, bw, sc2)).sum())


def oracle(snapshot: WaveSnapshot) -> tuple[DuelArrays, int, int]:
    """The wave's arrays, the most pairs of any legal matching and the largest perturbed
    gain among the matchings with that many pairs, by enumeration."""
    players, _ = duel_players(snapshot)
    config = parse_config(WEIGHTED, OPTIMAL_DEFAULTS)
    arrays = arrays_of(players, snapshot.active_population, config, MAPS)
    every = list(matchings(arrays, tuple(range(arrays.size))))
    most = max(len(m) for m in every)
    best = max(gain(arrays, m, snapshot.seed) for m in every if len(m) == most)
    return arrays, most, best


def positions(snapshot: WaveSnapshot, result: WaveResult) -> list[tuple[int, int]]:
    at = {w.ticket.ticket_id: i for i, w in enumerate(snapshot.tickets)}
    return [
        (at[m.teams[0].seats[0].ticket_id], at[m.teams[1].seats[0].ticket_id])
        for m in result.matches
    ]


def pairs_of(result: WaveResult) -> list[tuple[str, str]]:
    return sorted(
        (m.teams[0].seats[0].player_id, m.teams[1].seats[0].player_id) for m in result.matches
    )


@pytest.mark.parametrize("seed", WAVE_SEEDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", sorted(DUEL))
def test_the_most_pairs_and_the_seeded_draws_best_gain(name: str, n: int, seed: int) -> None:
    players = DUEL[name](n, seed * 7919 + n)
    snapshot = snapshot_of(players, seed=seed * 1_000_003 + n, active_population=2 * n)
    result = run_wave(snapshot, profile(**WEIGHTED))
    assert result_problems(snapshot, profile(**WEIGHTED), result) == []
    arrays, most, best = oracle(snapshot)
    made = positions(snapshot, result)
    assert len(made) == most
    assert gain(arrays, made, snapshot.seed) == best
    again = run_wave(snapshot, profile(**WEIGHTED))
    assert pairs_of(again) == pairs_of(result)  # a replay of the wave: the same pairs


def triangle(seed: int, far: int) -> WaveSnapshot:
    """One BW player at 1500 and two SC2 players, 10 and ``far`` points away: one pair."""
    players = [
        DuelPlayer("a", 1500, None),
        DuelPlayer("near", None, 1510),
        DuelPlayer("far", None, 1500 + far),
    ]
    return snapshot_of(players, seed=seed, active_population=1000)


@pytest.mark.parametrize("far", (30, 60))
def test_the_closer_opponent_is_drawn_as_often_as_the_law_says(far: int) -> None:
    """P(near) = 1 / (1 + exp(-(far^2 - 10^2) / scale^2)): 0.79 at 60 points, 0.58 at 30."""
    chosen = Counter(
        next(p for p in pairs_of(run_wave(triangle(s, far), profile(**WEIGHTED)))[0] if p != "a")
        for s in DRAWS
    )
    expected = 1 / (1 + math.exp(-(far**2 - 10**2) / SCALE**2))
    assert sum(chosen.values()) == len(DRAWS)  # a pair every time: the most pairs
    assert abs(chosen["near"] / len(DRAWS) - expected) < 0.06, (chosen, expected)
    assert chosen["near"] > chosen["far"] > 0
    default = {tuple(pairs_of(run_wave(triangle(s, far), profile()))) for s in DRAWS}
    assert default == {(("a", "near"),)}  # today's default: always the closest


#: A mirror ladder of ten players 12 points apart: every pair inside the low-pressure window.
LADDER = [DuelPlayer(f"p{i}", 1500 + 12 * i, 1500 + 12 * i) for i in range(10)]


def test_closer_opponents_are_chosen_more_often_on_a_larger_wave() -> None:
    """Over 400 seeds of one 10-player wave, each player's closest acceptable opponent is
    drawn more often than its farthest, and every player meets at least three opponents."""
    players = LADDER
    met: dict[str, Counter[str]] = {p.player_id: Counter() for p in players}
    for s in DRAWS:
        result = run_wave(snapshot_of(players, seed=s, active_population=1000), profile(**WEIGHTED))
        for bw, sc2 in pairs_of(result):
            met[bw][sc2] += 1
            met[sc2][bw] += 1
    arrays = oracle(snapshot_of(players, seed=0, active_population=1000))[0]
    compared = 0
    for i, player in enumerate(players):
        scores = {
            players[j].player_id: min(
                score(arrays, a, b) for a, b in ((i, j), (j, i)) if legal_pair(arrays, a, b)
            )
            for j in range(len(players))
            if j != i and (legal_pair(arrays, i, j) or legal_pair(arrays, j, i))
        }
        if len(scores) < 2 or max(scores.values()) - min(scores.values()) < SCALE**2:
            continue
        closest, farthest = min(scores, key=scores.__getitem__), max(scores, key=scores.__getitem__)
        assert met[player.player_id][closest] > met[player.player_id][farthest], player
        compared += 1
    assert compared == len(players)  # every player of this wave has a real choice
    assert all(len(opponents) > 2 for opponents in met.values())


def test_the_checker_fails_a_result_that_ignores_the_option() -> None:
    """The default's least-cost pairs are not the wave's seeded choice."""
    differs = 0
    for s in range(20):
        snapshot = snapshot_of(LADDER, seed=s, active_population=1000)
        best = run_wave(snapshot, profile())
        weighted = run_wave(snapshot, profile(**WEIGHTED))
        assert result_problems(snapshot, profile(**WEIGHTED), weighted) == []
        if pairs_of(best) != pairs_of(weighted):
            differs += 1
            problems = result_problems(snapshot, profile(**WEIGHTED), best)
            assert any("not the wave's seeded choice" in p for p in problems), problems
    assert differs >= 10


def test_the_checker_fails_a_maximal_result_with_fewer_pairs_than_the_maximum() -> None:
    """a-b-c-d, 100 points apart (only neighbours may play): b-c alone is maximal, which
    the default's checks accept, but a-b with c-d has one pair more."""
    path = [
        DuelPlayer(name, rating, rating)
        for name, rating in zip("abcd", (1500, 1600, 1700, 1800), strict=True)
    ]
    snapshot = snapshot_of(path, seed=3, active_population=1000)
    inner = run_wave(replace(snapshot, tickets=snapshot.tickets[1:3]), profile(**WEIGHTED))
    maximal = replace(inner, unmatched=("a", "d"))
    assert pairs_of(maximal) == [("b", "c")] or pairs_of(maximal) == [("c", "b")]
    assert result_problems(snapshot, profile(), replace(maximal, stats=())) == []
    problems = result_problems(snapshot, profile(**WEIGHTED), maximal)
    assert problems == ["weighted choice: 1 pairs, a maximum matching has 2"], problems
    assert len(run_wave(snapshot, profile(**WEIGHTED)).matches) == 2


@pytest.mark.parametrize("limit", (100, 200))
def test_under_the_queue_rules_the_most_pairs_none_blocked(limit: int) -> None:
    """A mirror queue with ``max_distance`` and block lists (tests/oracle/test_block_oracle's
    waves and brute force): the weighted draw still makes the most pairs, none blocked,
    and both live checkers (the strategy's and the rules') pass it."""
    rules = {"rating": "mmr", "max_distance": limit, "block_lists": True}
    queue = QueueProfile("q", "optimal", ("m",), options=WEIGHTED, rules=rules)
    varied = 0
    for seed in range(WAVES):
        snapshot = rated_snapshot(duel_wave(seed), queue.ruleset)
        result = run_wave(snapshot, queue)
        no_blocked_pair_together(snapshot, result, queue)
        assert result_problems(snapshot, queue, result) == []
        assert wave_rule_problems(snapshot, queue, result) == []
        players = [w.ticket.players[0] for w in snapshot.tickets]
        assert len(result.matches) == most_pairs(players, limit), seed
        best = run_wave(snapshot, replace(queue, options={}))
        varied += pairs_of(best) != pairs_of(result)
    assert varied > 0


@settings(max_examples=30, deadline=None)
@given(waves)
def test_any_wave_any_window_rule_the_most_pairs_and_a_passing_check(
    wave: tuple[list[DuelPlayer], int, int, str],
) -> None:
    """Hypothesis waves of up to 22 players (races, "both" players, vetoes, waits, every
    window rule): the draw makes the networkx reference's count of pairs, passes the
    checker, and a second run of the same snapshot gives the same pairs."""
    players, seed, population, rule = wave
    snapshot = snapshot_of(players, seed=seed, active_population=population)
    queue = profile_of("optimal", window_rule=rule, **WEIGHTED)  # the waves' own maps
    result = run_wave(snapshot, queue)
    assert result_problems(snapshot, queue, result) == []
    config = parse_config({"window_rule": rule}, OPTIMAL_DEFAULTS)
    assert len(result.matches) == reference_optimum(players, population, queue.maps, config)[0]
    assert run_wave(snapshot, queue).matches == result.matches
