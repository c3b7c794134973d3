"""The simulator's rematch count (issue 37): reported only by scenarios that ask for it,
counting matches that repeat an earlier pairing of the run, and fewer under a rematch
rule than without one on the same arrivals."""

from __future__ import annotations

import pytest

from matcher.sim import figures, simulate
from matcher.sim.config import ConfigError, config_from_mapping
from streams.report import _table
from tests.sim.conftest import scenario_data

#: Long sessions of short games in one small region: the same players meet again.
REPEATS = {
    "duration_s": 900,
    "region": [{"name": "eu", "sessions_per_hour": 200}],
    "behaviour": {"leave_per_wave": 0.0, "games_per_session": 8.0, "game_length_s": 60},
    "variant": [
        {"name": "free", "strategy": "rebalance"},
        {
            "name": "rule",
            "strategy": "rebalance",
            "rules": {"rematch": {"last": 3, "within_s": 900}},
        },
    ],
}


def test_rematches_are_counted_when_the_scenario_asks() -> None:
    config = config_from_mapping(
        {"seed": 11, "scenario": [scenario_data(**REPEATS, count_rematches=True)]}
    )
    (scenario,) = figures(simulate(config), 11)["scenarios"]
    free, rule = scenario["variants"]
    assert free["rematches"] > rule["rematches"] >= 0
    assert free["rule_violations"] == rule["rule_violations"] == 0
    assert "<th>rematches</th>" in _table([("x", free["overall"])], [free])


def test_no_rematch_figure_by_default() -> None:
    config = config_from_mapping({"seed": 11, "scenario": [scenario_data(**REPEATS)]})
    (scenario,) = figures(simulate(config), 11)["scenarios"]
    assert all("rematches" not in variant for variant in scenario["variants"])
    assert "rematches" not in _table(
        [("x", scenario["variants"][0]["overall"])], scenario["variants"]
    )


def test_a_bad_flag_is_refused_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"count_rematches: must be true or false"):
        config_from_mapping({"seed": 1, "scenario": [scenario_data(count_rematches="yes")]})
