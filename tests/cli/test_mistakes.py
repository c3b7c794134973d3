"""Every mistake a newcomer makes at the terminal is one line naming the file, variable or
flag, with a non-zero exit: no traceback, nothing published (issue 33)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from streams.cli import main

ROOT = Path(__file__).resolve().parents[2]

#: Nothing listens here: a command that got past its checks would fail on the broker.
NO_BROKER = "kafka://127.0.0.1:9"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.upper().startswith("WAVEMATCH_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("WAVEMATCH_STATE_DIR", str(tmp_path / "state"))


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code != 0, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


JOIN = ["join", "--broker", NO_BROKER, "--queue", "1v1", "--region", "eu"]


@pytest.mark.parametrize(
    "command",
    [
        ["join", "--player", "a:bw=1", "--queue", "1v1", "--region", "eu"],
        ["worker"],
        ["up"],
        ["tail", "matches"],
    ],
)
def test_a_toml_syntax_error_names_the_file(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("partitions = \n")
    line = one_line_error(capsys, [*command, "--broker", NO_BROKER, "--config", str(config)])
    assert f"config file {config}: not valid TOML" in line


def test_a_toml_syntax_error_in_the_variables_file_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[[queues]\n")
    monkeypatch.setenv("WAVEMATCH_CONFIG_FILE", str(config))
    assert "not valid TOML" in one_line_error(capsys, [*JOIN, "--player", "a:bw=1"])


def test_malformed_queues_variable_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WAVEMATCH_QUEUES", '[{"name": ')
    line = one_line_error(capsys, [*JOIN, "--player", "a:bw=1"])
    assert "WAVEMATCH_QUEUES: not valid JSON" in line


def test_a_misspelt_variable_is_named_with_the_closest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WAVEMATCH_PARTITONS", "3")
    line = one_line_error(capsys, [*JOIN, "--player", "a:bw=1"])
    assert "WAVEMATCH_PARTITONS: not a wavematch setting" in line
    assert "did you mean WAVEMATCH_PARTITIONS?" in line


@pytest.mark.parametrize(
    ("where", "player", "expected"),
    [
        (["--queue", "2v2", "--region", "eu"], "a:bw=1", "--queue: unknown queue '2v2'"),
        (["--queue", "1v1", "--region", "mars"], "a:bw=1", "--region: queue '1v1' is not open"),
        (["--queue", "1v1", "--region", "eu"], "a:zerg=1", "--player: player a has no bw or sc2"),
    ],
)
def test_a_join_the_settings_refuse_is_not_published(
    where: list[str], player: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The broker is unreachable: a join that got as far as publishing says so instead.
    line = one_line_error(capsys, ["join", "--broker", NO_BROKER, *where, "--player", player])
    assert expected in line


def test_a_player_given_as_json_that_the_settings_refuse_names_player_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    json_player = '{"player_id": "a", "ratings": {"zerg": 1}}'
    where = ["--queue", "1v1", "--region", "eu"]
    line = one_line_error(
        capsys, ["join", "--broker", NO_BROKER, *where, "--player-json", json_player]
    )
    assert "--player-json: player a has no bw or sc2" in line


@pytest.mark.parametrize(
    "command",
    [
        ["accept", "--match", "m-1", "--player", "a"],
        ["decline", "--match", "m-1", "--player", "a"],
        ["placed", "STARTED", "--match", "m-1"],
        ["leave", "--ticket", "t-1"],
    ],
    ids=lambda command: command[0],
)
@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (["--queue", "2v2", "--region", "eu"], "--queue: unknown queue '2v2'"),
        (["--queue", "1v1", "--region", "mars"], "--region: queue '1v1' is not open"),
    ],
)
def test_every_queue_event_names_a_place_the_settings_run(
    command: list[str], where: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Unreachable broker: an event that got as far as publishing would say so instead.
    line = one_line_error(capsys, [*command, "--broker", NO_BROKER, *where])
    assert expected in line


def test_a_join_is_checked_against_the_configured_queues(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mirror.toml"
    config.write_text('[[queues]]\nname = "ladder"\nregions = ["eu"]\nrules = {rating = "mmr"}\n')
    argv = ["join", "--broker", NO_BROKER, "--config", str(config), "--region", "eu"]
    assert "unknown queue '1v1'" in one_line_error(
        capsys, [*argv, "--queue", "1v1", "--player", "a:mmr=1"]
    )
    line = one_line_error(capsys, [*argv, "--queue", "ladder", "--player", "a:bw=1"])
    assert line.startswith("wavematch join: error: --player:"), line


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_up_refuses_a_busy_web_port_before_it_starts(
    busy_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    line = one_line_error(capsys, ["up", "--web-port", str(busy_port)])
    assert f"--web-port: 127.0.0.1:{busy_port} is not free" in line
    assert "wavematch is up" not in capsys.readouterr().out


def test_up_refuses_a_non_loopback_web_host_without_a_token_before_its_banner(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its workers would refuse it: said once, before the broker starts and the banner
    says the instance is up."""
    monkeypatch.setenv("WAVEMATCH_WEB_HOST", "0.0.0.0")
    line = one_line_error(capsys, ["up"])
    assert line.startswith("wavematch up: error: web_token: required with the non-loopback")
    assert "wavematch is up" not in capsys.readouterr().out


