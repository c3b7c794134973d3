"""A same-game 1v1 ladder in a real worker: joins with one rating per player
(``{"mmr": 1500}``) are accepted and matched within the queue's max_distance, a join
without that rating is rejected with the reason, and a player with no partner within
the limit is never matched (the ticket expires)."""

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
name = "ladder"
strategy = "optimal"
regions = ["eu"]
wave_interval_ms = 1000
[queues.rules]
rating = "mmr"
max_distance = 100
"""

#: Two pairs within 100 (80 apart: outside the pressure window of a first wave, so the
#: rule, not the window, decides) and one player 900 from anyone.
MMR = {"m0": 1000, "m1": 1080, "m2": 2000, "m3": 2060, "m4": 2900}


def join(ticket_id: str, ratings: dict[str, int]) -> tuple[bytes, bytes]:
    body = {
        "type": "TicketJoined",
        "ticket_id": ticket_id,
        "queue": "ladder",
        "region": "eu",
        "joined_at_ms": int(time.time() * 1000),
        "players": [{"player_id": f"p-{ticket_id}", "ratings": ratings}],
    }
    return queue_key("ladder", "eu"), json.dumps(body).encode()


@pytest.mark.wavematch_config(CONFIG)
def test_a_worker_runs_a_mirror_ladder_on_one_rating_per_player(broker, worker_factory):
    worker = worker_factory.start()
    events = [join(ticket, {"mmr": mmr}) for ticket, mmr in MMR.items()]
    events.append(join("bw-only", {"bw": 1500}))
    produce(broker.bootstrap, events)

    def ended() -> dict[str, object]:
        return {
            d.ticket_id: d
            for r in read_topic(broker.bootstrap, "wavematch.cleanup.v1", 0.3)
            if (d := decode(r.value))
        }

    alive = lambda: worker.process.poll() is None  # noqa: E731
    everyone = {*MMR, "bw-only"}
    wait_until(lambda: set(ended()) >= everyone, 60, "every ticket to end", alive=alive)
    cleanup = ended()
    assert cleanup["bw-only"].reason.value == "REJECTED"
    assert cleanup["bw-only"].detail == "player p-bw-only has no 'mmr' rating"
    assert cleanup["m4"].reason.value == "EXPIRED"
    matches = [decode(r.value) for r in read_topic(broker.bootstrap, "wavematch.matches.v1")]
    pairs = sorted(
        sorted(seat.player_id for team in match.teams for seat in team.players) for match in matches
    )
    assert pairs == [["p-m0", "p-m1"], ["p-m2", "p-m3"]]
    for match in matches:
        assert [team.name for team in match.teams] == ["team1", "team2"]
        ratings = [seat.rating for team in match.teams for seat in team.players]
        assert abs(ratings[0] - ratings[1]) <= 100, ratings
    assert read_topic(broker.bootstrap, "wavematch.deadletter.v1", 0.3) == []
