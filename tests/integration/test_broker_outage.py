"""A broker outage of a minute costs a few log lines, shows in a gauge, and the worker
resumes by itself (issue 33). The broker is the embedded one behind a proxy that is cut
and restored on the same port (tests/integration/outage.py)."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

from streams.worker.outage import CLIENT_NOISE
from tests.integration.conftest import wait_until, worker_behind
from tests.integration.outage import CuttableBroker

OUTAGE_S = 60
#: One line when it goes, a reminder, one when it is back, and a couple of the clients'
#: own lines (reconnecting to the group coordinator) around them.
MOST_LINES = 10


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


def waves(web: str) -> dict[str, int]:
    """Waves closed per region; none while the worker's web server is not up yet."""
    try:
        rows = json.loads(get(f"{web}/queues"))["queues"]
    except OSError:
        return {}
    return {row["region"]: row["waves_closed"] for row in rows}


def broker_up(web: str) -> float:
    for line in get(f"{web}/metrics").splitlines():
        if line.startswith("wavematch_broker_up "):
            return float(line.split()[1])
    raise AssertionError("no wavematch_broker_up in /metrics")


def test_a_minute_without_the_broker(cuttable: CuttableBroker, tmp_path: Path) -> None:
    with worker_behind(cuttable, tmp_path) as (web, log, alive):
        wait_until(
            lambda: len(waves(web)) == 3 and min(waves(web).values()) >= 2,
            90,
            f"waves before the outage ({log})",
            alive,
        )
        assert broker_up(web) == 1
        before = len(log.read_text().splitlines())
        cuttable.cut()
        wait_until(lambda: broker_up(web) == 0, 15, "wavematch_broker_up 0", alive)
        time.sleep(OUTAGE_S)
        cuttable.restore()
        at_restore = waves(web)
        wait_until(
            lambda: all(waves(web)[r] > at_restore[r] for r in at_restore),
            60,
            f"waves in every region after the outage ({log})",
            alive,
        )
        wait_until(lambda: broker_up(web) == 1, 15, "wavematch_broker_up 1", alive)
        time.sleep(5)  # what the clients say once reconnected is part of the outage's cost
        said = log.read_text().splitlines()[before:]
        assert len(said) <= MOST_LINES, "\n".join(said[:40])
        text = "\n".join(said)
        assert "unreachable" in text and "reachable again" in text
    # Failed requests of the outage are logged again when their futures are collected at exit.
    # At most two of the clients' records get through (one per minute): about four lines.
    lines = log.read_text().splitlines()[before:]
    noise = [line for line in lines if CLIENT_NOISE.search(line) and "reachable" not in line]
    assert len(noise) <= 4, "\n".join(noise[:40])
