"""The rules examples load, and a wave of each makes only matches its rules allow."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from matcher.core import Player, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import result_problems, run_wave
from streams.settings import load_settings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ROLES = ("tank", "healer", "dps")


def player(rng: random.Random, i: int, roles: bool) -> Player:
    base = rng.randint(1000, 2000)
    ratings = (
        tuple((r, base + rng.randint(-100, 100)) for r in ROLES) if roles else (("mmr", base),)
    )
    attributes = (
        ("language", rng.choice(["de", "fr"])),
        ("platform", rng.choice(("pc", "pc,xbox"))),
    )
    latency = (("eu", rng.randint(20, 140)),)
    return Player(f"p{i}", tuple(sorted(ratings)), latency_ms=latency, attributes=attributes)


@pytest.mark.parametrize(
    ("name", "queue", "roles"),
    [("rules-5v5-roles", "5v5-ranked", True), ("rules-ffa8", "ffa8", False)],
)
def test_an_example_config_matches_within_its_rules(name: str, queue: str, roles: bool) -> None:
    settings = load_settings(EXAMPLES / f"{name}.toml")
    profile = settings.profiles()[queue]
    rng = random.Random(3)
    closed = 10_000_000
    tickets = []
    for i in range(200):
        joined = closed - rng.randint(0, 120) * 1000
        tickets.append(
            WaitingTicket(Ticket(f"t{i}", queue, "eu", (player(rng, i, roles),), joined), 0)
        )
    wave = WaveSnapshot(queue, "eu", "w", 1, 5, closed, tuple(tickets))
    result = run_wave(wave, profile)
    assert result.matches, name
    assert wave_rule_problems(rated_snapshot(wave, profile.ruleset), profile, result) == []


@pytest.mark.parametrize(
    ("name", "queue", "races"),
    [("rules-1v1-ladder", "1v1-ladder", ("mmr",)), ("rules-1v1-asymmetric", "1v1", ("bw", "sc2"))],
)
def test_a_1v1_example_matches_within_its_rules(
    name: str, queue: str, races: tuple[str, ...]
) -> None:
    profile = load_settings(EXAMPLES / f"{name}.toml").profiles()[queue]
    rng = random.Random(5)
    closed = 10_000_000
    tickets = []
    for i in range(300):
        offered = races if len(races) == 1 else rng.choice((("bw",), ("sc2",), races))
        ratings = tuple((race, rng.randint(1000, 2000)) for race in offered)
        latency = (("eu", rng.randint(20, 140)),)
        joined = closed - rng.randint(0, 120) * 1000
        ticket = Ticket(
            f"t{i}", queue, "eu", (Player(f"p{i}", ratings, latency_ms=latency),), joined
        )
        tickets.append(WaitingTicket(ticket, rng.randint(0, 12)))
    rated = rated_snapshot(
        WaveSnapshot(queue, "eu", "w", 1, 5, closed, tuple(tickets)), profile.ruleset
    )
    result = run_wave(rated, profile)
    assert result.matches, name
    assert wave_rule_problems(rated, profile, result) == []
    assert result_problems(rated, profile, result) == []


def test_the_mmo_dungeon_makes_groups_of_one_tank_one_healer_three_damage() -> None:
    profile = load_settings(EXAMPLES / "rules-mmo-dungeon.toml").profiles()["dungeon"]
    rng = random.Random(5)
    closed = 10_000_000
    tickets = []
    for i in range(200):
        cls = rng.choice(("tank", "healer", "damage", "damage", "damage"))
        player = Player(
            f"p{i}",
            (("gear", rng.randint(100, 500)),),
            latency_ms=(("eu", rng.randint(20, 140)),),
            attributes=(("class", cls), ("language", rng.choice(("de", "fr")))),
            numbers=(("level", float(rng.randint(10, 60))),),
        )
        joined = closed - rng.randint(0, 60) * 1000
        tickets.append(WaitingTicket(Ticket(f"t{i}", "dungeon", "eu", (player,), joined), 0))
    wave = WaveSnapshot("dungeon", "eu", "w", 1, 5, closed, tuple(tickets))
    result = run_wave(wave, profile)
    assert len(result.matches) >= 10
    assert wave_rule_problems(rated_snapshot(wave, profile.ruleset), profile, result) == []
    players = {w.ticket.players[0].player_id: w.ticket.players[0] for w in tickets}
    for match in result.matches:
        seated = [players[s.player_id] for team in match.teams for s in team.seats]
        classes = sorted(p.attribute("class") or "" for p in seated)
        assert classes == ["damage", "damage", "damage", "healer", "tank"]
        levels = [p.number("level") or 0 for p in seated]
        assert max(levels) - min(levels) <= 5
