"""Adds through a pair whose players change partners (:mod:`matcher.duel.flips`).

- waiting players who all play one side are matched through a "both" player changing
  side, which the rating-order adds cannot do;
- the result keeps every matched player, adds only waiting ones, and stays legal;
- no three-edge augmenting path is left, and each move is the cheapest one (checked
  against a brute force over every pair and every two waiting players).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.augment import shifted_pairs
from matcher.duel.flips import _NONE, _oriented, _Tables, flipped_adds
from matcher.duel.graph import DuelArrays, Ints, cost, legal
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer
from matcher.duel.rematch import repaired_add
from tests.duel.test_properties import duel_players
from tests.duel.test_rating_order import RULES, random_wave_in_order
from tests.duel.waves import arrays_of


def pair_prices(arrays: DuelArrays) -> Ints:
    """``[a, b]``: the cheaper legal side choice of players a and b (``_NONE`` if none)."""
    n = arrays.size
    u, v = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    one_way = np.where(legal(arrays, u, v), cost(arrays, u, v), _NONE).reshape(n, n)
    both_ways: Ints = np.minimum(one_way, one_way.T)
    return both_ways


def brute_force_moves(
    arrays: DuelArrays, bw: Ints, sc2: Ints, waiting: Ints
) -> list[tuple[int, int, int, int]]:
    """Every legal path f - y = x - g as (cost change, pair, f, g), by plain loops."""
    price = pair_prices(arrays)
    moves = []
    for pair, (b, s) in enumerate(zip(bw.tolist(), sc2.tolist(), strict=True)):
        old = int(cost(arrays, np.array([b]), np.array([s]))[0])
        for y, x in ((b, s), (s, b)):
            for f in waiting.tolist():
                for g in waiting.tolist():
                    if f != g and price[f, y] < _NONE and price[x, g] < _NONE:
                        moves.append((int(price[f, y] + price[x, g]) - old, pair, f, g))
    return moves


def test_two_waiting_sc2_players_are_matched_through_a_both_player_changing_side() -> None:
    """SC2-only f (1500) and g (1550) wait; "y" plays SC2 (1540) against BW-only x (1545).
    As BW (1500) "y" fits f, and x fits g: one more pair, which no add of a waiting BW
    player to a waiting SC2 player can reach (there is no waiting BW player)."""
    players = [
        DuelPlayer("y", 1500, 1540),
        DuelPlayer("x", 1545, None),
        DuelPlayer("f", None, 1500),
        DuelPlayer("g", None, 1550),
    ]
    arrays = arrays_of(players, 100, OPTIMAL_DEFAULTS)
    bw, sc2, waiting = np.array([1]), np.array([0]), np.array([2, 3])
    assert shifted_pairs(arrays, bw, sc2, waiting).added == 0
    assert repaired_add(arrays, bw, sc2, waiting, tries=4) is None
    grown = flipped_adds(arrays, bw, sc2, waiting)
    assert grown.added == 1
    assert sorted(zip(grown.bw.tolist(), grown.sc2.tolist(), strict=True)) == [(0, 2), (1, 3)]


def test_nothing_is_added_when_no_pair_can_carry_a_path() -> None:
    players = [
        DuelPlayer("x", 1500, None),
        DuelPlayer("y", None, 1500),
        DuelPlayer("f", None, 1900),
        DuelPlayer("g", None, 1100),
    ]
    arrays = arrays_of(players, 100, OPTIMAL_DEFAULTS)
    grown = flipped_adds(arrays, np.array([0]), np.array([1]), np.array([2, 3]))
    assert grown.added == 0
    assert (grown.bw.tolist(), grown.sc2.tolist()) == ([0], [1])


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=30), st.sampled_from(RULES), st.integers(0, 2**31))
def test_flipped_adds_keep_every_matched_player_add_waiting_ones_and_stay_legal(
    players: list[DuelPlayer], rule: str, seed: int
) -> None:
    arrays, bw, sc2, waiting = random_wave_in_order(players, rule, seed)
    grown = flipped_adds(arrays, bw, sc2, waiting)
    assert len(grown.bw) == len(grown.sc2) == len(bw) + grown.added
    assert bool(legal(arrays, grown.bw, grown.sc2).all())
    after = np.concatenate([grown.bw, grown.sc2]).tolist()
    assert len(after) == len(set(after))
    before = set(np.concatenate([bw, sc2]).tolist())
    assert before <= set(after)
    assert set(after) - before <= set(waiting.tolist())
    # Finished: no path through one pair is left.
    left = np.setdiff1d(waiting, np.array(after, dtype=np.int64))
    assert not brute_force_moves(arrays, grown.bw, grown.sc2, left)


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=30), st.sampled_from(RULES), st.integers(0, 2**31))
def test_each_move_is_the_cheapest_path_through_one_pair(
    players: list[DuelPlayer], rule: str, seed: int
) -> None:
    arrays, bw, sc2, _ = random_wave_in_order(players, rule, seed)
    # Every other pair dropped: more waiting players, so many paths to choose among.
    bw, sc2 = bw[::2], sc2[::2]
    waiting = np.setdiff1d(np.arange(arrays.size), np.concatenate([bw, sc2]))
    moves = brute_force_moves(arrays, bw, sc2, waiting)
    if len(waiting) < 2:
        return
    tables = _Tables(arrays, bw, sc2, waiting)
    move = tables.cheapest_move()
    assert (move is None) == (not moves)
    if move is None:
        return
    pair, f_row, g_row, f_takes_bw_player = move
    y, x = (bw[pair], sc2[pair]) if f_takes_bw_player else (sc2[pair], bw[pair])
    price = pair_prices(arrays)
    f, g = int(waiting[f_row]), int(waiting[g_row])
    old = int(cost(arrays, bw[pair : pair + 1], sc2[pair : pair + 1])[0])
    assert int(price[f, y] + price[x, g]) - old == min(moves)[0]


def test_a_tied_pair_plays_the_lower_index_as_bw_whichever_comes_first() -> None:
    # Either side choice costs 0 here; graph.undirected and symmetric._oriented let the
    # lower player index play BW, and so must the pairs a flip makes.
    players = [DuelPlayer("a", 1500, 1510), DuelPlayer("b", 1510, 1500)]
    arrays = arrays_of(players, 8, OPTIMAL_DEFAULTS)
    assert _oriented(arrays, 1, 0) == (0, 1)
    assert _oriented(arrays, 0, 1) == (0, 1)
    one_way = [DuelPlayer("a", None, 1510), DuelPlayer("b", 1510, 1500)]
    assert _oriented(arrays_of(one_way, 8, OPTIMAL_DEFAULTS), 0, 1) == (1, 0)  # only legal way
