"""Side exchanges of two "both" players along the rating order (docs/adr/0067).

- every price :class:`matcher.duel.exchange.ShiftSums` computes from prefix sums equals
  the change found by building the two moved orders and scoring them from scratch,
  legality included;
- :func:`exchanged_pairs` keeps the same players and pair count, stays legal, never
  raises the score, and is deterministic;
- on a seeded wave the exchanges lower ``optimal``'s summed squared diff;
- an add whose shifted pairs need re-pairing (:func:`matcher.duel.rematch.repaired_add`)
  is one more legal pair of two waiting players.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.augment import shifted_pairs
from matcher.duel.exchange import ShiftSums, _candidates, exchanged_pairs
from matcher.duel.graph import DuelArrays, Ints, legal
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer
from matcher.duel.optimal import optimal_pairs
from matcher.duel.rematch import repaired_add
from tests.duel.reference import count_and_cost, reference_optimum
from tests.duel.test_properties import duel_players
from tests.duel.test_rating_order import (
    RULES,
    as_pairs,
    player_indices,
    random_wave_in_order,
    total,
)
from tests.duel.waves import MAPS, arrays_of, synthetic_players


def traded_sides(arrays: DuelArrays, bw: Ints, sc2: Ints) -> tuple[Ints, Ints]:
    """All (BW index, SC2 index) pairs of "both" players on the two sides."""
    both = (arrays.bw >= 0) & (arrays.sc2 >= 0)
    a, b = np.flatnonzero(both[bw]), np.flatnonzero(both[sc2])
    return np.repeat(a, len(b)), np.tile(b, len(a))


def rebuilt(bw: Ints, sc2: Ints, a: int, b: int, t: int, u: int) -> tuple[Ints, Ints]:
    """The two orders after the exchange, built directly."""
    p, q = int(bw[a]), int(sc2[b])
    return np.insert(np.delete(bw, a), t, q), np.insert(np.delete(sc2, b), u, p)


def squared(arrays: DuelArrays, bw: Ints, sc2: Ints) -> int:
    diff = arrays.bw[bw].astype(np.int64) - arrays.sc2[sc2]
    return int((diff * diff).sum())


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=26), st.sampled_from(RULES), st.integers(0, 2**31), st.booleans())
def test_every_exchange_price_equals_a_rebuild(
    players: list[DuelPlayer], rule: str, seed: int, packed: bool
) -> None:
    # ``packed``: squared diffs and illegal counts share one word of the prefix sums,
    # unless the squares are too large to (then, and here with False, two tables).
    arrays, bw, sc2, _ = random_wave_in_order(players, rule, seed)
    a, b = traded_sides(arrays, bw, sc2)
    if not len(a):
        return
    delta, illegal, t, u = ShiftSums(arrays, bw, sc2, packed).price(a, b)
    before = squared(arrays, bw, sc2)
    for k in range(len(a)):
        new_bw, new_sc2 = rebuilt(bw, sc2, int(a[k]), int(b[k]), int(t[k]), int(u[k]))
        assert delta[k] == squared(arrays, new_bw, new_sc2) - before
        assert illegal[k] == int((~legal(arrays, new_bw, new_sc2)).sum())
        # The entering BW rating lands where it keeps the BW order sorted.
        assert bool(np.all(np.diff(arrays.bw[new_bw]) >= 0))


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=30), st.sampled_from(RULES), st.integers(0, 2**31))
def test_exchanged_pairs_keeps_players_and_count_stays_legal_and_never_costs_more(
    players: list[DuelPlayer], rule: str, seed: int
) -> None:
    arrays, bw, sc2, _ = random_wave_in_order(players, rule, seed)
    out = exchanged_pairs(arrays, bw, sc2, 8)
    assert sorted(np.concatenate([out.bw, out.sc2]).tolist()) == sorted(
        np.concatenate([bw, sc2]).tolist()
    )
    assert bool(legal(arrays, out.bw, out.sc2).all())
    assert total(arrays, out.bw, out.sc2) <= total(arrays, bw, sc2)
    if out.exchanges:
        assert squared(arrays, out.bw, out.sc2) < squared(arrays, bw, sc2)
    else:
        assert as_pairs(out.bw, out.sc2) == as_pairs(bw, sc2)
    again = exchanged_pairs(arrays, bw, sc2, 8)
    assert as_pairs(again.bw, again.sc2) == as_pairs(out.bw, out.sc2)
    unchanged = exchanged_pairs(arrays, bw, sc2, 0)
    assert unchanged.exchanges == 0
    assert as_pairs(unchanged.bw, unchanged.sc2) == as_pairs(bw, sc2)


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=30), st.integers(0, 2**31))
def test_candidates_are_unique_pairs_of_both_players_on_the_two_sides(
    players: list[DuelPlayer], seed: int
) -> None:
    arrays, bw, sc2, _ = random_wave_in_order(players, "longer", seed)
    if len(bw) < 2:
        return
    a, b = _candidates(arrays, ShiftSums(arrays, bw, sc2))
    both = (arrays.bw >= 0) & (arrays.sc2 >= 0)
    assert bool(both[bw[a]].all()) and bool(both[sc2[b]].all())
    keys = list(zip(a.tolist(), b.tolist(), strict=True))
    assert len(keys) == len(set(keys))


def test_an_exchange_fixes_what_no_re_pairing_of_the_same_sides_can() -> None:
    """BW 1500 (p) and 1700 against SC2 1500 (q) and 1600: sorted already, 0 + 10,000.
    With p on SC2 (1700) and q on BW (1650): 1650-1600 and 1700-1700, 2,500 + 0, which
    is the optimum."""
    players = [
        DuelPlayer("p", 1500, 1700),
        DuelPlayer("c", 1700, None),
        DuelPlayer("q", 1650, 1500),
        DuelPlayer("d", None, 1600),
    ]
    arrays = arrays_of(players, 100, OPTIMAL_DEFAULTS)  # low pressure: windows of 125
    out = exchanged_pairs(arrays, np.array([0, 1]), np.array([2, 3]), 4)
    assert (out.bw.tolist(), out.sc2.tolist(), out.exchanges) == ([2, 1], [3, 0], 1)
    best = reference_optimum(players, 100, MAPS, OPTIMAL_DEFAULTS)
    assert count_and_cost(arrays, as_pairs(out.bw, out.sc2)) == best


def test_exchanges_lower_the_squared_diff_of_a_seeded_large_wave() -> None:
    """2,500 players (the rating-order path): with the exchange budget the summed
    squared diff drops and no pair is lost."""
    players = synthetic_players(2500, seed=5)
    off = dataclasses.replace(OPTIMAL_DEFAULTS, optimal_exchange_budget=0)
    before = optimal_pairs(players, 10_000, MAPS, off)
    after = optimal_pairs(players, 10_000, MAPS, OPTIMAL_DEFAULTS)
    arrays = arrays_of(players, 10_000, OPTIMAL_DEFAULTS)
    pairs = player_indices(players, after.pairs)
    bw, sc2 = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])
    assert bool(legal(arrays, bw, sc2).all())
    assert len(after.pairs) >= len(before.pairs)
    assert sum(p.diff**2 for p in after.pairs) < sum(p.diff**2 for p in before.pairs)


def test_a_repaired_add_matches_two_waiting_players_across_a_vetoed_shifted_pair() -> None:
    """Waiting BW 990 and SC2 1020 fit in by shifting the two pairs between one place,
    but BW 1000 and SC2 1010 share no map. The add-and-swap moves cannot price that add;
    re-pairing the shifted stretch around the vetoed pair makes it legal."""
    players = [
        DuelPlayer("b1", 1000, None, vetoed_maps=MAPS[:2]),
        DuelPlayer("b2", 1010, None),
        DuelPlayer("s1", None, 1000),
        DuelPlayer("s2", None, 1010, vetoed_maps=MAPS[2:]),
        DuelPlayer("x", 990, None),
        DuelPlayer("y", None, 1020),
    ]
    arrays = arrays_of(players, 100, OPTIMAL_DEFAULTS)
    bw, sc2, waiting = np.array([0, 1]), np.array([2, 3]), np.array([4, 5])
    assert shifted_pairs(arrays, bw, sc2, waiting).added == 0
    grown = repaired_add(arrays, bw, sc2, waiting, tries=4)
    assert grown is not None
    assert bool(legal(arrays, *grown).all())
    assert sorted(np.concatenate(grown).tolist()) == [0, 1, 2, 3, 4, 5]


@settings(max_examples=60, deadline=None)
@given(duel_players(max_size=30), st.sampled_from(RULES), st.integers(0, 2**31))
def test_a_repaired_add_is_one_more_legal_pair_of_waiting_players(
    players: list[DuelPlayer], rule: str, seed: int
) -> None:
    arrays, bw, sc2, waiting = random_wave_in_order(players, rule, seed)
    grown = repaired_add(arrays, bw, sc2, waiting, tries=4)
    if grown is None:
        return
    new_bw, new_sc2 = grown
    assert len(new_bw) == len(bw) + 1
    assert bool(legal(arrays, new_bw, new_sc2).all())
    before = set(np.concatenate([bw, sc2]).tolist())
    after = np.concatenate([new_bw, new_sc2]).tolist()
    assert len(after) == len(set(after))
    new = set(after) - before
    assert len(new) == 2 and new <= set(waiting.tolist()) and before <= set(after)
