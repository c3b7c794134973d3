"""A wave longer than the group's session timeout keeps its worker in the group: it
closes on a thread while the consumer heartbeats from the event loop. On the loop, the
worker was evicted at the wave's end, its commit failed and its partitions were taken
back and handed out again (with two workers, the wave's region moved and its wave ran
again elsewhere). A large wave closes there (docs/adr/0216), and so does every wave of a
plug-in strategy, however small (docs/adr/0217)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from schemas.codec import decode
from schemas.topics import queue_key
from streams.worker.queue_worker import OFF_LOOP_TICKETS
from tests.integration.conftest import ROOT, WorkerFactory, wait_until
from tests.integration.kafka import json_join, produce, read_topic

pytestmark = pytest.mark.integration

SESSION_TIMEOUT_S = 6
CONFIG = f"""
partitions = 2
session_timeout_ms = {SESSION_TIMEOUT_S * 1000}
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu"]
wave_interval_ms = 2000
"""

#: Joined at once: however ticks split them, one wave has enough to close off the loop.
PLAYERS = 2 * OFF_LOOP_TICKETS + 88


def matched(bootstrap: str) -> list[str]:
    """The players of every match published so far."""
    records = read_topic(bootstrap, "wavematch.matches.v1", 0.3)
    return [
        seat.player_id for r in records for team in decode(r.value).teams for seat in team.players
    ]


def stays_in_its_group(worker: Any, hook: str) -> None:
    """The long wave ran (the test hook said so) and the worker kept its partitions:
    assigned once, no failed commit, no failed heartbeat, a session timeout after it."""
    time.sleep(SESSION_TIMEOUT_S)  # an eviction at the wave's end would show by now
    log = worker.log.read_text()
    assert hook in log, "no wave was long: the test proved nothing"
    assert log.count("queue partitions assigned") == 1, log[-4000:]
    assert "commit of" not in log and "Heartbeat failed" not in log, log[-4000:]


@pytest.mark.parametrize("broker", ["kafka"], indirect=True)  # sessions expire on Kafka
@pytest.mark.wavematch_config(CONFIG)
def test_a_wave_longer_than_the_session_timeout_keeps_the_worker_in_its_group(
    broker, worker_factory: WorkerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "tests" / "integration" / "slow_wave"))
    monkeypatch.setenv("SLOW_WAVE_TEST_S", str(SESSION_TIMEOUT_S + 4))
    monkeypatch.setenv("SLOW_WAVE_TEST_TICKETS", str(OFF_LOOP_TICKETS))
    worker = worker_factory.start()
    key = queue_key("1v1", "eu")
    produce(
        broker.bootstrap,
        [(key, json_join(f"t{i}", "bw" if i % 2 else "sc2")) for i in range(PLAYERS)],
    )
    alive = lambda: worker.process.poll() is None  # noqa: E731
    wait_until(
        lambda: len(matched(broker.bootstrap)) >= PLAYERS,
        90,
        "the long wave's matches",
        alive=alive,
    )
    stays_in_its_group(worker, "test hook: a wave of")
    players = matched(broker.bootstrap)
    assert len(players) == len(set(players)) == PLAYERS


#: The same worker, its queue run by a plug-in strategy (the test hook's).
PLUG_IN_CONFIG = CONFIG.replace(
    'name = "1v1"\nstrategy = "optimal"', 'name = "duo"\nstrategy = "test-slow-pairs"'
)
assert "test-slow-pairs" in PLUG_IN_CONFIG


@pytest.mark.parametrize("broker", ["kafka"], indirect=True)
@pytest.mark.wavematch_config(PLUG_IN_CONFIG)
def test_a_plug_in_s_slow_small_wave_keeps_the_worker_in_its_group(
    broker, worker_factory: WorkerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "tests" / "integration" / "slow_wave"))
    monkeypatch.setenv("SLOW_PLUGIN_TEST_S", str(SESSION_TIMEOUT_S + 4))
    worker = worker_factory.start()
    key = queue_key("duo", "eu")
    produce(broker.bootstrap, [(key, json_join(f"t{i}", queue="duo")) for i in range(4)])
    alive = lambda: worker.process.poll() is None  # noqa: E731
    wait_until(
        lambda: len(matched(broker.bootstrap)) >= 4, 60, "the plug-in's matches", alive=alive
    )
    stays_in_its_group(worker, "test hook: a plug-in's wave of")
    assert sorted(matched(broker.bootstrap)) == [f"p-t{i}" for i in range(4)]
