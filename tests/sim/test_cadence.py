"""The adaptive wave interval policy (matcher/queue/cadence.py)."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matcher.queue import cadence
from matcher.queue.cadence import CadencePolicy, next_interval_ms, update_arrival_rate

POP = CadencePolicy(mode="pop", target_matches=2.5, floor_ms=5_000, cap_ms=90_000)


def test_doctests() -> None:
    outcome = doctest.testmod(cadence)
    assert outcome.failed == 0 and outcome.attempted > 0


def test_fixed_ignores_the_arrival_rate() -> None:
    fixed = CadencePolicy(interval_ms=12_345)
    assert {next_interval_ms(fixed, rate, 2) for rate in (0.0, 0.1, 10.0, 1e9)} == {12_345}


def test_pop_aims_at_target_matches() -> None:
    # 2.5 matches of 6 players = 15 players; at 0.5 players/s that is 30 s.
    assert next_interval_ms(POP, 0.5, 6) == 30_000
    assert next_interval_ms(POP, 1.0, 6) == 15_000


def test_pop_clamps_to_floor_and_cap() -> None:
    assert next_interval_ms(POP, 0.0, 2) == 90_000
    assert next_interval_ms(POP, float("nan"), 2) == 90_000
    assert next_interval_ms(POP, 0.001, 2) == 90_000
    assert next_interval_ms(POP, 1_000.0, 2) == 5_000
    assert next_interval_ms(POP, float("inf"), 2) == 5_000


@given(
    st.floats(min_value=0.0, max_value=1e6),
    st.floats(min_value=0.0, max_value=1e6),
    st.integers(1, 20),
)
def test_pop_is_bounded_and_monotone(rate_a: float, rate_b: float, players: int) -> None:
    low, high = sorted((rate_a, rate_b))
    slow, fast = next_interval_ms(POP, low, players), next_interval_ms(POP, high, players)
    assert POP.floor_ms <= fast <= slow <= POP.cap_ms


def test_moving_average() -> None:
    policy = CadencePolicy(mode="pop", smoothing=0.25)
    rate = update_arrival_rate(policy, None, 20, 10_000)
    assert rate == 2.0
    rate = update_arrival_rate(policy, rate, 60, 10_000)
    assert rate == pytest.approx(0.25 * 6.0 + 0.75 * 2.0)
    assert update_arrival_rate(policy, rate, 5, 0) == rate
    assert update_arrival_rate(policy, None, 5, 0) == 0.0


@pytest.mark.parametrize(
    ("field", "kwargs"),
    [
        ("mode", {"mode": "sometimes"}),
        ("interval_ms", {"interval_ms": 0}),
        ("target_matches", {"target_matches": 0}),
        ("floor_ms", {"floor_ms": -1}),
        ("cap_ms", {"floor_ms": 10_000, "cap_ms": 5_000}),
        ("smoothing", {"smoothing": 0.0}),
    ],
)
def test_invalid_policy_names_the_field(field: str, kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        CadencePolicy(**kwargs)  # type: ignore[arg-type]


def test_players_per_match_must_be_positive() -> None:
    with pytest.raises(ValueError, match="players_per_match"):
        next_interval_ms(POP, 1.0, 0)
