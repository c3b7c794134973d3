"""Several `wavematch up` on one machine: one state file each, commands choose by name or
say which to choose; the banner and the data directory follow the settings (issue 33)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from streams.cli import UsageError, main
from streams.commands.common import running_up, running_ups, settings_from, up_state_file
from streams.commands.up import try_commands
from streams.settings import load_settings


@pytest.fixture(autouse=True)
def state_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in list(os.environ):
        if name.upper().startswith("WAVEMATCH_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("WAVEMATCH_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def pretend_up(name: str, port: int, pid: int = os.getpid(), config: str | None = None) -> None:
    path = up_state_file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {"name": name, "pid": pid, "broker_url": f"tansu://127.0.0.1:{port}", "web": []}
    path.write_text(json.dumps(state | {"config": config}))


def test_two_instances_have_two_files_and_a_command_must_choose() -> None:
    pretend_up("default", 1001)
    pretend_up("blue", 1002)
    assert sorted(running_ups()) == ["blue", "default"]
    assert running_up("blue")["broker_url"] == "tansu://127.0.0.1:1002"  # type: ignore[index]
    with pytest.raises(UsageError, match=r"2 `wavematch up` are running \(blue, default\)"):
        running_up()


def test_a_dead_instance_is_ignored_and_its_name_is_free() -> None:
    dead = 2**22 + 12345  # above Linux's default pid_max: no such process
    pretend_up("default", 1001, pid=dead)
    pretend_up("blue", 1002)
    assert running_up()["name"] == "blue"  # type: ignore[index]
    with pytest.raises(UsageError, match="no `wavematch up --name default` is running"):
        running_up("default")


def test_commands_use_the_instance_they_name(capsys: pytest.CaptureFixture[str]) -> None:
    pretend_up("default", 1001)
    pretend_up("blue", 1002)
    argv = ["join", "--queue", "1v1", "--region", "eu", "--player", "a:bw=1"]
    assert main(argv) == 2
    assert "choose one with --instance NAME" in capsys.readouterr().err
    assert main(["status"]) == 2
    assert "choose one with --instance NAME" in capsys.readouterr().err


def test_a_command_reads_the_settings_file_of_its_instance(tmp_path: Path) -> None:
    config = tmp_path / "ladder.toml"
    config.write_text('[[queues]]\nname = "ladder"\nregions = ["eu"]\nrules = {rating = "mmr"}\n')
    pretend_up("blue", 1002, config=str(config))

    class Args:
        broker = None
        config = None
        instance = "blue"

    settings = settings_from(Args())  # type: ignore[arg-type]
    assert settings.broker_url == "tansu://127.0.0.1:1002"
    assert [q.name for q in settings.queues] == ["ladder"]


def test_up_refuses_a_name_already_running(capsys: pytest.CaptureFixture[str]) -> None:
    pretend_up("default", 1001)
    assert main(["up"]) == 2
    err = capsys.readouterr().err
    assert "--name: a `wavematch up` named 'default' is already running" in err
    assert len(err.strip().splitlines()) == 1


def test_up_says_it_does_not_use_a_broker_of_the_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WAVEMATCH_BROKER_URL", "kafka://prod:9092")
    pretend_up("default", 1001)  # stops the start right after the note
    assert main(["up"]) == 2
    note, refusal = capsys.readouterr().err.strip().splitlines()
    assert note == (
        "wavematch up: broker_url kafka://prod:9092 of the settings is not used: up runs its "
        "own embedded broker (`wavematch worker` uses it)"
    )
    assert "already running" in refusal


def test_the_banner_joins_the_configured_queue(tmp_path: Path) -> None:
    config = tmp_path / "ladder.toml"
    config.write_text('[[queues]]\nname = "ladder"\nregions = ["na"]\nrules = {rating = "mmr"}\n')
    first, second = try_commands(load_settings(config), "blue")
    assert (
        first == "wavematch join --instance blue --queue ladder --region na --player alice:mmr=1500"
    )
    assert second.endswith("--player bob:mmr=1520")


def test_the_default_banner_pairs_bw_against_sc2() -> None:
    first, second = try_commands(load_settings(), "default")
    assert first.endswith("--queue 1v1 --region eu --player alice:bw=1500")
    assert second.endswith("--player bob:sc2=1520")


def test_faust_data_goes_to_the_data_dir_not_the_cwd(tmp_path: Path) -> None:
    from prometheus_client import CollectorRegistry

    from streams.worker.app import create_app

    default = load_settings()
    assert default.faust_data_dir == Path.home() / ".wavematch" / "wavematch-data"
    assert not default.faust_data_dir.is_relative_to(Path.cwd())
    chosen = load_settings(data_dir=tmp_path / "data", app_id="blue")
    assert chosen.faust_data_dir == tmp_path / "data" / "blue-data"
    app = create_app(chosen, CollectorRegistry())
    assert Path(app.conf.datadir) == tmp_path / "data" / "blue-data"


def test_a_settings_file_naming_a_broker_wins_over_a_running_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`join --config prod.toml` with a trial `up` running goes to prod.toml's broker."""
    import argparse

    pretend_up("default", 1001)
    prod = tmp_path / "prod.toml"
    prod.write_text('broker_url = "kafka://kafka.example:9093"\n')
    plain = tmp_path / "queues.toml"
    plain.write_text('[[queues]]\nname = "1v1"\n')

    def broker(config: Path | None) -> str:
        return settings_from(argparse.Namespace(config=config, broker=None)).broker_url

    assert broker(prod) == "kafka://kafka.example:9093"
    assert broker(plain) == "tansu://127.0.0.1:1001"  # the file names no broker: the up's
    monkeypatch.setenv("WAVEMATCH_CONFIG_FILE", str(prod))
    assert broker(None) == "kafka://kafka.example:9093"


