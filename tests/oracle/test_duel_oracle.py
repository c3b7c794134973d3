"""``optimal`` against exact oracles on the distributions real games send (issue 30).

Per distribution of :mod:`tests.oracle.distributions` and size:

* up to 2,000 players, the maximum number of pairs: rustworkx's blossom (cardinality only)
  on every legal pair; ``optimal`` makes all of them up to ``optimal_exact_limit`` and at
  least 99.5 % above, and its result is maximal (no legal pair left among the unmatched);
* up to 1,000 players, the optimum's pairs (rustworkx's weighted blossom on every legal
  pair): mean |diff| within +1 and 99th percentile within +10 of it; up to 60 players
  networkx's blossom confirms the small tier's summed score exactly;
* above, the rating-sorted dynamic programme's pairs (a lower bound of the maximum);
* every size: the bound ``optimal`` reports (``pair_bound``) is at least the maximum (or
  the lower bound), and the pairs made are at least 99.5 % of it, as the stats claim.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import rustworkx as rx

from matcher.duel.graph import DuelArrays, legal, legal_table
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer
from matcher.duel.optimal import OptimalOutcome, optimal_pairs
from matcher.duel.small import exact_pairs, legal_edges
from tests.duel.waves import arrays_of
from tests.oracle.distributions import DUEL, MAPS

SHARE = 0.995
SMALL = (2, 3, 5, 10, 31, 60, 400)
LARGE = (401, 1000)
CARDINALITY_ONLY = (2000,)
#: Above the blossom's reach: the dynamic programme's lower bound (single-rating waves).
HUGE = (10_000,)
MIRRORED = ("tied", "all_equal", "bimodal", "sparse_tails", "long_waits")


def solve(name: str, n: int, seed: int = 1) -> tuple[list[DuelPlayer], DuelArrays, OptimalOutcome]:
    players = DUEL[name](n, seed * 7919 + n)
    outcome = optimal_pairs(players, 2 * n, MAPS, OPTIMAL_DEFAULTS)
    return players, arrays_of(players, 2 * n, OPTIMAL_DEFAULTS, MAPS), outcome


def index_pairs(players: list[DuelPlayer], outcome: OptimalOutcome) -> list[tuple[int, int]]:
    at = {player.player_id: i for i, player in enumerate(players)}
    return [(at[p.bw.player_id], at[p.sc2.player_id]) for p in outcome.pairs]


def maximum_pairs(arrays: DuelArrays) -> int:
    """The blossom's maximum cardinality on every legal pair."""
    bw, sc2, _ = legal_edges(arrays)
    graph = rx.PyGraph()
    graph.add_nodes_from(range(arrays.size))
    graph.add_edges_from_no_data(list(zip(bw.tolist(), sc2.tolist(), strict=True)))
    return len(rx.max_weight_matching(graph, max_cardinality=True))


def assert_legal_and_maximal(arrays: DuelArrays, pairs: list[tuple[int, int]]) -> None:
    bw = np.array([a for a, _ in pairs], dtype=np.int64)
    sc2 = np.array([b for _, b in pairs], dtype=np.int64)
    everyone = np.arange(arrays.size)
    assert len(set(bw.tolist()) | set(sc2.tolist())) == 2 * len(pairs), "a player twice"
    if len(pairs):
        assert legal_table(arrays, everyone)[bw, sc2].all(), "an illegal pair"
    matched = np.zeros(arrays.size, dtype=bool)
    matched[bw] = matched[sc2] = True
    loose = np.flatnonzero(~matched)
    left = np.argwhere(legal_table(arrays, loose))
    assert not len(left), f"not maximal: {len(left)} legal pairs among the unmatched"


def diffs(players: list[DuelPlayer], pairs: list[tuple[int, int]]) -> tuple[float, float]:
    found = [abs((players[a].bw_mmr or 0) - (players[b].sc2_mmr or 0)) for a, b in pairs]
    values = np.array(found or [0], dtype=np.float64)
    return float(values.mean()), float(np.percentile(values, 99))


def sorted_neighbour_pairs(arrays: DuelArrays) -> int:
    """A single-rating wave's most pairs of rating-sorted neighbours (a lower bound of the
    maximum): best[i] = max(best[i - 1], best[i - 2] + 1 when i - 1 and i may play)."""
    order = np.argsort(arrays.bw, kind="stable")
    first, second = order[:-1], order[1:]
    ok = legal(arrays, first, second) | legal(arrays, second, first)
    best = [0, 0]
    for playable in ok.tolist():
        best.append(max(best[-1], best[-2] + 1 if playable else 0))
    return best[-1]


@pytest.mark.parametrize("n", SMALL + LARGE + CARDINALITY_ONLY)
@pytest.mark.parametrize("name", sorted(DUEL))
def test_most_pairs_against_the_blossom(name: str, n: int) -> None:
    players, arrays, outcome = solve(name, n)
    pairs = index_pairs(players, outcome)
    most = maximum_pairs(arrays)
    assert_legal_and_maximal(arrays, pairs)
    if n <= OPTIMAL_DEFAULTS.optimal_exact_limit:
        assert len(pairs) == most == outcome.pair_bound
    else:
        assert len(pairs) >= math.ceil(SHARE * most), (len(pairs), most)
    assert outcome.pair_bound >= most
    assert len(pairs) >= SHARE * outcome.pair_bound


