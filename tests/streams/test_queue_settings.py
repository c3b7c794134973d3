"""Queue options are checked when settings load: a typo stops the start with one line
naming the queue, the field and the reason, for every strategy and every entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from streams.cli import main
from streams.settings import SettingsError, load_settings

BAD = [
    ("multifactor", 3, "weight_pings = 1.0", "options.weight_pings: unknown multifactor option"),
    ("multifactor", 3, 'weight_ping = "loud"', "options.weight_ping: expected a number"),
    ("rebalance", 3, 'method = "fast"', "options.method: 'fast' is not one of"),
    ("rebalance", 3, "methd = 1", "options.methd: unknown option"),
    ("game-queue", 3, "alpha = -1", "options.alpha: must be a number >= 0"),
    ("optimal", 1, "colour = 1", "options.colour: unknown option"),
    ("ladder-v2.1", 1, 'window_rule = "wide"', "options.window_rule: must be one of"),
]


def queue_toml(strategy: str, team_size: int, options: str) -> str:
    return (
        f'[[queues]]\nname = "q1"\nstrategy = "{strategy}"\nteam_size = {team_size}\n'
        f"options = {{{options}}}\n"
    )


@pytest.mark.parametrize(("strategy", "size", "options", "message"), BAD)
def test_a_bad_option_stops_loading_naming_queue_field_and_reason(
    tmp_path: Path, strategy: str, size: int, options: str, message: str
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(queue_toml(strategy, size, options))
    with pytest.raises(SettingsError) as caught:
        load_settings(config)
    text = str(caught.value)
    assert text.startswith("queues.0: queue 'q1': ") and message in text, text
    assert "\n" not in text and "Value error" not in text


def test_a_bad_team_shape_is_refused_by_its_strategy() -> None:
    queue = {"name": "duel", "strategy": "optimal", "team_size": 2}
    with pytest.raises(SettingsError, match=r"queue 'duel': profile: duel strategies need"):
        load_settings(queues=[queue])
    queue = {"name": "gq", "strategy": "game-queue", "team_size": 3, "team_size_min": 2}
    with pytest.raises(SettingsError, match=r"queue 'gq': team_size_min: the game queue needs"):
        load_settings(queues=[queue])


def test_good_options_load() -> None:
    queues = [
        {"name": "a", "strategy": "multifactor", "team_size": 3, "options": {"weight_ping": 1}},
        {"name": "b", "strategy": "rebalance", "team_size": 5, "options": {"method": "greedy"}},
    ]
    settings = load_settings(queues=queues)
    assert [q.options for q in settings.queues] == [{"weight_ping": 1}, {"method": "greedy"}]


@pytest.mark.parametrize("command", ["worker", "up"])
def test_worker_and_up_refuse_to_start_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(queue_toml("multifactor", 3, "weight_pings = 1.0"))
    code = main([command, "--config", str(config), "--broker", "kafka://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "queues.0: queue 'q1': options.weight_pings: unknown multifactor option" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_each_queue_profile_is_built_once_with_its_rules_parsed(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(
        '[[queues]]\nname = "q1"\nstrategy = "rebalance"\nteam_size = 3\n'
        "rules = {max_spread = {base = 300}}\n"
    )
    settings = load_settings(path)
    assert settings.profiles()["q1"] is settings.profiles()["q1"]
    spread = settings.profiles()["q1"].ruleset.max_spread
    assert spread is not None and spread.at(0) == 300
