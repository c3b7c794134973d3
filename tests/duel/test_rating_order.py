"""Re-pairing by rating order and the add/swap moves along it (docs/adr/0066).

- :func:`sorted_rematch` keeps the same players, stays legal and never costs more;
- every price :class:`matcher.duel.augment.Prices` computes from prefix sums equals the
  change found by building the moved sequences and scoring them from scratch;
- :func:`shifted_pairs` never loses a pair or raises the score, and stays legal;
- mid-size waves are proven optimal (the warm blossom with its duals checked);
- the quantile edges hold the pairs a drifting sorted order needs.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.augment import Prices, State, shifted_pairs
from matcher.duel.graph import DuelArrays, Ints, aligned_edges, cost, legal
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPair, DuelPlayer
from matcher.duel.optimal import optimal_pairs
from matcher.duel.rematch import sorted_rematch
from matcher.duel.warm import warm_pairs
from tests.duel.reference import count_and_cost, reference_optimum
from tests.duel.test_properties import duel_players
from tests.duel.waves import MAPS, arrays_of, synthetic_players, worker_benchmark_mix

RULES = ("lead", "longer", "shorter")


def some_matching(arrays: DuelArrays, seed: int) -> tuple[Ints, Ints]:
    """A maximal legal matching taken greedily in a seeded random order (far from optimal)."""
    n = arrays.size
    u, v = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    ok = legal(arrays, u, v)
    edges = list(zip(u[ok].tolist(), v[ok].tolist(), strict=True))
    random.Random(seed).shuffle(edges)
    used: set[int] = set()
    pairs = []
    for a, b in edges:
        if a not in used and b not in used:
            used.update((a, b))
            pairs.append((a, b))
    return (
        np.array([a for a, _ in pairs], dtype=np.int64),
        np.array([b for _, b in pairs], dtype=np.int64),
    )


def in_rating_order(arrays: DuelArrays, bw: Ints, sc2: Ints) -> tuple[Ints, Ints, Ints]:
    """Pairs ordered by BW rating (ties by player), and the waiting players."""
    order = np.lexsort((bw, arrays.bw[bw]))
    waiting = np.ones(arrays.size, dtype=bool)
    waiting[bw] = waiting[sc2] = False
    return bw[order], sc2[order], np.flatnonzero(waiting)


def random_wave_in_order(
    players: list[DuelPlayer], rule: str, seed: int
) -> tuple[DuelArrays, Ints, Ints, Ints]:
    """The wave's arrays under ``rule`` (active population 4 n) and a seeded random
    maximal matching of it in rating order, with the waiting players."""
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = arrays_of(players, 4 * len(players), config)
    return (arrays, *in_rating_order(arrays, *some_matching(arrays, seed)))


def as_pairs(bw: Ints, sc2: Ints) -> tuple[tuple[int, int], ...]:
    return tuple(zip(bw.tolist(), sc2.tolist(), strict=True))


def player_indices(
    players: list[DuelPlayer], pairs: tuple[DuelPair, ...]
) -> tuple[tuple[int, int], ...]:
    """``optimal_pairs``' pairs as ``(bw_player, sc2_player)`` indices into ``players``."""
    index = {p.player_id: i for i, p in enumerate(players)}
    return tuple((index[p.bw.player_id], index[p.sc2.player_id]) for p in pairs)


def total(arrays: DuelArrays, bw: Ints, sc2: Ints) -> int:
    return int(cost(arrays, bw, sc2).sum())


def test_sorted_rematch_spreads_a_gap_over_the_pairs_between() -> None:
    players = [
        DuelPlayer("a", 1500, None),
        DuelPlayer("b", 1501, None),
        DuelPlayer("c", None, 1501),
        DuelPlayer("d", None, 1505),
    ]
    arrays = arrays_of(players, 100, OPTIMAL_DEFAULTS)
    # a-d (5 MMR) and b-c (0): 25; in rating order a-c (1) and b-d (4): 1 + 16 = 17.
    bw, sc2 = sorted_rematch(arrays, np.array([0, 1]), np.array([3, 2]))
    assert sorted(as_pairs(bw, sc2)) == [(0, 2), (1, 3)]