def test_up_says_it_runs_its_own_broker_when_given_one(capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(capsys, ["up", "--broker", NO_BROKER])
    assert "--broker: `up` runs its own embedded broker" in line
    assert "wavematch worker --broker URL" in line


def test_worker_refuses_a_busy_web_port(busy_port: int, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(capsys, ["worker", "--broker", NO_BROKER, "--web-port", str(busy_port)])
    assert f"--web-port: 127.0.0.1:{busy_port} is not free" in line


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["up", "--web-port", "99999"], "--web-port: 99999 is not a port (1-65535)"),
        (["up", "--web-port", "-1"], "--web-port: -1 is not a port (1-65535)"),
        (["up", "--workers", "0"], "--workers: 0: give 1 or more"),
        (["tail", "matches", "--broker", NO_BROKER, "--count", "0"], "--count: 0 events"),
        (["tail", "matches", "--broker", NO_BROKER, "--timeout", "-1"], "--timeout: -1 s"),
        (
            ["tail", "matches", "--broker", NO_BROKER, "--idle-timeout", "nan"],
            "--idle-timeout: nan s",
        ),
        ([*JOIN, "--player", "a:bw=1500", "--wait", "-3"], "--wait: -3 s"),
        ([*JOIN, "--player", "a:bw=1500", "--wait", "nan"], "--wait: nan s"),
        (
            ["tail", "matches", "--broker", NO_BROKER, "--field", "match_idd"],
            "--field: no event of topic matches has a field 'match_idd' (did you mean 'match_id'?)",
        ),
        (
            ["tail", "status", "--broker", NO_BROKER, "--where", "stat=SEARCHING"],
            "--where: no event of topic status has a field 'stat'",
        ),
        (["explain", "--broker", NO_BROKER], "match_id: give a match id or --ticket TICKET_ID"),
        (["explain", "m1", "--ticket", "t1", "--broker", NO_BROKER], "not both"),
    ],
)
def test_a_number_or_choice_out_of_range_is_named_before_anything_starts(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = one_line_error(capsys, argv)
    assert said in line, line
    assert "cannot reach" not in line  # refused before the broker is asked


def test_an_output_path_that_cannot_be_written_is_named_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    export = ["export", "--broker", NO_BROKER, "--output"]
    cases = [
        ([*export, str(tmp_path / "nodir" / "x.avro")], "is not a directory"),
        ([*export, str(tmp_path)], f"--output: {tmp_path} is a directory, not a file"),
        ([*export, str(tmp_path / "x.avro"), "--topic", "bogus"], "--topic: 'bogus' is not one"),
        (
            [
                "simulate",
                "--config",
                str(ROOT / "docs" / "sim" / "standard.toml"),
                "--report",
                str(afile / "sub"),
            ],
            f"--report: cannot create {afile / 'sub'}: {afile} is not a directory",
        ),
        (["up", "--log-dir", str(afile)], f"--log-dir: {afile} exists and is not a directory"),
        (
            ["up", "--log-dir", str(afile / "logs")],
            f"--log-dir: cannot create {afile / 'logs'}: {afile} is not a directory",
        ),
        (["up", "--log-dir", "/proc/wavematch-logs"], "--log-dir: cannot"),
    ]
    for argv, said in cases:
        line = one_line_error(capsys, argv)
        assert said in line, line
        assert "cannot reach" not in line


def test_config_publish_names_a_missing_file_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.toml"
    line = one_line_error(capsys, ["config", "publish", str(missing), "--broker", NO_BROKER])
    assert line.count(str(missing)) == 1 and "not found" in line, line


def test_a_broker_nobody_named_is_said_to_be_the_default() -> None:
    from streams.commands.common import _default_broker_hint
    from streams.settings import load_settings

    assert "no `wavematch up` running" in _default_broker_hint(load_settings(None))
    assert _default_broker_hint(load_settings(None, broker_url=NO_BROKER)) == ""


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("WAVEMATCH_CONFIG_FILE", "/no/such/wavematch.toml", "WAVEMATCH_CONFIG_FILE: config file"),
        ("WAVEMATCH_QUEUES", "[]", "queues: Tuple should have at least 1 item"),
        ("WAVEMATCH_BROKER_URL", "localhost:9092", "broker_url: 'localhost:9092' is not like"),
        ("WAVEMATCH_BROKER_URL", "kafka://host", "broker_url: 'kafka://host' is not like"),
        ("WAVEMATCH_BROKER_URL", "http://host:80", "broker_url: 'http://host:80' is not like"),
    ],
)
def test_a_variable_that_would_start_a_worker_on_the_wrong_settings_stops_it(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    said: str,
) -> None:
    monkeypatch.setenv(variable, value)
    line = one_line_error(capsys, ["worker"])
    assert said in line, line
    assert "cannot reach" not in line  # refused before the broker is asked


