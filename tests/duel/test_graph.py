"""Helpers of the pair graph (:mod:`matcher.duel.graph`)."""

from __future__ import annotations

from random import Random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.graph import Bools, by_rating, duel_arrays, legal, legal_table, unique_sorted
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