def test_sorted_rematch_trades_partners_when_a_sorted_pair_has_no_map() -> None:
    players = [
        DuelPlayer("a", 1500, None, vetoed_maps=MAPS[:2]),
        DuelPlayer("b", 1502, None),
        DuelPlayer("c", None, 1501, vetoed_maps=MAPS[2:]),
        DuelPlayer("d", None, 1503),
        DuelPlayer("e", 1504, None),
        DuelPlayer("f", None, 1505),
    ]
    arrays = arrays_of(players, 100, OPTIMAL_DEFAULTS)
    # a-f, b-d, e-c: 25 + 1 + 9. Rating order pairs a-c, who share no map; around it the
    # cheapest legal pairing is a-d, b-c, e-f: 9 + 1 + 1.
    bw, sc2 = sorted_rematch(arrays, np.array([0, 1, 4]), np.array([5, 3, 2]))
    assert sorted(as_pairs(bw, sc2)) == [(0, 3), (1, 2), (4, 5)]


@settings(max_examples=80, deadline=None)
@given(duel_players(max_size=30), st.sampled_from(RULES), st.integers(0, 2**31))
def test_sorted_rematch_keeps_players_stays_legal_and_never_costs_more(
    players: list[DuelPlayer], rule: str, seed: int
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = arrays_of(players, 4 * len(players), config)
    bw, sc2 = some_matching(arrays, seed)
    new_bw, new_sc2 = sorted_rematch(arrays, bw, sc2)
    count, score = count_and_cost(arrays, as_pairs(new_bw, new_sc2))
    assert sorted(np.concatenate([new_bw, new_sc2]).tolist()) == sorted(
        np.concatenate([bw, sc2]).tolist()
    )
    assert count == len(bw)
    assert score <= total(arrays, bw, sc2)


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=24), st.sampled_from(RULES), st.integers(0, 2**31))
def test_every_add_and_swap_price_equals_a_rebuild(
    players: list[DuelPlayer], rule: str, seed: int
) -> None:
    """The O(1) prices against the moved sequences built and scored from scratch."""
    arrays, bw, sc2, waiting = random_wave_in_order(players, rule, seed)
    state = State(arrays, bw, sc2, waiting)
    prices = Prices(state)
    before = total(arrays, bw, sc2)
    sc2_ranks = np.sort(arrays.sc2[sc2])
    takers = np.array([y for y in waiting.tolist() if arrays.sc2[y] >= 0], dtype=np.int64)
    slots = np.searchsorted(sc2_ranks, arrays.sc2[takers], "left")
    givers = [x for x in waiting.tolist() if arrays.bw[x] >= 0]
    entries = [state.bw_slot(x) for x in givers]
    if givers:  # best_adds prices every giver at once: the same rows, one table
        table, table_ok = prices.add_table(
            np.array(givers, dtype=np.int64), np.array(entries, dtype=np.int64), takers, slots
        )
        assert table.shape == table_ok.shape == (len(givers), len(takers))
    for row, (x, p) in enumerate(zip(givers, entries, strict=True)):
        delta, ok = prices.add_prices(x, p, takers, slots)
        assert delta.tolist() == table[row].tolist() and ok.tolist() == table_ok[row].tolist()
        for y, q, d, fine in zip(takers.tolist(), slots.tolist(), delta, ok, strict=True):
            new_bw, new_sc2 = np.insert(bw, p, x), np.insert(sc2, q, y)
            squares = (arrays.bw[new_bw] - arrays.sc2[new_sc2]) ** 2
            assert d == squares.sum() - ((arrays.bw[bw] - arrays.sc2[sc2]) ** 2).sum()
            assert fine == bool(legal(arrays, new_bw, new_sc2).all())
    for side in ("bw", "sc2"):
        table = prices.swap_table(side)
        if table is None:
            assert prices._swap_prices(side) == []
            continue
        # Each waiting player's range-minimum pick is its row's best improving legal
        # swap in the table (the lowest replaced index on a tie).
        expected = []
        for row in range(len(table[0])):
            gains = np.flatnonzero(table[3][row] & (table[2][row] < 0))
            if len(gains):
                out = int(gains[np.argmin(table[2][row][gains])])
                y, slot = int(table[0][row]), int(table[1][row])
                expected.append((int(table[2][row, out]), side, y, out, slot))
        assert prices._swap_prices(side) == expected
        for row, (y, slot) in enumerate(zip(*table[:2], strict=True)):
            for out in range(len(bw)):
                moved = State(arrays, bw.copy(), sc2.copy(), waiting.copy())
                moved.swap(side, out, int(y), int(slot))
                assert table[2][row, out] == total(arrays, moved.bw, moved.sc2) - before
                assert table[3][row, out] == bool(legal(arrays, moved.bw, moved.sc2).all())


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=30), st.sampled_from(RULES), st.integers(0, 2**31))
def test_shifted_pairs_never_loses_a_pair_or_raises_the_score(
    players: list[DuelPlayer], rule: str, seed: int
) -> None:
    arrays, bw, sc2, waiting = random_wave_in_order(players, rule, seed)
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    population = 4 * len(players)
    out = shifted_pairs(arrays, bw, sc2, waiting)
    count, score = count_and_cost(arrays, as_pairs(out.bw, out.sc2))
    assert count == len(bw) + out.added
    assert (count, -score) >= (len(bw), -total(arrays, bw, sc2))
    if out.added == 0:
        assert score <= total(arrays, bw, sc2)
    assert count <= reference_optimum(players, population, MAPS, config)[0]
    again = shifted_pairs(arrays, bw, sc2, waiting)
    assert as_pairs(again.bw, again.sc2) == as_pairs(out.bw, out.sc2)


