"""[scenario.peers]: players placed on a map with consistent round trips, and the round
trip figures of the report (docs/simulator.md); scenarios without it are unchanged."""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest

import matcher.sim.geography
from matcher.peers import region_estimate_ms
from matcher.sim import figures, simulate
from matcher.sim.config import ConfigError, SimConfig, config_from_mapping
from matcher.sim.population import draw_sessions
from tests.sim.conftest import scenario_data

PEERS = {"radius_ms": 50, "base_ms": 10, "measured": 20, "hosts": 0.4}


def p2p_config(**peers: object) -> SimConfig:
    variants = [
        {"name": "region", "strategy": "multifactor", "options": {"budget_evaluations": 2000}},
        {
            "name": "p2p",
            "strategy": "multifactor",
            "options": {"budget_evaluations": 2000, "p2p_host_max_ms": 70, "weight_hosts": 1.0},
        },
    ]
    data = scenario_data(
        queue="3v3",
        team_size=3,
        duration_s=300,
        region=[{"name": "eu", "sessions_per_hour": 1500}],
        behaviour={"party_weights": [1.0], "games_per_session": 2.0, "game_length_s": 60},
        variant=variants,
        peers={**PEERS, **peers},
    )
    return config_from_mapping({"seed": 5, "scenario": [data]})


@pytest.mark.parametrize(
    ("peers", "line"),
    [
        ({"measured": 101}, "scenario[0].peers.measured: must be between 0 and 100"),
        ({"hosts": 1.5}, "scenario[0].peers.hosts: must be between 0 and 1"),
        ({"radius": 5}, "scenario[0].peers.radius: unknown field"),
    ],
)
def test_a_bad_peers_table_is_one_line_naming_the_field(
    peers: dict[str, object], line: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        p2p_config(**peers)
    assert str(caught.value).startswith(line)


def test_players_are_placed_consistently_and_reproducibly() -> None:
    config = p2p_config()
    scenario = config.scenarios[0]
    sessions = draw_sessions(scenario, config.seed)
    assert sessions == draw_sessions(scenario, config.seed)
    players = {p.player_id: p for s in sessions for p in s.players}
    assert sum(p.can_host for p in players.values()) not in (0, len(players))
    for player in players.values():
        assert [region for region, _ in player.latency_ms] == ["eu"]
        assert 0 < len(player.peer_latency_ms) <= PEERS["measured"]
        for other, ms in player.peer_latency_ms:
            back = dict(players[other].peer_latency_ms).get(player.player_id)
            assert back in (None, ms)  # one map: both directions agree
            estimate = region_estimate_ms(player, players[other])
            assert estimate is not None and ms <= estimate + 1  # via the server is no shorter
    plain = draw_sessions(replace(scenario, peers=None), config.seed)
    assert [s.session_id for s in plain] == [s.session_id for s in sessions]
    assert all(not p.latency_ms and not p.peer_latency_ms for s in plain for p in s.players)


def test_the_report_gives_round_trips_and_the_host_option_always_has_a_host() -> None:
    config = p2p_config()
    found = figures(simulate(config), config.seed)["scenarios"][0]["variants"]
    region, p2p = (v["overall"] for v in found)
    assert region["matches"] > 0 and p2p["matches"] > 0
    assert p2p["matches_without_host"] == 0 and p2p["host_reach_ms"]["max"] <= 70
    assert region["host_reach_ms"]["count"] + region["matches_without_host"] == region["matches"]
    assert all(v["rule_violations"] == 0 and v["failed_waves"] == 0 for v in found)


def test_a_scenario_without_peers_has_no_round_trip_figures(tiny: SimConfig) -> None:
    overall = figures(simulate(tiny), 11)["scenarios"][0]["variants"][0]["overall"]
    assert "round_trip_ms" not in overall and "matches_without_host" not in overall


def test_doctests() -> None:
    outcome = doctest.testmod(matcher.sim.geography)
    assert outcome.failed == 0 and outcome.attempted > 0
