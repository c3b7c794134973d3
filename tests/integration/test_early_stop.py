"""A worker stopped by Ctrl-C in its first seconds, while its tasks wait for the
configuration topic, closes its producer and consumers: no "Unclosed AIOKafkaProducer",
"Unclosed AIOKafkaConsumer" or "Unclosed AIOKafkaConnection" (a client cut off while it
bootstraps, aio-libs/aiokafka#715), nor any other error (an outside try: its clients
were left to the garbage collector)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from streams.embedded.broker import EmbeddedBroker, free_port
from streams.processes import stop_process
from tests.integration.conftest import DEFAULT_CONFIG, wait_until, wavematch_process

pytestmark = pytest.mark.integration

#: Faust's line as the worker's tasks start: the window in which the stop used to leak.
TASKS_STARTING = "Waiting for tables to be registered"


def test_a_ctrl_c_in_the_first_seconds_logs_no_error(tmp_path: Path) -> None:
    config = tmp_path / "wavematch.toml"
    config.write_text(DEFAULT_CONFIG)
    with EmbeddedBroker(log_path=tmp_path / "broker.log") as broker:
        for attempt in range(3):  # the window is short: each try stops in it once
            log = tmp_path / f"worker-{attempt}.log"
            log.write_text("")
            worker = wavematch_process(
                ["worker", "--broker", broker.url, "--web-port", str(free_port())],
                log,
                WAVEMATCH_CONFIG_FILE=str(config),
            )
            try:
                wait_until(
                    lambda: TASKS_STARTING in log.read_text(),  # noqa: B023
                    90,
                    f"the worker's tasks ({log})",
                    alive=lambda: worker.poll() is None,  # noqa: B023
                    interval_s=0.02,
                )
                worker.send_signal(signal.SIGINT)
                try:
                    worker.wait(30)
                except subprocess.TimeoutExpired:
                    worker.send_signal(signal.SIGUSR1)  # Faust logs every task's stack
                    time.sleep(2)
                    tail = "\n".join(log.read_text().splitlines()[-200:])
                    pytest.fail(f"the worker did not stop within 30 s of Ctrl-C:\n{tail}")
            finally:
                stop_process(worker, 30)
            errors = [line for line in log.read_text().splitlines() if "[ERROR]" in line]
            assert errors == [], "\n".join(errors)
