"""One active ticket per player through a SIGKILL (docs/adr/0110): two workers, players
who each join two regions at once, one worker killed mid-run. No player may ever hold
two admitted tickets at once, no ticket may end twice, and the replay of the whole log
(claim records included) must be IDENTICAL."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict

import pytest
from confluent_kafka import Producer

from schemas import models as m
from schemas.codec import decode
from schemas.topics import QUEUE, queue_key
from tests.integration.conftest import sigkill_one_of_two_under_traffic, wait_until
from tests.integration.kafka import read_topic
from tests.integration.outcome import replayed
from tests.integration.traffic import REGIONS

pytestmark = pytest.mark.integration

CONFIG = f"""
partitions = 8
ticket_ttl_ms = 15000
session_timeout_ms = 6000
heartbeat_interval_ms = 500
one_ticket_per_player = true
[[queues]]
name = "1v1"
strategy = "optimal"
regions = {list(REGIONS)!r}
wave_interval_ms = 1000
"""


class TwoQueueTraffic:
    """Every tick, one new player joins two regions at the same instant (two tickets)."""

    def __init__(self, per_second: float) -> None:
        self.period_s = 1.0 / per_second
        self.tickets: dict[str, str] = {}  # ticket -> player
        self.lock = threading.Lock()

    def run(self, bootstrap: str, stop: threading.Event) -> None:
        producer = Producer(
            {"bootstrap.servers": bootstrap, "partitioner": "murmur2_random", "linger.ms": 5}
        )
        number = 0
        while not stop.is_set():
            player = f"p{number}"
            race = "bw" if number % 2 else "sc2"
            for suffix, region in (("a", REGIONS[number % 8]), ("b", REGIONS[(number + 3) % 8])):
                ticket = f"t{number}{suffix}"
                body = {
                    "type": "TicketJoined",
                    "ticket_id": ticket,
                    "queue": "1v1",
                    "region": region,
                    "joined_at_ms": int(time.time() * 1000),
                    "players": [{"player_id": player, "ratings": {race: 1500 + number % 300}}],
                }
                producer.produce(QUEUE.name, json.dumps(body).encode(), queue_key("1v1", region))
                with self.lock:
                    self.tickets[ticket] = player
            producer.poll(0)
            number += 1
            time.sleep(self.period_s)
        assert producer.flush(30) == 0


def overlapping_claims(records) -> list[str]:
    """Players granted to a second ticket before the first one's claim was released,
    read from the log alone: requests and releases in the player's partition, in order;
    which requests were granted, from the decisions in the regions' partitions."""
    granted = set()
    by_player: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for record in sorted(records, key=lambda r: (r.partition, r.offset)):
        value = record.value or b""
        if record.topic != QUEUE.name or value[:2] != b"\xc3\x01":
            continue
        event = decode(value)
        if isinstance(event, m.ClaimDecided) and event.granted:
            granted.add((event.player_id, event.ticket_id))
        elif isinstance(event, m.ClaimRequested):
            by_player[event.player_id].append(("request", event.ticket_id))
        elif isinstance(event, m.ClaimReleased):
            by_player[event.player_id].append(("release", event.ticket_id))
    overlaps = []
    for player, steps in by_player.items():
        holder = None
        for kind, ticket in steps:
            if kind == "release" and ticket == holder:
                holder = None
            elif kind == "request" and (player, ticket) in granted and ticket != holder:
                if holder is not None:
                    overlaps.append(f"{player}: {ticket} granted while {holder} held it")
                holder = ticket
    return overlaps


@pytest.mark.wavematch_config(CONFIG)
def test_claims_hold_through_a_sigkill_and_replay_identically(broker, worker_factory):
    traffic = TwoQueueTraffic(per_second=8)
    first = sigkill_one_of_two_under_traffic(broker, worker_factory, traffic)
    tickets = dict(traffic.tickets)
    assert len(tickets) > 100

    def ended() -> dict[str, set[bytes]]:
        out: dict[str, set[bytes]] = defaultdict(set)
        for r in read_topic(broker.bootstrap, "wavematch.cleanup.v1", 0.3):
            out[decode(r.value).ticket_id].add(r.value)
        return out

    endings = wait_until(
        lambda: (e := ended()).keys() >= tickets.keys() and e,
        120,
        "every ticket to end",
        alive=lambda: first.process.poll() is None,
    )
    assert not [t for t, values in endings.items() if len(values) > 1], "a ticket ended twice"
    reasons = defaultdict(list)
    for ticket, values in endings.items():
        reasons[tickets.get(ticket)].append(decode(next(iter(values))))
    refused = [
        d
        for ds in reasons.values()
        for d in ds
        if d.reason is m.DequeueReason.REJECTED and "already holds ticket" in (d.detail or "")
    ]
    assert len(refused) > len(tickets) // 4  # the second ticket of most players

    first.stop()  # no more ticks: the log and the outputs are final
    report, records = replayed(broker, worker_factory)
    assert overlapping_claims(records) == []
    assert report.verdict.identical["wavematch.queue.v1"] > 3 * len(tickets) // 2
