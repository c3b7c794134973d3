"""The wait estimator (median residual wait) and the simulator's measure of its error."""

from __future__ import annotations

import doctest
import json

import pytest

import matcher.queue.estimate as estimate
from matcher.core import Player, Ticket
from matcher.queue.estimate import WaitEstimator
from matcher.sim.engine import EstimateRecord, run_variant
from matcher.sim.metrics import estimate_error
from tests.sim.test_engine import _hand_made


def ticket(rating: int, name: str = "t") -> Ticket:
    return Ticket(name, "q", "eu", (Player(f"{name}.p", (("any", rating),)),), 0)


def test_doctests() -> None:
    outcome = doctest.testmod(estimate)
    assert outcome.failed == 0 and outcome.attempted > 0


def test_no_estimate_before_any_match() -> None:
    estimator = WaitEstimator()
    assert estimator.remaining_waves(ticket(1500), 0) is None
    estimator.observe_wave([])
    assert estimator.remaining_waves(ticket(1500), 0) is None


def test_median_residual_for_long_waiters() -> None:
    estimator = WaitEstimator()
    # Band 7 (1400-1599): most match at once, a few after 6 waves.
    estimator.observe_wave([(ticket(1500), 1)] * 5 + [(ticket(1500), 6)] * 2)
    assert estimator.remaining_waves(ticket(1500), 0) == 1
    assert estimator.remaining_waves(ticket(1500), 1) == 5  # only the 6-wave ones outlasted 1
    assert estimator.remaining_waves(ticket(1500), 4) == 2
    # Beyond every realised wait: one more wave, not a negative or zero one.
    assert estimator.remaining_waves(ticket(1500), 9) == 1


def test_falls_back_to_all_bands() -> None:
    estimator = WaitEstimator()
    estimator.observe_wave([(ticket(1500), 3), (ticket(2500), 8)])
    assert estimator.remaining_waves(ticket(100), 0) == 3  # lower median of {3, 8}
    assert estimator.remaining_waves(ticket(1500), 4) == 4  # band 7 has no wait > 4: 8 - 4


def test_cache_is_dropped_by_a_new_wave() -> None:
    estimator = WaitEstimator()
    estimator.observe_wave([(ticket(1500), 2)])
    assert estimator.remaining_waves(ticket(1500), 0) == 2
    estimator.observe_wave([(ticket(1500), 9)] * 3)
    assert estimator.remaining_waves(ticket(1500), 0) == 9


def test_window_forgets_old_waves() -> None:
    estimator = WaitEstimator()
    estimator.observe_wave([(ticket(1500), 9)])
    for _ in range(estimate.WINDOW_WAVES):
        estimator.observe_wave([(ticket(1500), 1)])
    assert estimator.remaining_waves(ticket(1500), 1) == 1  # the 9 fell out of the window


def test_record_round_trip_and_version_1() -> None:
    estimator = WaitEstimator()
    estimator.observe_wave([(ticket(1500), 1), (ticket(1500), 3), (ticket(300), 2)])
    estimator.observe_wave([])
    record = json.loads(json.dumps(estimator.to_record()))
    restored = WaitEstimator.from_record(record)
    assert restored.to_record() == record
    assert restored.remaining_waves(ticket(1500), 1) == estimator.remaining_waves(ticket(1500), 1)
    # Version 1: band 7 had two waits summing to 7 -> two at the rounded mean, 4.
    old = WaitEstimator.from_record([[[7, 7, 2], [1, 2, 1]], []])
    assert old.to_record()["waves"] == [[[1, 2, 1], [7, 4, 2]], []]
    with pytest.raises(ValueError, match="version"):
        WaitEstimator.from_record({"version": 9, "waves": []})


def test_estimate_error_figures() -> None:
    records = [
        EstimateRecord("eu", 0, e, r)
        for e, r in [(10_000, 10_000), (20_000, 10_000), (0, 30_000), (5_000, 10_000)]
    ]
    error = estimate_error(records)
    assert error == {"count": 4, "mae_s": 11.25, "p90_s": 30.0, "bias_s": -6.25}


def test_simulator_pairs_each_estimate_with_the_wait_that_followed() -> None:
    scenario, sessions = _hand_made()
    run = run_variant(scenario, scenario.variants[0], sessions, seed=1)
    # No estimate exists before the first match (10 s); c joins at 12 s and is told the next
    # wave (20 s): 8 s, and c is matched at 20 s. Every record is (told, then waited).
    assert run.estimates[0] == EstimateRecord("eu", 12_000, 8_000, 8_000)
    assert all(r.realised_ms >= 0 and r.estimated_ms >= 0 for r in run.estimates)
    assert {r.at_ms for r in run.estimates} >= {12_000, 19_000, 25_000}