def test_a_broker_url_lists_servers_by_name_ipv4_or_bracketed_ipv6() -> None:
    from streams.settings import load_settings

    for url in ("kafka://b1:9092,b2:9092", "kafka://10.0.0.1:9092, b3:9093", "tansu://[::1]:9"):
        assert load_settings(None, broker_url=url).broker_url == url


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("notaurl", "--web: 'notaurl' is not a worker URL such as http://host:port"),
        ("http://[::1", "--web: 'http://[::1' is not a worker URL such as http://host:port"),
    ],
)
def test_status_refuses_a_web_address_that_is_no_url(
    capsys: pytest.CaptureFixture[str], url: str, said: str
) -> None:
    assert said in one_line_error(capsys, ["status", "--web", url])


def test_worker_refuses_port_zero_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(capsys, ["worker", "--broker", NO_BROKER, "--web-port", "0"])
    assert "web_port" in line and "greater than or equal to 1" in line


def test_a_file_naming_no_queues_says_the_built_in_queue_runs(tmp_path: Path) -> None:
    """A production file that lost its [[queues]] ran the demo queue in silence and
    rejected every join of the queues it meant (an outside try)."""
    import argparse

    from streams.commands.common import built_in_queue_notice
    from streams.settings import load_settings

    bare = tmp_path / "bare.toml"
    bare.write_text('app_id = "prod"\npartitions = 4\n')
    args = argparse.Namespace(config=bare)
    assert built_in_queue_notice(args, load_settings(bare)) == (
        f"{bare} names no [[queues]]: the built-in queue 1v1 (optimal; eu, na, asia) "
        "runs in their place"
    )
    named = tmp_path / "named.toml"
    named.write_text('partitions = 4\n[[queues]]\nname = "duo"\nregions = ["eu"]\n')
    assert built_in_queue_notice(argparse.Namespace(config=named), load_settings(named)) is None
    assert built_in_queue_notice(argparse.Namespace(config=None), load_settings()) is None


