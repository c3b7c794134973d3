"""Property tests: any wave, any team size, any seed and budget -> a valid, reproducible result."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import WaveSnapshot
from matcher.multifactor.checks import multifactor_result_problems
from matcher.multifactor.strategy import multifactor_strategy
from tests.multifactor.conftest import profile, random_wave

budgets = st.integers(1, 3_000)


@st.composite
def sized_waves(draw: st.DrawFn) -> tuple[int, WaveSnapshot]:
    """A team size and a wave whose parties fit it."""
    team_size = draw(st.sampled_from((1, 2, 3, 3, 4)))
    wave = random_wave(
        draw(st.integers(0, 10_000)),
        draw(st.integers(0, 40)),
        team_size=team_size,
        parties=draw(st.booleans()),
        history=draw(st.booleans()),
    )
    return team_size, wave


waves = sized_waves()
weights = st.sampled_from((0.0, 0.5, 1.0, 3.0))


@settings(max_examples=60, deadline=None)
@given(sized=waves, budget=budgets, kicks=st.sampled_from((0, 3)))
def test_every_result_passes_the_checker(
    sized: tuple[int, WaveSnapshot], budget: int, kicks: int
) -> None:
    team_size, wave = sized
    queue = profile(team_size, budget_evaluations=budget, restart_kicks=kicks)
    result = multifactor_strategy(wave, queue)
    assert multifactor_result_problems(wave, queue, result) == []
    stats = dict(result.stats)
    assert stats["score"] >= stats["start_score"]


@settings(max_examples=30, deadline=None)
@given(sized=waves, budget=budgets)
def test_same_input_same_output(sized: tuple[int, WaveSnapshot], budget: int) -> None:
    team_size, wave = sized
    queue = profile(team_size, budget_evaluations=budget)
    assert multifactor_strategy(wave, queue) == multifactor_strategy(wave, queue)


@settings(max_examples=30, deadline=None)
@given(
    sized=waves,
    team_skill=weights,
    ping=weights,
    variation=weights,
    hosts=weights,
    emphasis=st.sampled_from((0.0, 1.0, 4.0)),
)
def test_any_weights_give_a_valid_result(
    sized: tuple[int, WaveSnapshot],
    team_skill: float,
    ping: float,
    variation: float,
    hosts: float,
    emphasis: float,
) -> None:
    team_size, wave = sized
    queue = profile(
        team_size,
        budget_evaluations=1_500,
        weight_team_skill=team_skill,
        weight_ping=ping,
        weight_variation=variation,
        weight_hosts=hosts,
        weight_player_skill=1.0,
        worst_match_emphasis=emphasis,
    )
    result = multifactor_strategy(wave, queue)
    assert multifactor_result_problems(wave, queue, result) == []
