"""The simulator's team scenarios with ``roles`` or ``skill_dimensions`` (issue 37): the
players carry what the game-queue options read, and bad values name the field."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from matcher.sim.config import ConfigError, config_from_mapping
from matcher.sim.engine import variant_profile
from matcher.sim.population import draw_sessions

IDEAS = Path(__file__).resolve().parents[2] / "docs" / "sim" / "ideas-teams.toml"


def test_role_players_offer_roles_of_the_queue_rated_for_each() -> None:
    config = config_from_mapping(tomllib.loads(IDEAS.read_text()))
    scenario = next(s for s in config.scenarios if s.name == "roles")
    assert variant_profile(scenario, scenario.variants[0]).roles == ("tank", "healer", "dps")
    players = [p for s in draw_sessions(scenario, config.seed) for p in s.players]
    assert players and all(1 <= len(p.roles) <= 2 for p in players)
    assert all(set(p.roles) <= set(scenario.roles) for p in players)
    assert all(p.rating(role) is not None for p in players for role in p.roles)


def test_skill_players_carry_any_and_every_dimension() -> None:
    config = config_from_mapping(tomllib.loads(IDEAS.read_text()))
    scenario = next(s for s in config.scenarios if s.name == "skill")
    players = [p for s in draw_sessions(scenario, config.seed) for p in s.players]
    assert players
    assert all({name for name, _ in p.ratings} == {"any", "aim", "tactics"} for p in players)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"roles": ["tank", "dps"]}, "scenario[0].roles: a team queue's role slots"),
        (
            {"roles": ["a", "b", "c"], "skill_dimensions": ["aim"]},
            "scenario[0].skill_dimensions: team queues without roles only",
        ),
    ],
)
def test_bad_values_name_the_field(extra: dict[str, object], message: str) -> None:
    scenario = {
        "name": "s",
        "queue": "3v3",
        "team_size": 3,
        "region": [{"name": "eu", "sessions_per_hour": 60}],
        "variant": [{"name": "v", "strategy": "game-queue"}],
        **extra,
    }
    with pytest.raises(ConfigError, match="^" + message.replace(".", r"\.").replace("[", r"\[")):
        config_from_mapping({"seed": 1, "scenario": [scenario]})