@pytest.mark.parametrize(
    ("queue", "noted"),
    [
        ('[[queues]]\nname = "1v1"\n', True),
        ('[[queues]]\nname = "ranked"\nrules = { rating = "mmr" }\n', False),
    ],
)
def test_the_banner_says_a_duel_pairs_races_only_when_it_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], queue: str, noted: bool
) -> None:
    from types import SimpleNamespace

    from streams.commands.up import _print_banner

    config = tmp_path / "queues.toml"
    config.write_text(queue)
    broker = SimpleNamespace(url="tansu://127.0.0.1:1", bootstrap="127.0.0.1:1", pid=1)
    _print_banner("default", load_settings(config), broker, [6066])  # type: ignore[arg-type]
    assert ("pairs a bw player against an sc2 player" in capsys.readouterr().out) is noted


@pytest.mark.parametrize(
    "example", sorted(p.name for p in (Path(__file__).parents[2] / "examples").glob("*.toml"))
)
def test_the_banner_has_one_match_of_joins_for_every_example(example: str) -> None:
    """Each archetype's first queue gets joins its own strategy matches together
    (streams/commands/trial_joins.py proves them before the banner prints them)."""
    settings = load_settings(Path(__file__).parents[2] / "examples" / example)
    joins = try_commands(settings, "default")
    queue = settings.queues[0]
    seats = sum(queue.team_sizes or (queue.team_size,) * queue.team_count)
    assert len(joins) == seats, joins
    assert all(f"--queue {queue.name} --region {queue.regions[0]} --player" in j for j in joins)


def test_a_match_of_many_joins_goes_to_a_script_the_banner_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streams.commands.up import _try_lines

    monkeypatch.setenv("WAVEMATCH_STATE_DIR", str(tmp_path))
    settings = load_settings(Path(__file__).parents[2] / "examples" / "rules-br-squads.toml")
    script_line, tail = _try_lines("default", settings)
    assert script_line == (
        f"bash {tmp_path / 'up-default-try.sh'}   # the 100 joins of one br-squads match"
    )
    lines = (tmp_path / "up-default-try.sh").read_text().splitlines()
    assert len(lines) == 100 and all(" join --queue br-squads --region " in line for line in lines)
    assert tail.startswith("wavematch tail matches")


def test_version_prints_the_installed_release(capsys: pytest.CaptureFixture[str]) -> None:
    from streams import release

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"wavematch {release()}\n"
