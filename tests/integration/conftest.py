"""Real parts: a broker (the embedded one, or Apache Kafka) and real worker processes,
started on free ports and stopped by PID. Tests drive them only through Kafka, with
ordinary clients."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from streams.embedded.broker import EmbeddedBroker, free_port
from streams.processes import stop_process
from tests.integration.outage import CuttableBroker
from tests.kafka.broker import KafkaBroker, empty_broker

ROOT = Path(__file__).resolve().parents[2]

#: Faust reads these from the environment over its arguments; tests never inherit them.
FAUST_ENV = ("BROKER_URL", "WEB_PORT", "WEB_HOST", "APP_DATADIR", "STORE", "F_DATADIR")


def wavematch_process(
    args: list[str], log: Path, cwd: Path = ROOT, **env: str
) -> subprocess.Popen[bytes]:
    """`wavematch <args>` in a session of its own (stopped by PID), its output appended to
    ``log``; the environment has ``env`` but none of Faust's overriding variables and no
    broker URL (the test's settings say where the broker is), and a worker's local data
    beside ``log`` unless ``env`` or ``args`` say where (never in the home directory)."""
    clean = {
        k: v for k, v in os.environ.items() if k not in FAUST_ENV and k != "WAVEMATCH_BROKER_URL"
    }
    clean["WAVEMATCH_DATA_DIR"] = str(log.parent / f"{log.stem}-data")
    return subprocess.Popen(
        [sys.executable, "-m", "streams.cli", *args],
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        cwd=cwd,
        env=clean | env,
        start_new_session=True,
    )


#: A broker as the tests use it: ``bootstrap`` for plain clients, ``url`` for wavematch.
AnyBroker = EmbeddedBroker | KafkaBroker


@pytest.fixture(params=["tansu", "kafka"])
def broker(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AnyBroker]:
    """Every integration test runs on the embedded broker (a fresh one per test) and on
    Apache Kafka (the session's broker, emptied of topics and groups before the test)."""
    if request.param == "tansu":
        with EmbeddedBroker(log_path=tmp_path / "broker.log") as running:
            yield running
    else:
        kafka: KafkaBroker = request.getfixturevalue("kafka_broker")
        empty_broker(kafka.bootstrap)
        yield kafka


@pytest.fixture
def cuttable(tmp_path: Path) -> Iterator[CuttableBroker]:
    """The embedded broker behind a proxy a test can cut and restore (outage.py)."""
    broker = CuttableBroker(tmp_path / "broker.log").start()
    try:
        yield broker
    finally:
        broker.stop()


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    web: str
    log: Path

    def partitions(self) -> list[int] | None:
        try:
            with urllib.request.urlopen(f"{self.web}/health", timeout=2) as response:
                return list(json.load(response)["partitions"])
        except OSError:
            return None

    def queues(self) -> list[dict[str, object]]:
        with urllib.request.urlopen(f"{self.web}/queues", timeout=5) as response:
            return list(json.load(response)["queues"])

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 30.0) -> None:
        stop_process(self.process, timeout_s, sig)


@dataclass
class WorkerFactory:
    broker: AnyBroker
    config: Path
    tmp_path: Path
    started: list[Worker] = field(default_factory=list)

    def start(self, wait_ready: bool = True, timeout_s: float = 90.0) -> Worker:
        port = free_port()
        log = self.tmp_path / f"worker-{len(self.started)}.log"
        process = wavematch_process(
            ["worker", "--broker", self.broker.url, "--web-port", str(port)],
            log,
            WAVEMATCH_CONFIG_FILE=str(self.config),
        )
        worker = Worker(process, f"http://127.0.0.1:{port}", log)
        self.started.append(worker)
        if wait_ready:
            wait_until(
                lambda: worker.partitions(),
                timeout_s,
                f"worker ready ({log})",
                alive=lambda: process.poll() is None,
            )
        return worker

    def stop_all(self) -> None:
        for worker in self.started:
            worker.stop()


def wait_until(predicate, timeout_s: float, what: str, alive=lambda: True, interval_s: float = 0.2):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not alive():
            raise AssertionError(f"process died while waiting for {what}")
        value = predicate()
        if value:
            return value
        time.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def sigkill_one_of_two_under_traffic(broker: AnyBroker, worker_factory, traffic):
    """Two workers share the partitions while ``traffic.run(bootstrap, stop)`` publishes;
    one is SIGKILLed and the survivor takes every partition over; then traffic stops.
    Returns the survivor (the killed worker owned partitions: asserted)."""
    first, second = worker_factory.start(), worker_factory.start()
    wait_until(
        lambda: all(set(w.partitions() or ()) for w in (first, second)),
        90,
        "both workers to own partitions",
    )
    stop = threading.Event()
    producer = threading.Thread(target=traffic.run, args=(broker.bootstrap, stop), daemon=True)
    producer.start()
    try:
        time.sleep(6)
        wait_until(
            lambda: all(set(w.partitions() or ()) for w in (first, second)),
            60,
            "both workers to own partitions again",
        )
        killed = set(second.partitions() or ())
        second.stop(signal.SIGKILL)
        wait_until(
            lambda: first.partitions() == list(range(8)),
            60,
            "the survivor to take every partition over",
            alive=lambda: first.process.poll() is None,
        )
        time.sleep(4)
    finally:
        stop.set()
        producer.join(30)
    assert killed, "the killed worker owned no partition: the test proved nothing"
    return first


@contextmanager
def running_up(
    args: list[str], log: Path, cwd: Path, state_dir: Path, state_name: str = "up.json"
) -> Iterator[tuple[subprocess.Popen[bytes], dict[str, Any]]]:
    """`wavematch <args>` (an `up`) with its state file in ``state_dir``: the process and
    its state file as read, once its worker owns partitions; stopped by PID on the way
    out."""
    process = wavematch_process(args, log, cwd, WAVEMATCH_STATE_DIR=str(state_dir))
    alive = lambda: process.poll() is None  # noqa: E731
    state_file = state_dir / state_name
    try:
        wait_until(state_file.exists, 60, f"wavematch up ({log})", alive)
        state = json.loads(state_file.read_text())
        web = state["web"][0]

        def ready() -> bool:
            try:
                with urllib.request.urlopen(f"{web}/health", timeout=2) as response:
                    return bool(json.load(response)["partitions"])
            except OSError:
                return False

        wait_until(ready, 90, f"worker ready ({log})", alive)
        yield process, state
    finally:
        stop_process(process, 30)


def write_config(path: Path, body: str) -> Path:
    path.write_text(body)
    return path


@pytest.fixture
def worker_factory(broker: AnyBroker, tmp_path: Path, request) -> Iterator[WorkerFactory]:
    marker = request.node.get_closest_marker("wavematch_config")
    body = marker.args[0] if marker else DEFAULT_CONFIG
    config = write_config(tmp_path / "wavematch.toml", body)
    factory = WorkerFactory(broker, config, tmp_path)
    yield factory
    factory.stop_all()


DEFAULT_CONFIG = """
partitions = 4
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "na", "asia"]
wave_interval_ms = 1000
"""


@contextmanager
def worker_behind(cuttable: CuttableBroker, tmp_path: Path) -> Iterator[tuple[str, Path, Any]]:
    """A `wavematch worker` of DEFAULT_CONFIG whose broker is reached through ``cuttable``
    (its topics created first): its web URL, its log and whether it still runs."""
    from streams.settings import load_settings
    from streams.topics import ensure_topics

    config = tmp_path / "wavematch.toml"
    config.write_text(DEFAULT_CONFIG)
    asyncio.run(ensure_topics(load_settings(config, broker_url=cuttable.url)))
    log, port = tmp_path / "worker.log", free_port()
    worker = wavematch_process(
        ["worker", "--broker", cuttable.url, "--web-port", str(port)],
        log,
        WAVEMATCH_CONFIG_FILE=str(config),
    )
    try:
        yield f"http://127.0.0.1:{port}", log, lambda: worker.poll() is None
    finally:
        stop_process(worker, 30)


def run(coroutine):
    return asyncio.new_event_loop().run_until_complete(coroutine)