@pytest.mark.parametrize("command", [["worker", "--broker", NO_BROKER], ["up"]])
def test_a_schema_registry_that_does_not_answer_stops_the_start_in_one_line(
    command: list[str], tmp_path: Path
) -> None:
    """Checked before the broker is asked and before Faust starts: a registry error
    raised inside the started worker would be Faust's crash report and traceback. In a
    process of its own: `up`'s workers write to the terminal, not to this test's capture."""
    import subprocess
    import sys

    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    env = {name: value for name, value in os.environ.items() if not name.startswith("WAVEMATCH_")}
    env |= {
        "WAVEMATCH_STATE_DIR": str(tmp_path / "state"),
        "WAVEMATCH_SCHEMA_REGISTRY_URL": f"http://127.0.0.1:{port}",
    }
    done = subprocess.run(
        [sys.executable, "-m", "streams.cli", *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "schema registry: cannot register wavematch.matches.v1-value" in lines[0]
    assert "wavematch is up" not in done.stdout


@pytest.fixture
def one_worker_web() -> Iterator[str]:
    """A stand-in for a worker's web server: /queues answers one row."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Queues(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            row = {"queue": "1v1", "region": "eu", "tickets": 3, "players": 3, "waves_closed": 1}
            body = json.dumps({"queues": [row]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # the test's output is the command's

    server = ThreadingHTTPServer(("127.0.0.1", 0), Queues)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_status_reads_a_worker_named_twice_once(
    one_worker_web: str, capsys: pytest.CaptureFixture[str]
) -> None:
    web = one_worker_web
    assert main(["status", "--web", web, "--web", f"{web}/", "--web", web]) == 0
    rows = capsys.readouterr().out.strip().splitlines()[1:]
    assert len(rows) == 1, rows


def test_join_refuses_an_empty_ticket_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*JOIN, "--player", "a:bw=1", "--ticket", ""]) == 2
    err = capsys.readouterr().err
    assert err == "wavematch join: error: --ticket: must not be empty\n", err


def test_a_directory_given_as_the_config_file_is_named_as_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = one_line_error(capsys, ["tail", "matches", "--config", str(tmp_path)])
    assert f"config file {tmp_path}: a directory, not a TOML file" in line, line


def test_a_device_given_as_the_config_file_is_not_called_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = one_line_error(capsys, ["tail", "matches", "--config", os.devnull])
    assert f"config file {os.devnull}: not a regular file" in line, line


def test_status_shows_the_live_workers_and_names_each_unreachable_one(
    one_worker_web: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One dead worker hid the live workers' rows behind a usage error (an outside try)."""
    with socket.socket() as closed:  # a port nothing listens on: a dead worker's
        closed.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{closed.getsockname()[1]}"
    assert main(["status", "--web", dead, "--web", one_worker_web]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].split() == ["1v1", "eu", "3", "3", "1"]
    assert captured.err.startswith(f"wavematch status: cannot read {dead}/queues: ")
    assert len(captured.err.strip().splitlines()) == 1, captured.err


def test_status_refuses_a_misspelt_variable_as_every_command_does(
    one_worker_web: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WAVEMATCH_BROKERURL", "x")
    line = one_line_error(capsys, ["status", "--web", one_worker_web])
    assert line == (
        "wavematch status: error: WAVEMATCH_BROKERURL: not a wavematch setting "
        "(did you mean WAVEMATCH_BROKER_URL?)"
    )


def test_an_unknown_option_is_reported_with_its_command_s_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["join", "--queue", "1v1", "--region", "eu", "--plyer", "a:bw=1"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: wavematch join "), err
    assert err.strip().splitlines()[-1] == (
        "wavematch join: error: unrecognized arguments: --plyer a:bw=1"
    )
