"""A size-triggered queue on a real worker and the embedded broker (docs/adr/0183): with a
60 s interval, two joins are matched within about two seconds, by a tick in the log."""

from __future__ import annotations

import random
import time

import pytest

from schemas.codec import decode
from schemas.models import MatchCreated, WaveClosed, WaveTick
from schemas.topics import MATCHES, QUEUE, WAVES, queue_key
from tests.integration.conftest import wait_until
from tests.integration.kafka import produce, read_topic
from tests.integration.traffic import join_body

pytestmark = pytest.mark.integration

CONFIG = """
partitions = 2
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu"]
wave_interval_ms = 60000
cadence = "size"
size_trigger_tickets = 2
size_floor_ms = 250
"""


@pytest.mark.parametrize("broker", ["tansu"], indirect=True)
@pytest.mark.wavematch_config(CONFIG)
def test_two_joins_meet_within_seconds_despite_a_minute_long_interval(broker, worker_factory):
    worker = worker_factory.start()
    rng = random.Random(37)
    key = queue_key("1v1", "eu")
    joined = int(time.time() * 1000)
    produce(broker.bootstrap, [(key, join_body("a", "eu", rng, joined, ratings={"bw": 1500}))])
    time.sleep(1.0)  # the first join alone: below the trigger, nothing closes
    second = int(time.time() * 1000)
    produce(broker.bootstrap, [(key, join_body("b", "eu", rng, second, ratings={"sc2": 1500}))])

    def matches() -> list[MatchCreated]:
        records = read_topic(broker.bootstrap, MATCHES.name, 0.3)
        return [m for r in records if isinstance(m := decode(r.value), MatchCreated)]

    alive = lambda: worker.process.poll() is None  # noqa: E731
    (match,) = wait_until(matches, 20, "the pair's match", alive=alive)
    assert {seat.ticket_id for team in match.teams for seat in team.players} == {"a", "b"}

    waves = [decode(r.value) for r in read_topic(broker.bootstrap, WAVES.name)]
    closed = [w for w in waves if isinstance(w, WaveClosed) and w.matches]
    assert [w.wave_id for w in closed] == [match.wave_id]
    # Closed about when the second join arrived, not on the minute's grid.
    assert second <= closed[0].closed_at_ms < second + 2_000
    binary = [
        r.value
        for r in read_topic(broker.bootstrap, QUEUE.name)  # the joins are JSON
        if r.value[:1] == b"\xc3"
    ]
    ticks = [
        t
        for value in binary
        if isinstance(t := decode(value), WaveTick) and t.wave_id == match.wave_id
    ]
    assert len(ticks) == 1 and second <= ticks[0].tick_at_ms < second + 2_000
