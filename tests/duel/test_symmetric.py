"""The symmetric-assignment path of ``optimal`` (small waves) against networkx."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.graph import DuelArrays, duel_arrays
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer, Window
from matcher.duel.optimal import optimal_pairs
from matcher.duel.symmetric import symmetric_pairs
from tests.duel.reference import count_and_cost, reference_optimum, score_of
from tests.duel.test_properties import duel_players
from tests.duel.waves import MAPS, arrays_of, synthetic_players

RULES = ("lead", "longer", "shorter")


def _arrays(players: list[DuelPlayer], population: int, rule: str) -> DuelArrays:
    return arrays_of(players, population, dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule))


@settings(max_examples=300, deadline=None)
@given(duel_players(max_size=26), st.integers(0, 200), st.sampled_from(RULES))
def test_integral_relaxation_equals_the_networkx_optimum(
    players: list[DuelPlayer], population: int, rule: str
) -> None:
    """Same match count and same summed score whenever the path claims a proof."""
    arrays = _arrays(players, population, rule)
    outcome = symmetric_pairs(arrays)
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    best = reference_optimum(players, population, MAPS, config)
    if outcome.pairs is None:
        assert outcome.odd_cycles > 0 and outcome.solves > 1
        return
    assert (outcome.solves <= 1 and not outcome.blossom) == (outcome.odd_cycles == 0)
    assert count_and_cost(arrays, outcome.pairs) == best


def test_benchmark_waves_take_the_fast_path_and_match_networkx() -> None:
    """On the product's distribution the first assignment is integral on about half
    of these waves (the dummies of odd components help); each proof is checked."""
    proven = 0
    for seed in range(30):
        players = synthetic_players(30 + seed, seed)
        arrays = _arrays(players, 4 * len(players), "longer")
        outcome = symmetric_pairs(arrays)
        if outcome.pairs is None:
            continue
        proven += 1
        config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule="longer")
        best = reference_optimum(players, 4 * len(players), MAPS, config)
        assert count_and_cost(arrays, outcome.pairs) == best
    assert proven >= 15  # 16 of 30 when written; the rest branch or fall back


def test_odd_component_gets_a_dummy_and_stays_integral() -> None:
    """Three mutually legal players: without a dummy the relaxation is a 3-cycle."""
    players = [
        DuelPlayer("a", 1500, 1500),
        DuelPlayer("b", 1510, 1510),
        DuelPlayer("c", 1520, 1520),
    ]
    arrays = duel_arrays(players, ("m",), Window(75, 25), OPTIMAL_DEFAULTS)
    outcome = symmetric_pairs(arrays)
    assert outcome.dummies == 1 and outcome.odd_cycles == 0 and outcome.solves == 1
    assert outcome.pairs is not None and len(outcome.pairs) == 1


def test_fractional_waves_branch_or_fall_back_and_stay_exact() -> None:
    """Waves whose first assignment has odd cycles: branch and bound proves some; with
    one solve allowed every one of them goes to the blossom; both equal networkx."""
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule="longer")
    branched = fallen = 0
    for seed in range(12):
        players = synthetic_players(30, 100 + seed)
        arrays = _arrays(players, 120, "longer")
        first = symmetric_pairs(arrays, max_solves=1, blossom_step=False)
        if first.odd_cycles == 0:
            continue
        assert first.pairs is None
        fallen += 1
        best = reference_optimum(players, 120, MAPS, config)
        searched = symmetric_pairs(arrays)
        if searched.pairs is not None:
            branched += 1
            assert searched.solves > 1 and count_and_cost(arrays, searched.pairs) == best
        exact = optimal_pairs(players, 120, MAPS, config)
        assert exact.exact and exact.odd_cycles == first.odd_cycles
        assert (len(exact.pairs), score_of(exact.pairs, config)) == best
    assert fallen >= 3 and branched >= 1


def test_output_is_deterministic() -> None:
    players = synthetic_players(120, 5)
    arrays = _arrays(players, 480, "longer")
    assert symmetric_pairs(arrays) == symmetric_pairs(_arrays(list(players), 480, "longer"))
