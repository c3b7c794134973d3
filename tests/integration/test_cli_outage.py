"""`join --wait` and `tail --timeout` whose broker goes away while they wait end as they
would without it, in their one line: the Kafka client's CancelledError, raised as it
closed, was a traceback instead (an outside try)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest

from streams.settings import load_settings
from streams.topics import ensure_topics
from tests.integration.conftest import ROOT
from tests.integration.outage import CuttableBroker

pytestmark = pytest.mark.integration


def cut_while_running(cuttable: CuttableBroker, *args: str) -> subprocess.CompletedProcess[str]:
    """`wavematch <args>` on ``cuttable``, its broker cut 3 s after the start."""
    asyncio.run(ensure_topics(load_settings(broker_url=cuttable.url)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAVEMATCH_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "streams.cli", *args, "--broker", cuttable.url],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        time.sleep(3)
        cuttable.cut()
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_join_wait_prints_the_ticket_and_no_verdict_when_the_broker_goes(
    cuttable: CuttableBroker,
) -> None:
    place = ["--queue", "1v1", "--region", "eu", "--player", "a:bw=1500"]
    done = cut_while_running(cuttable, "join", *place, "--ticket", "t-cut", "--wait", "8")
    assert "Traceback" not in done.stderr and "Unclosed" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout == f"t-cut NO VERDICT within 8 s (broker {cuttable.bootstrap} unreachable)\n"


def test_tail_ends_at_its_timeout_when_the_broker_goes(cuttable: CuttableBroker) -> None:
    done = cut_while_running(
        cuttable, "tail", "matches", "--last", "0", "--count", "5", "--timeout", "15"
    )
    assert "Traceback" not in done.stderr and "Unclosed" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == "wavematch tail: 0 of 5 events within 15 s"
