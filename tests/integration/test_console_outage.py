"""The console while its worker's broker is down: each page is a 503 saying so in one
line, with ``Retry-After``, and the worker logs no traceback and no client left open for
it (an outside try: a 500, thirty lines of traceback and "Unclosed AIOKafkaConsumer" per
page load)."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.integration.conftest import wait_until, worker_behind
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
    with worker_behind(cuttable, tmp_path) as (web, log, alive):
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
