"""Secured connections on Apache Kafka: a SASL_SSL listener (SCRAM, a CA made for the test,
client certificates required). A worker, `wavematch join` and `wavematch tail` make a match
over it; a wrong password, an untrusted CA or a wrong mechanism ends a command within
seconds, with one line naming the setting and the broker's answer."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from streams.embedded.broker import free_port
from streams.processes import stop_process
from streams.settings import load_settings
from streams.topics import ensure_topics
from tests.integration.conftest import FAUST_ENV, ROOT, Worker, wait_until, wavematch_process
from tests.kafka.broker import KafkaBroker
from tests.kafka.fixtures import require_kafka
from tests.secured.certificates import Authority, make_authority

pytestmark = pytest.mark.integration

USER, PASSWORD = "wavematch", "correct horse battery staple"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required;"

QUEUES = """
partitions = 2
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu"]
wave_interval_ms = 1000
"""


@dataclass(frozen=True)
class Secured:
    broker: KafkaBroker
    authority: Authority
    root: Path

    @property
    def url(self) -> str:
        return self.listener_url("SECURED")

    def listener_url(self, listener: str) -> str:
        return f"kafka://127.0.0.1:{self.broker.ports[listener]}"

    def config(self, name: str, **changes: str) -> Path:
        """A settings file for the SASL_SSL listener; ``changes`` replace its lines."""
        password = self.root / "sasl-password"
        password.write_text(PASSWORD + "\n")  # as a mounted Secret file often ends
        values = {
            "broker_url": self.url,
            "security_protocol": "SASL_SSL",
            "sasl_mechanism": "SCRAM-SHA-512",
            "sasl_username": USER,
            "sasl_password_file": str(password),
            "ssl_cafile": str(self.authority.ca),
            "ssl_certfile": str(self.authority.client_cert),
            "ssl_keyfile": str(self.authority.client_key),
            **changes,
        }
        body = "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())
        path = self.root / f"{name}.toml"
        path.write_text(body + QUEUES)
        return path


LISTENERS = {
    "PLAINTEXT": "PLAINTEXT",
    "SECURED": "SASL_SSL",
    "PLAIN_SSL": "SASL_SSL",
    "MISADVERTISED": "PLAINTEXT",
}


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secured]:
    require_kafka()
    root = tmp_path_factory.mktemp("secured")
    authority = make_authority(root / "tls")
    listener = "listener.name.secured."
    ports = {name: free_port() for name in (*LISTENERS, "CONTROLLER")}
    advertised = {**{name: "127.0.0.1" for name in LISTENERS}, "MISADVERTISED": "127.0.0.2"}
    broker = KafkaBroker(
        root / "kafka",
        # The first listener stays PLAINTEXT: the fixture's readiness check and the
        # broker's own traffic use it; clients under test use SECURED only.
        # SECURED takes SCRAM, PLAIN_SSL takes PLAIN (as Confluent Cloud does), both over TLS.
        # MISADVERTISED answers metadata with an address nobody listens on (127.0.0.2), as a
        # broker behind a wrong advertised.listeners does.
        listeners=LISTENERS,
        ports=ports,
        scram_users=[("SCRAM-SHA-256", USER, PASSWORD), ("SCRAM-SHA-512", USER, PASSWORD)],
        extra_properties={
            f"{listener}sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
            f"{listener}scram-sha-256.sasl.jaas.config": SCRAM,
            f"{listener}scram-sha-512.sasl.jaas.config": SCRAM,
            f"{listener}ssl.keystore.type": "PEM",
            f"{listener}ssl.keystore.location": str(authority.broker),
            f"{listener}ssl.truststore.type": "PEM",
            f"{listener}ssl.truststore.location": str(authority.ca),
            f"{listener}ssl.client.auth": "required",
            "listener.name.plain_ssl.sasl.enabled.mechanisms": "PLAIN",
            "listener.name.plain_ssl.plain.sasl.jaas.config": (
                "org.apache.kafka.common.security.plain.PlainLoginModule required "
                f'user_{USER}="{PASSWORD}";'
            ),
            "listener.name.plain_ssl.ssl.keystore.type": "PEM",
            "listener.name.plain_ssl.ssl.keystore.location": str(authority.broker),
            "advertised.listeners": ",".join(
                f"{name}://{host}:{ports[name]}" for name, host in advertised.items()
            ),
        },
    )
    with broker.start():
        yield Secured(broker, authority, root)


def wavematch(
    config: Path, *args: str, timeout_s: float = 60, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if k not in FAUST_ENV and k != "WAVEMATCH_BROKER_URL"
    }
    env["WAVEMATCH_CONFIG_FILE"] = str(config)
    return subprocess.run(
        [sys.executable, "-m", "streams.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout_s,
    )


def start_worker(config: Path, log: Path) -> Worker:
    port = free_port()
    process = wavematch_process(
        ["worker", "--web-port", str(port)], log, WAVEMATCH_CONFIG_FILE=str(config)
    )
    worker = Worker(process, f"http://127.0.0.1:{port}", log)
    try:
        wait_until(
            worker.partitions, 90, f"worker ready ({log})", alive=lambda: process.poll() is None
        )
    except AssertionError:
        worker.stop()
        raise
    return worker


def test_a_worker_join_and_tail_make_a_match_over_sasl_ssl(
    secured: Secured, tmp_path: Path
) -> None:
    config = secured.config("good", app_id="secured")
    worker = start_worker(config, tmp_path / "worker.log")
    try:
        tickets = []
        for player in ("alice:bw=1500", "bob:sc2=1510"):
            joined = wavematch(
                config, "join", "--queue", "1v1", "--region", "eu", "--player", player
            )
            assert joined.returncode == 0, joined.stderr
            tickets.append(joined.stdout.strip())
        match = tail_until_match(config, set(tickets))
        assert match["type"] == "MatchCreated"
    finally:
        worker.stop()
    log = worker.log.read_text()
    assert "Traceback" not in log
    assert PASSWORD not in log


def tail_until_match(config: Path, tickets: set[str], timeout_s: float = 60) -> dict[str, object]:
    """`wavematch tail matches --from-beginning` until the match of ``tickets`` (earlier
    tests' matches are in the same topic)."""
    env = {k: v for k, v in os.environ.items() if k not in FAUST_ENV}
    env["WAVEMATCH_CONFIG_FILE"] = str(config)
    tail = subprocess.Popen(
        [sys.executable, "-m", "streams.cli", "tail", "matches", "--from-beginning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout_s
    try:
        assert tail.stdout is not None
        while select.select([tail.stdout], [], [], max(0.0, deadline - time.monotonic()))[0]:
            line = tail.stdout.readline()
            if not line:
                break  # tail exited: its error is in stderr
            event = json.loads(line)
            seated = {seat["ticket_id"] for team in event["teams"] for seat in team["players"]}
            if seated == tickets:
                return dict(event)
    finally:
        stop_process(tail, 10)
    raise AssertionError(f"no match of {sorted(tickets)} from wavematch tail: {tail.stderr.read()}")


REFUSALS = {
    # name: (settings changed, the setting the line must name, what the broker answered)
    "wrong password": (
        {"sasl_password": "wrong", "sasl_password_file": None},
        "sasl_username/sasl_password",
        "SaslAuthenticationFailed",
    ),
    "unknown CA": ({"ssl_cafile": "OTHER_CA"}, "ssl_cafile", "CERTIFICATE_VERIFY_FAILED"),
    "wrong mechanism": (
        {"sasl_mechanism": "PLAIN"},
        "sasl_mechanism",
        "UNSUPPORTED_SASL_MECHANISM",
    ),
    "plaintext to a TLS listener": (
        {
            "security_protocol": "PLAINTEXT",
            **dict.fromkeys(
                ("sasl_mechanism", "sasl_username", "sasl_password_file", "ssl_cafile"), None
            ),
            **dict.fromkeys(("ssl_certfile", "ssl_keyfile"), None),
        },
        "security_protocol",
        "closed",
    ),
}

COMMANDS = {
    "join": ("join", "--queue", "1v1", "--region", "eu", "--player", "zoe:bw=1500"),
    "leave": ("leave", "--queue", "1v1", "--region", "eu", "--ticket", "t-1"),
    "tail": ("tail", "matches", "--idle-timeout", "30"),
    "export": ("export", "--output", "out.avro"),
    "replay": ("replay", "--quiet"),
    "worker": ("worker", "--without-web"),
}


def refused_config(secured: Secured, name: str) -> Path:
    changes, _, _ = REFUSALS[name]
    if changes.get("ssl_cafile") == "OTHER_CA":
        changes = {**changes, "ssl_cafile": str(make_authority(secured.root / "other").ca)}
    config = secured.config(name.replace(" ", "-"), **changes)
    drop_unset(config)
    return config


def drop_unset(config: Path) -> None:
    """None drops a line of the settings file: the setting is then unset."""
    kept = [line for line in config.read_text().splitlines() if not line.endswith("= null")]
    config.write_text("\n".join(kept) + "\n")


def assert_refused_in_one_line(done: subprocess.CompletedProcess[str], name: str, took: float):
    _, setting, answer = REFUSALS[name]
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert took < 15, f"took {took:.1f} s"
    assert "Traceback" not in done.stderr
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"wavematch {done.args[3]}: error: {setting}: "), lines[0]
    assert answer in lines[0], lines[0]


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_a_refused_connection_is_one_line_naming_the_setting(secured: Secured, name: str) -> None:
    config = refused_config(secured, name)
    started = time.monotonic()
    done = wavematch(config, *COMMANDS["join"])
    assert_refused_in_one_line(done, name, time.monotonic() - started)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_says_so_too(secured: Secured, tmp_path: Path, command: str) -> None:
    config = refused_config(secured, "wrong password")
    started = time.monotonic()
    done = wavematch(config, *COMMANDS[command], cwd=tmp_path)
    assert_refused_in_one_line(done, "wrong password", time.monotonic() - started)


@pytest.mark.parametrize(
    ("listener", "mechanism"),
    [("SECURED", "SCRAM-SHA-256"), ("SECURED", "SCRAM-SHA-512"), ("PLAIN_SSL", "PLAIN")],
)
def test_each_mechanism_creates_topics_and_publishes(
    secured: Secured, listener: str, mechanism: str
) -> None:
    """Topic creation (the admin client) and `wavematch join` with each SASL mechanism;
    PLAIN_SSL asks for no client certificate, so none is configured there."""
    changes: dict[str, str | None] = {
        "broker_url": secured.listener_url(listener),
        "sasl_mechanism": mechanism,
    }
    if listener == "PLAIN_SSL":
        changes |= {"ssl_certfile": None, "ssl_keyfile": None}
    config = secured.config(f"{listener}-{mechanism}", **changes)  # type: ignore[arg-type]
    drop_unset(config)
    settings = load_settings(config)
    created = asyncio.run(asyncio.wait_for(ensure_topics(settings), 60))
    assert isinstance(created, list)  # topics of earlier tests may exist already
    joined = wavematch(config, *COMMANDS["join"])
    assert joined.returncode == 0, joined.stderr
    assert joined.stdout.startswith("t-")


def test_a_broker_advertising_an_unreachable_address_is_one_line(secured: Secured) -> None:
    """The bootstrap server answers, the broker it names cannot be reached: the command
    gives up at its timeout with one line and aiokafka's reason, not a retry log."""
    config = secured.config(
        "misadvertised",
        broker_url=secured.listener_url("MISADVERTISED"),
        **dict.fromkeys(
            (
                "security_protocol",
                "sasl_mechanism",
                "sasl_username",
                "sasl_password_file",
                "ssl_cafile",
                "ssl_certfile",
                "ssl_keyfile",
            ),
            None,
        ),
    )
    drop_unset(config)
    started = time.monotonic()
    done = wavematch(config, *COMMANDS["join"])
    took = time.monotonic() - started
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("wavematch join: error: broker_url: "), lines[0]
    assert "127.0.0.2" in lines[0], lines[0]
    assert took < 30, f"took {took:.1f} s"
