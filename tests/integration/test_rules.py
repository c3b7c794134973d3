"""A queue's rules in a real worker: joins rated on the queue's rating key, matches that
respect its spread limit, a ticket that can never fit rejected with the reason, and the
same matches re-derived by a replay."""

from __future__ import annotations

import json
import time

import pytest

from schemas.codec import decode
from schemas.topics import queue_key
from tests.integration.conftest import wait_until
from tests.integration.kafka import produce, read_topic

pytestmark = pytest.mark.integration

CONFIG = """
partitions = 2
ticket_ttl_ms = 8000
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "2v2"
strategy = "rebalance"
team_size = 2
regions = ["eu"]
wave_interval_ms = 1000
[queues.rules]
rating = "mmr"
max_spread = 300
"""

#: Two clusters of four players 2,000 apart (each fills one 2v2 within the spread), and
#: one player rated only on another key.
MMR = [1000, 1100, 1200, 1250, 3000, 3050, 3100, 3290]


def join(number: int, ratings: dict[str, int]) -> tuple[bytes, bytes]:
    body = {
        "type": "TicketJoined",
        "ticket_id": f"r{number}",
        "queue": "2v2",
        "region": "eu",
        "joined_at_ms": int(time.time() * 1000),
        "players": [{"player_id": f"rp{number}", "ratings": ratings}],
    }
    return queue_key("2v2", "eu"), json.dumps(body).encode()


@pytest.mark.wavematch_config(CONFIG)
def test_a_worker_honours_the_queue_rules(broker, worker_factory):
    worker = worker_factory.start()
    # Every player's best rating is "elo", far from "mmr": only the rating key groups them.
    events = [join(i, {"mmr": mmr, "elo": 9000 - mmr}) for i, mmr in enumerate(MMR)]
    events.append(join(99, {"elo": 1500}))
    produce(broker.bootstrap, events)

    def ended() -> set[str]:
        return {
            decode(r.value).ticket_id
            for r in read_topic(broker.bootstrap, "wavematch.cleanup.v1", 0.3)
        }

    everyone = {f"r{i}" for i in range(len(MMR))} | {"r99"}
    alive = lambda: worker.process.poll() is None  # noqa: E731
    wait_until(lambda: ended() >= everyone, 60, "every ticket to end", alive=alive)
    cleanup = {
        d.ticket_id: d
        for r in read_topic(broker.bootstrap, "wavematch.cleanup.v1")
        if (d := decode(r.value))
    }
    assert cleanup["r99"].reason.value == "REJECTED"
    assert cleanup["r99"].detail == "player rp99 has no 'mmr' rating"
    matches = [decode(r.value) for r in read_topic(broker.bootstrap, "wavematch.matches.v1")]
    assert len(matches) == 2
    for match in matches:
        ratings = [seat.rating for team in match.teams for seat in team.players]
        assert max(ratings) - min(ratings) <= 300, ratings
        assert set(ratings) <= set(MMR)
    letters = read_topic(broker.bootstrap, "wavematch.deadletter.v1", 0.3)
    assert letters == []
