"""``optimal`` under a latency limit above ``EVERY_PATH_LIMIT`` players (ADR 0217): the
usual large-tier steps, not the search of every augmenting path, and still a legal,
maximal result with a true bound on the pairs.

The limit is lowered so that the oracle's waves of 150 players lie above it; below it the
same waves get the most pairs (tests/oracle/test_refusing_rules_oracle.py)."""

from __future__ import annotations

import pytest

import matcher.duel.large_complete as large_complete
from matcher.core import QueueProfile
from matcher.duel.checks import duel_result_problems
from matcher.strategies import run_wave
from tests.oracle.test_refusing_rules_oracle import RULES, optimum, wave


@pytest.mark.parametrize("blocking", [False, True], ids=["latency", "latency+blocks"])
@pytest.mark.parametrize("name", ["tied", "all_equal", "bimodal"])
def test_a_wave_above_the_limit_takes_the_usual_steps(
    name: str, blocking: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(large_complete, "EVERY_PATH_LIMIT", 100)

    def every_path(*args: object) -> None:
        raise AssertionError("every augmenting path searched above EVERY_PATH_LIMIT")

    monkeypatch.setattr(large_complete, "augment_to_maximum", every_path)
    monkeypatch.setattr(large_complete, "_most_pairs_then_cheapest", every_path)
    rules = dict(RULES, block_lists=True) if blocking else RULES
    profile = QueueProfile(
        "1v1", "optimal", ("m",), rules=rules, options={"optimal_exact_limit": 20}
    )
    snapshot = wave(name, 150, 1, blocking)
    result = run_wave(snapshot, profile)
    assert duel_result_problems(snapshot, profile, result) == []  # legal and maximal
    most, _ = optimum(snapshot)
    assert result.stat("max_pairs_bound") >= most >= len(result.matches) > 0


def test_a_wave_at_the_limit_gets_the_most_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(large_complete, "EVERY_PATH_LIMIT", 150)
    profile = QueueProfile(
        "1v1", "optimal", ("m",), rules=RULES, options={"optimal_exact_limit": 20}
    )
    snapshot = wave("tied", 150, 1, False)
    result = run_wave(snapshot, profile)
    most, _ = optimum(snapshot)
    assert len(result.matches) == most == result.stat("max_pairs_bound")
