"""Options: defaults, parsing from settings-like strings, one-line errors naming the option."""

from __future__ import annotations

import pytest

from matcher.multifactor.config import (
    DEFAULT_PING_CURVE,
    MultifactorConfig,
    OptionError,
    parse_config,
)
from matcher.multifactor.strategy import multifactor_strategy
from tests.multifactor.conftest import profile, snapshot, solo


def test_defaults() -> None:
    cfg = parse_config({})
    assert cfg == MultifactorConfig()
    assert cfg.weights() == (3.0, 1.0, 1.0, 2.0, 1.0, 0.0)  # hosts off by default
    assert cfg.ping_curve == DEFAULT_PING_CURVE


def test_numbers_and_numeric_strings_are_accepted() -> None:
    cfg = parse_config(
        {
            "weight_hosts": "2",
            "rating_ceiling": "2800",
            "budget_evaluations": 1e5,
            "ping_curve": [[0, 1], [100, "0.5"], [300, 0]],
        }
    )
    assert cfg.weight_hosts == 2.0
    assert cfg.rating_ceiling == 2800 and isinstance(cfg.rating_ceiling, int)
    assert cfg.budget_evaluations == 100_000
    assert cfg.ping_curve == ((0, 1.0), (100, 0.5), (300, 0.0))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"weight_pings": 1}, "weight_pings: unknown multifactor option"),
        ({"weight_ping": -1}, "weight_ping: must be >= 0"),
        ({"weight_ping": "fast"}, "weight_ping: expected a number, got 'fast'"),
        ({"weight_ping": True}, "weight_ping: expected a number, got True"),
        ({"weight_ping": float("nan")}, "weight_ping: must be finite"),
        ({"budget_evaluations": 1.5}, "budget_evaluations: expected a whole number, got 1.5"),
        ({"budget_evaluations": 0}, "budget_evaluations: must be >= 1"),
        ({"rating_ceiling": 10, "rating_floor": 10}, "rating_ceiling: must be > rating_floor"),
        ({"premade_small_score": 1.5}, "premade_small_score: must be within [0, 1]"),
        ({"ping_curve": "0:1.5, 100:0"}, "ping_curve: scores must be within [0, 1]"),
        ({"ping_curve": "10:1"}, "ping_curve: must start at 0 ms"),
        ({"ping_curve": "0:0.5, 100:0.9"}, "ping_curve: scores must not increase with ping"),
        ({"ping_curve": "0:1, 0:0.5"}, "ping_curve: milliseconds must increase"),
        ({"ping_curve": "0-1"}, "ping_curve: ['0-1'] is not an (ms, score) pair"),
        ({"ping_curve": 5}, "ping_curve: expected 'ms:score, ...' or (ms, score) pairs, got 5"),
        (
            {
                f"weight_{f}": 0
                for f in ("team_skill", "player_skill", "premades", "ping", "variation", "hosts")
            },
            "weight_*: at least one weight",
        ),
    ],
)
def test_bad_options_raise_one_line_naming_the_option(options: dict[str, object], message: str):
    with pytest.raises(OptionError) as caught:
        parse_config(options)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"team_count": 3}, "team_count: multifactor plays exactly 2 teams"),
        ({"roles": ("tank", "dps", "healer")}, "roles: multifactor does not assign roles"),
        ({"team_size_min": 2}, "team_size_min: multifactor plays full teams only"),
        ({"team_size": 0}, "team_size: must be >= 1"),
    ],
)
def test_the_strategy_rejects_profiles_it_cannot_play(changes: dict[str, object], message: str):
    from dataclasses import replace

    bad = replace(profile(), **changes)  # type: ignore[arg-type]
    with pytest.raises(OptionError, match=message.replace("(", r"\(")):
        multifactor_strategy(snapshot([solo(i) for i in range(6)]), bad)


def test_the_strategy_reads_its_options_from_the_profile() -> None:
    with pytest.raises(OptionError, match="colour: unknown multifactor option"):
        multifactor_strategy(snapshot([solo(i) for i in range(6)]), profile(colour="blue"))