def test_shifted_pairs_adds_a_pair_through_the_players_between() -> None:
    """BW 1000 and SC2 1090 are 90 apart (window 75), but shifting the three pairs
    between them by one place matches both at 30 MMR a step."""
    players = [
        DuelPlayer("low", 1000, None),
        DuelPlayer("b1", 1030, None),
        DuelPlayer("b2", 1060, None),
        DuelPlayer("s1", None, 1030),
        DuelPlayer("s2", None, 1060),
        DuelPlayer("high", None, 1090),
    ]
    arrays = arrays_of(players, 10, OPTIMAL_DEFAULTS)  # high pressure: windows of 75
    assert not legal(arrays, np.array([0]), np.array([5]))[0]
    bw, sc2, waiting = in_rating_order(arrays, np.array([1, 2]), np.array([3, 4]))
    out = shifted_pairs(arrays, bw, sc2, waiting)
    assert out.added == 1
    assert sorted(as_pairs(out.bw, out.sc2)) == [(0, 3), (1, 4), (2, 5)]


@settings(max_examples=30, deadline=None)
@given(duel_players(max_size=22), st.sampled_from(RULES), st.integers(0, 200))
def test_mid_size_waves_are_proven_optimal(
    players: list[DuelPlayer], rule: str, population: int
) -> None:
    """Between the exact limit and the proof limit: the warm blossom with checked duals."""
    config = dataclasses.replace(
        OPTIMAL_DEFAULTS, window_rule=rule, optimal_exact_limit=1, optimal_proof_limit=400
    )
    outcome = optimal_pairs(players, population, MAPS, config)
    best = reference_optimum(players, population, MAPS, config)
    if len(players) > 1:
        assert outcome.exact
    arrays = arrays_of(players, population, config)
    assert count_and_cost(arrays, player_indices(players, outcome.pairs)) == best


def test_a_seeded_300_player_wave_is_proven_optimal() -> None:
    players = synthetic_players(300, seed=23)
    outcome = optimal_pairs(players, 1200, MAPS, OPTIMAL_DEFAULTS)
    assert outcome.exact
    arrays = arrays_of(players, 1200, OPTIMAL_DEFAULTS)
    pairs = player_indices(players, outcome.pairs)
    assert count_and_cost(arrays, pairs) == reference_optimum(players, 1200, MAPS, OPTIMAL_DEFAULTS)


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=30), st.sampled_from(RULES), st.integers(0, 4))
def test_aligned_edges_are_legal_unique_and_hold_the_quantile_partner(
    players: list[DuelPlayer], rule: str, reach: int
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = arrays_of(players, 4 * len(players), config)
    u, v = aligned_edges(arrays, reach)
    assert bool(legal(arrays, u, v).all())
    keys = (u * arrays.size + v).tolist()
    assert keys == sorted(set(keys))
    found = set(zip(u.tolist(), v.tolist(), strict=True))
    bo, so = arrays.bw_order, arrays.sc2_order
    if not len(so):
        assert not found
        return
    for i, a in enumerate(bo.tolist()):
        j = round(i * (len(so) - 1) / max(len(bo) - 1, 1))
        b = int(so[j])
        if legal(arrays, np.array([a]), np.array([b]))[0]:
            assert (a, b) in found


def test_the_warm_path_reaches_the_optimum_count_where_ratings_drift() -> None:
    """1,000 players of the worker benchmark's mix, seed 4: the optimum pairs 28 players
    5-12 places off the nearest ratings; the 6-nearest graph alone made 496 of 499 pairs."""
    players = worker_benchmark_mix(1000, seed=4)
    outcome = optimal_pairs(players, 1000, MAPS, OPTIMAL_DEFAULTS)
    arrays = arrays_of(players, 1000, OPTIMAL_DEFAULTS)
    proved = warm_pairs(arrays, 6, max_rounds=8, prove=True)
    assert proved is not None and proved.proven
    assert len(outcome.pairs) == len(proved.pairs) == 499
