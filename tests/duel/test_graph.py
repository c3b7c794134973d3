"""Helpers of the pair graph (:mod:`matcher.duel.graph`)."""

from __future__ import annotations

from random import Random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.graph import (
    Bools,
    DuelArrays,
    Ints,
    by_rating,
    cost,
    duel_arrays,
    legal,
    legal_table,
    undirected,
    unique_sorted,
)
from matcher.duel.model import DuelConfig, DuelPlayer, Window


@given(st.lists(st.integers(-(2**40), 2**40), max_size=200))
def test_unique_sorted_is_numpys_unique(values: list[int]) -> None:
    keys = np.array(values, dtype=np.int64)
    found = unique_sorted(keys)
    assert found.dtype == np.int64
    assert found.tolist() == np.unique(keys).tolist()


def _pointwise_legal(players: list[DuelPlayer], maps: tuple[str, ...], radius: int) -> Bools:
    """Who may play BW against whom, from the definition (window rule ``longer``)."""
    n = len(players)
    ok = np.zeros((n, n), dtype=bool)
    for i, bw in enumerate(players):
        for j, sc2 in enumerate(players):
            if i == j or bw.bw_mmr is None or sc2.sc2_mmr is None:
                continue
            free = set(maps) - set(bw.vetoed_maps) - set(sc2.vetoed_maps)
            ok[i, j] = abs(bw.bw_mmr - sc2.sc2_mmr) <= radius and bool(free)
    return ok


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from((1, 3, 64, 65, 130)))
def test_legal_follows_the_definition_for_every_map_count(
    data: st.DataObject, map_count: int
) -> None:
    # One word of vetoes per player up to 64 maps, more words beyond (graph._veto_masks).
    maps = tuple(f"m{i}" for i in range(map_count))
    players = []
    for i in range(data.draw(st.integers(2, 12))):
        bw = data.draw(st.none() | st.integers(1400, 1600))
        sc2 = (
            data.draw(st.integers(1400, 1600))
            if bw is None
            else data.draw(st.none() | st.integers(1400, 1600))
        )
        vetoes = data.draw(st.lists(st.sampled_from((*maps, "unknown")), max_size=map_count))
        # A list, not a tuple: callers outside the codec may pass one.
        players.append(DuelPlayer(f"p{i}", bw, sc2, vetoed_maps=vetoes))  # type: ignore[arg-type]
    arrays = duel_arrays(players, maps, Window(100, 0), DuelConfig(window_rule="longer"))
    u, v = np.divmod(np.arange(len(players) ** 2), len(players))
    found = legal(arrays, u, v).reshape(len(players), len(players))
    assert found.tolist() == _pointwise_legal(players, maps, 100).tolist()
    assert legal_table(arrays, np.arange(len(players))).tolist() == found.tolist()


@given(st.lists(st.integers(-1, 20), max_size=120), st.randoms(use_true_random=False))
def test_by_rating_is_the_lexsort_order(ratings: list[int], random: Random) -> None:
    # Few distinct ratings: most orders are decided by the player index.
    players = np.array(random.sample(range(200), len(ratings)), dtype=np.int64)
    keys = np.array(ratings, dtype=np.int64)
    expected = np.lexsort((players, keys)).tolist()
    assert by_rating(keys, players, 200).tolist() == expected


def _undirected_by_lexsort(arrays: DuelArrays, u: Ints, v: Ints) -> tuple[Ints, Ints, Ints]:
    """The definition: sort by (low, high, cost, BW player), keep each pair's first."""
    c = cost(arrays, u, v)
    low, high = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((u, c, high, low))
    low, high, u, v, c = low[order], high[order], u[order], v[order], c[order]
    first = np.ones(len(u), dtype=bool)
    first[1:] = (low[1:] != low[:-1]) | (high[1:] != high[:-1])
    return u[first], v[first], c[first]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1400, 1404), st.integers(1400, 1404)), min_size=2, max_size=9),
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8), st.booleans()), max_size=40),
    st.booleans(),
)
def test_undirected_keeps_the_cheaper_orientation_of_each_pair(
    ratings: list[tuple[int, int]], edges: list[tuple[int, int, bool]], repeats: bool
) -> None:
    # Close ratings, so the two orientations of a pair often cost the same; most pairs
    # come both ways; with ``repeats`` some directed edges come twice (the general path).
    players = [DuelPlayer(f"p{i}", bw, sc2) for i, (bw, sc2) in enumerate(ratings)]
    arrays = duel_arrays(players, ("m",), Window(100, 0), DuelConfig())
    kept = set()
    for a, b, both_ways in edges:
        a, b = a % len(players), b % len(players)
        kept |= {(a, b), (b, a)} if both_ways else {(a, b)}
    directed = sorted((a, b) for a, b in kept if a != b)
    if repeats:
        directed += directed[: len(directed) // 2]
    u = np.array([a for a, _ in directed], dtype=np.int64)
    v = np.array([b for _, b in directed], dtype=np.int64)
    found = undirected(arrays, u, v)
    expected = _undirected_by_lexsort(arrays, u, v)
    assert [x.tolist() for x in found] == [x.tolist() for x in expected]
