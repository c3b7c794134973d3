"""The banded path of ``optimal`` (large waves) against the exact optimum, and its tables."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.bands import band_pairs
from matcher.duel.checks import duel_result_problems
from matcher.duel.graph import cost, cost_table, duel_arrays, legal, legal_table
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer, Window
from matcher.duel.optimal import optimal_pairs
from matcher.strategies import get_strategy
from tests.duel.reference import count_and_cost, reference_optimum, score_of
from tests.duel.test_properties import duel_players, waves
from tests.duel.waves import MAPS, profile_of, snapshot_of, synthetic_players

RULES = ("lead", "longer", "shorter")


@settings(max_examples=60, deadline=None)
@given(duel_players(), st.sampled_from(RULES), st.integers(0, 3))
def test_tables_agree_with_the_edge_functions(
    players: list[DuelPlayer], rule: str, growth: int
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = duel_arrays(players, MAPS, Window(60, 10 * growth), config)
    members = np.arange(arrays.size, dtype=np.int64)[::-1].copy()
    p = len(members)
    u, v = np.repeat(members, p), np.tile(members, p)
    assert legal_table(arrays, members).ravel().tolist() == legal(arrays, u, v).tolist()
    assert cost_table(arrays, members).ravel().tolist() == cost(arrays, u, v).tolist()


@settings(max_examples=60, deadline=None)
@given(waves, st.integers(1, 6), st.integers(1, 6))
def test_banded_path_passes_the_checker_for_any_band(
    wave: tuple[list[DuelPlayer], int, int, str], band: int, ahead: int
) -> None:
    """Tiny bands stress the stitching: carried players, held odd cycles, rounding."""
    players, seed, population, rule = wave
    snapshot = snapshot_of(players, seed=seed, active_population=population)
    options = {
        "window_rule": rule,
        "optimal_exact_limit": 1,
        "optimal_proof_limit": 0,
        "optimal_whole_limit": 0,
        "optimal_warm_limit": 0,
        "optimal_relax_cap": 0,
        "optimal_band": band,
        "optimal_ahead": ahead,
    }
    profile = profile_of("optimal", **options)
    result = get_strategy("optimal")(snapshot, profile)
    assert duel_result_problems(snapshot, profile, result) == []
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    best, _ = reference_optimum(players, population, MAPS, config)
    assert len(result.matches) <= best


# Empirical, not a theorem (stitching can lose pairs, e.g. 3 of 5 with band = ahead = 1):
# a fixed set of examples, so that CI checks the same waves every run.
@settings(max_examples=80, deadline=None, derandomize=True)
@given(waves)
def test_small_bands_stay_within_one_pair_of_the_optimum_count(
    wave: tuple[list[DuelPlayer], int, int, str],
) -> None:
    players, _, population, rule = wave
    config = dataclasses.replace(
        OPTIMAL_DEFAULTS,
        window_rule=rule,
        optimal_exact_limit=1,
        optimal_proof_limit=0,
        optimal_whole_limit=0,
        optimal_warm_limit=0,
        optimal_relax_cap=0,
        optimal_band=8,
        optimal_ahead=8,
    )
    outcome = optimal_pairs(players, population, MAPS, config)
    best, _ = reference_optimum(players, population, MAPS, config)
    assert len(outcome.pairs) >= best - 1


@settings(max_examples=40, deadline=None, derandomize=True)
@given(waves)
def test_one_wide_band_is_within_one_pair_of_the_optimum(
    wave: tuple[list[DuelPlayer], int, int, str],
) -> None:
    """Up to ``optimal_whole_limit`` players the wave is one band: one relaxation on every
    legal pair, odd cycles group-rounded. Rounding is not proven optimal (hypothesis
    found a wave one pair short), so the bound checked is one pair; equal counts and no
    odd cycle mean the relaxation was integral, hence the optimum's cost."""
    players, _, population, rule = wave
    config = dataclasses.replace(
        OPTIMAL_DEFAULTS,
        window_rule=rule,
        optimal_exact_limit=1,
        optimal_proof_limit=0,
        optimal_branch_solves=0,
    )
    outcome = optimal_pairs(players, population, MAPS, config)
    best, best_score = reference_optimum(players, population, MAPS, config)
    assert len(outcome.pairs) >= best - 1
    assert outcome.band_steps == (1 if len(players) > 1 else 0)  # 1 player: exact path
    if outcome.odd_cycles == 0 and len(outcome.pairs) == best:
        assert score_of(outcome.pairs, config) == best_score


def test_banded_path_on_a_seeded_wave_keeps_the_issue_quality_targets() -> None:
    """n = 400: >= 99.5% of the optimum's pairs; the cost ratio is reported by the benchmark."""
    players = synthetic_players(400, seed=11)
    config = dataclasses.replace(
        OPTIMAL_DEFAULTS,
        optimal_exact_limit=1,
        optimal_proof_limit=0,
        optimal_whole_limit=0,
        optimal_warm_limit=0,
        optimal_relax_cap=0,
    )
    outcome = optimal_pairs(players, 1600, MAPS, config)
    best, _ = reference_optimum(players, 1600, MAPS, config)
    assert len(outcome.pairs) >= 0.995 * best
    assert outcome.band_steps > 1 and not outcome.exact


def test_band_pairs_is_deterministic_and_sorted() -> None:
    players = synthetic_players(300, seed=5)
    arrays = duel_arrays(players, MAPS, Window(75, 25), OPTIMAL_DEFAULTS)
    first, second = band_pairs(arrays, 8, 8), band_pairs(arrays, 8, 8)
    assert first == second
    assert list(first.pairs) == sorted(first.pairs)
    used = [x for pair in first.pairs for x in pair]
    assert len(used) == len(set(used))


@settings(max_examples=40, deadline=None)
@given(duel_players(max_size=30), st.sampled_from(RULES), st.integers(1, 4))
def test_polishing_never_makes_the_matching_worse(
    players: list[DuelPlayer], rule: str, band: int
) -> None:
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = duel_arrays(players, MAPS, Window(75, 25), config)
    rough = band_pairs(arrays, band, band, polish=False)
    polished = band_pairs(arrays, band, band)
    assert rough.steps == polished.steps

    def value(pairs: tuple[tuple[int, int], ...]) -> tuple[int, int]:
        count, summed = count_and_cost(arrays, pairs)  # asserts legal, nobody twice
        return -count, summed

    assert value(polished.pairs) <= value(rough.pairs)
    assert (value(polished.pairs) < value(rough.pairs)) == (polished.polished > 0)
