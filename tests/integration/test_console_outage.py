"""The console while its worker's broker is down: each page is a 503 saying so in one
line, with ``Retry-After``, and the worker logs no traceback and no client left open for
it (an outside try: a 500, thirty lines of traceback and "Unclosed AIOKafkaConsumer" per
page load)."""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from streams.embedded.broker import free_port
from streams.processes import stop_process
from streams.settings import load_settings
from streams.topics import ensure_topics
from tests.integration.conftest import DEFAULT_CONFIG, wait_until, wavematch_process
from tests.integration.outage import CuttableBroker

pytestmark = pytest.mark.integration

PAGES = ("/console", "/console/ticket?id=t-1", "/console/match?id=m-1")


def answered(url: str) -> tuple[int, str, str]:
    """Status, ``Retry-After`` and body of a GET that may be refused with an HTTP error."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return (
                response.status,
                response.headers.get("Retry-After", ""),
                response.read().decode(),
            )
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Retry-After", ""), error.read().decode()


def ready(web: str) -> bool:
    try:
        return answered(f"{web}/health")[0] == 200
    except OSError:  # not listening yet
        return False


def test_console_pages_say_the_broker_is_unreachable(
    cuttable: CuttableBroker, tmp_path: Path
) -> None:
    config = tmp_path / "wavematch.toml"
    config.write_text(DEFAULT_CONFIG)
    asyncio.run(ensure_topics(load_settings(config, broker_url=cuttable.url)))
    log, port = tmp_path / "worker.log", free_port()
    worker = wavematch_process(
        ["worker", "--broker", cuttable.url, "--web-port", str(port)],
        log,
        WAVEMATCH_CONFIG_FILE=str(config),
    )
    web = f"http://127.0.0.1:{port}"
    alive = lambda: worker.poll() is None  # noqa: E731
    try:
        wait_until(lambda: ready(web), 90, f"worker ({log})", alive)
        assert answered(f"{web}/console")[0] == 200
        cuttable.cut()
        before = len(log.read_text().splitlines())
        for page in PAGES:
            status, retry_after, body = answered(f"{web}{page}")
            assert (status, retry_after) == (503, "10"), (page, body)
            assert f"the broker {cuttable.bootstrap} is unreachable: retry" in body, body
        time.sleep(2)  # a client left open is reported when it is collected
        said = "\n".join(log.read_text().splitlines()[before:])
        assert "Traceback" not in said and "Unclosed" not in said, said
    finally:
        stop_process(worker, 30)
