"""Small scenarios for simulator tests: a pairing strategy that is obviously right."""

from __future__ import annotations

from typing import Any

import pytest

from matcher.sim.config import SimConfig, config_from_mapping
from tests.queue.conftest import PAIRS  # noqa: F401  (registers the in-order pairing strategy)


def scenario_data(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "tiny",
        "queue": "2v2",
        "team_size": 2,
        "duration_s": 600,
        "region": [
            {"name": "eu", "sessions_per_hour": 600},
            {"name": "na", "sessions_per_hour": 300, "rating_mean": 1300},
        ],
        "behaviour": {
            "party_weights": [0.7, 0.3],
            "leave_per_wave": 0.05,
            "games_per_session": 2.0,
            "game_length_s": 120,
        },
        "variant": [
            {"name": "rebalance-10s", "strategy": "rebalance"},
            {
                "name": "rebalance-pop",
                "strategy": "rebalance",
                "cadence": "pop",
                "target_matches": 2.0,
                "floor_ms": 2_000,
                "cap_ms": 30_000,
            },
        ],
    }
    data.update(overrides)
    return data


@pytest.fixture
def tiny() -> SimConfig:
    return config_from_mapping({"seed": 11, "scenario": [scenario_data()]})
