"""A steady, seeded stream of 1v1 joins (and some leaves) over eight regions, published
the way a platform would: librdkafka with the documented partitioner."""

from __future__ import annotations

import json
import random
import threading
import time

from confluent_kafka import Producer

from schemas.topics import queue_key

REGIONS = ("eu", "na", "asia", "sa", "oce", "me", "af", "cn")


def join_body(
    ticket: str,
    region: str,
    rng: random.Random,
    now_ms: int,
    player: str | None = None,
    ratings: dict[str, int] | None = None,
) -> bytes:
    """A 1v1 TicketJoined; ``ratings`` drawn from ``rng`` unless given."""
    ratings = ratings or random_ratings(rng)
    return json.dumps(
        {
            "type": "TicketJoined",
            "ticket_id": ticket,
            "queue": "1v1",
            "region": region,
            "joined_at_ms": now_ms,
            "players": [{"player_id": player or f"p-{ticket}", "ratings": ratings}],
        }
    ).encode()


def random_ratings(rng: random.Random) -> dict[str, int]:
    """30 % BW only, 30 % SC2 only, 40 % both, ratings 1000-2000."""
    side = rng.random()
    if side < 0.3:
        return {"bw": rng.randint(1000, 2000)}
    if side < 0.6:
        return {"sc2": rng.randint(1000, 2000)}
    return {"bw": rng.randint(1000, 2000), "sc2": rng.randint(1000, 2000)}


def leave_body(ticket: str, region: str, now_ms: int) -> bytes:
    return json.dumps(
        {
            "type": "TicketLeft",
            "ticket_id": ticket,
            "queue": "1v1",
            "region": region,
            "reason": "REQUESTED",
            "left_at_ms": now_ms,
        }
    ).encode()


class Traffic:
    """Publishes ``per_second`` joins spread over REGIONS until stopped; every 10th
    ticket is followed by its leave half a second later."""

    def __init__(self, rng: random.Random, per_second: float) -> None:
        self._rng = rng
        self._period_s = 1.0 / per_second
        self._sent: list[str] = []
        self._lock = threading.Lock()

    def tickets(self) -> set[str]:
        with self._lock:
            return set(self._sent)

    def run(self, bootstrap: str, stop: threading.Event) -> None:
        producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "partitioner": "murmur2_random",
                "linger.ms": 5,
                "enable.idempotence": False,
            }
        )
        pending_leaves: list[tuple[float, str, str]] = []
        number = 0
        next_at = time.monotonic()
        while not stop.is_set():
            now = time.monotonic()
            now_ms = int(time.time() * 1000)
            while pending_leaves and pending_leaves[0][0] <= now:
                _, ticket, region = pending_leaves.pop(0)
                producer.produce(
                    "wavematch.queue.v1",
                    leave_body(ticket, region, now_ms),
                    queue_key("1v1", region),
                )
            if now >= next_at:
                ticket, region = f"t{number}", REGIONS[number % len(REGIONS)]
                producer.produce(
                    "wavematch.queue.v1",
                    join_body(ticket, region, self._rng, now_ms),
                    queue_key("1v1", region),
                )
                with self._lock:
                    self._sent.append(ticket)
                if number % 10 == 9:
                    pending_leaves.append((now + 0.5, ticket, region))
                number += 1
                next_at += self._period_s
            producer.poll(0)
            time.sleep(min(0.005, max(0.0, next_at - time.monotonic())))
        for _, ticket, region in pending_leaves:
            producer.produce(
                "wavematch.queue.v1",
                leave_body(ticket, region, int(time.time() * 1000)),
                queue_key("1v1", region),
            )
        remaining = producer.flush(30)
        assert remaining == 0, f"{remaining} records not delivered"