@pytest.mark.parametrize("n", LARGE)
@pytest.mark.parametrize("name", sorted(DUEL))
def test_rating_differences_against_the_optimum(name: str, n: int) -> None:
    players, arrays, outcome = solve(name, n)
    best = diffs(players, exact_pairs(arrays))
    found = diffs(players, index_pairs(players, outcome))
    assert found[0] <= best[0] + 1.0, (found, best)
    assert found[1] <= best[1] + 10.0, (found, best)


@pytest.mark.parametrize("seed", range(2, 6))
@pytest.mark.parametrize("n", LARGE)
def test_coarse_two_ratings_against_the_optimum_over_seeds(n: int, seed: int) -> None:
    """Coarse ties on two ratings with vetoes set the 99th percentile by a handful of
    pairs: which players sit out and where a tied group finds its partners."""
    players, arrays, outcome = solve("tied_two_ratings", n, seed)
    best = diffs(players, exact_pairs(arrays))
    found = diffs(players, index_pairs(players, outcome))
    assert found[0] <= best[0] + 1.0, (found, best)
    assert found[1] <= best[1] + 10.0, (found, best)
    assert len(outcome.pairs) >= math.ceil(SHARE * outcome.pair_bound - 1e-9)


@pytest.mark.parametrize("n", (2, 5, 31, 60))
@pytest.mark.parametrize("name", sorted(DUEL))
def test_small_tier_is_networkx_optimum(name: str, n: int) -> None:
    players, arrays, outcome = solve(name, n)
    bw, sc2, score = legal_edges(arrays)
    graph = nx.Graph()
    top = int(score.max(initial=0)) + 1
    for a, b, s in zip(bw.tolist(), sc2.tolist(), score.tolist(), strict=True):
        graph.add_edge(a, b, weight=top - s)
    best = nx.max_weight_matching(graph, maxcardinality=True)
    lookup = {(min(a, b), max(a, b)): s for a, b, s in zip(bw, sc2, score, strict=True)}
    pairs = index_pairs(players, outcome)
    assert len(pairs) == len(best)
    found = sum(lookup[(min(a, b), max(a, b))] for a, b in pairs)
    assert found == sum(lookup[(min(a, b), max(a, b))] for a, b in best)


@pytest.mark.parametrize("n", HUGE)
@pytest.mark.parametrize("name", ("tied", "sparse_tails", "long_waits"))
def test_huge_waves_against_the_sorted_neighbour_bound(name: str, n: int) -> None:
    players, arrays, outcome = solve(name, n)
    pairs = index_pairs(players, outcome)
    lower = sorted_neighbour_pairs(arrays)
    assert outcome.pair_bound >= lower
    assert len(pairs) >= math.ceil(SHARE * max(lower, outcome.pair_bound) - 1e-9)
    bw = np.array([a for a, _ in pairs])
    matched = np.zeros(arrays.size, dtype=bool)
    matched[bw] = True
    matched[[b for _, b in pairs]] = True
    assert not legal_table(arrays, np.flatnonzero(~matched)).any(), "not maximal"


@pytest.mark.parametrize("age", ["oldest", "newest"])
def test_optimal_under_expanding_rules_makes_the_most_legal_pairs(age: str) -> None:
    """``optimal`` with ``max_distance`` and ``max_latency_ms`` expanding with the wait of a
    pair's oldest or newest ticket (ADR 0175) against brute force: a pair is legal when its
    distance and both latencies are within the limits at the chosen wait; the blossom's
    maximum on those pairs is what ``optimal`` makes, and every pair it makes is legal."""
    from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
    from matcher.strategies import run_wave

    distance = {"base": 50, "growth_per_s": 10, "cap": 600, "expansion_age": age}
    latency = {"base": 40, "growth_per_s": 2, "cap": 150, "expansion_age": age}
    rules = {"rating": "mmr", "max_distance": distance, "max_latency_ms": latency}
    profile = QueueProfile("1v1", "optimal", MAPS, rules=rules)
    close_ms = 600_000
    pick = max if age == "oldest" else min
    for seed in range(30):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 24))
        ratings = rng.integers(1000, 2000, n).tolist()
        latencies = rng.integers(10, 160, n).tolist()
        waits = rng.integers(0, 60, n).tolist()
        tickets = tuple(
            WaitingTicket(
                Ticket(
                    f"t{i}",
                    "1v1",
                    "eu",
                    (Player(f"t{i}", (("mmr", ratings[i]),), latency_ms=(("eu", latencies[i]),)),),
                    close_ms - waits[i] * 1000,
                ),
                0,
            )
            for i in range(n)
        )
        snapshot = WaveSnapshot("1v1", "eu", "w", 1, seed, close_ms, tickets)

        def ok(
            a: int,
            b: int,
            waits: list[int] = waits,
            ratings: list[int] = ratings,
            latencies: list[int] = latencies,
        ) -> bool:
            waited = pick(waits[a], waits[b])
            reach = min(50 + 10 * waited, 600)
            lag = min(40 + 2 * waited, 150)
            return abs(ratings[a] - ratings[b]) <= reach and max(latencies[a], latencies[b]) <= lag

        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from((a, b) for a in range(n) for b in range(a + 1, n) if ok(a, b))
        most = len(nx.max_weight_matching(graph, maxcardinality=True))
        result = run_wave(snapshot, profile)
        made = [
            [int(s.ticket_id[1:]) for team in m.teams for s in team.seats] for m in result.matches
        ]
        assert all(ok(a, b) for a, b in made), (seed, made)
        assert len(made) == most, (seed, len(made), most)
