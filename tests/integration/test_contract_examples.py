"""Every golden input of schemas/golden, published by an ordinary librdkafka client to a real
worker configured as the examples say, has the outcome schemas/README.md documents."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import Producer

from schemas.codec import decode, decode_json
from schemas.models import (
    ConfigPublished,
    DeadLetter,
    MatchCreated,
    TicketDequeued,
    TicketStatus,
)
from schemas.topics import CLEANUP, CONFIG, DEADLETTER, MATCHES, QUEUE, STATUS, WAVES, queue_key
from streams.settings import load_settings
from tests.integration.conftest import wait_until
from tests.integration.kafka import read_topic
from tests.kafka.broker import KafkaBroker

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden"
# The queues the examples name. The timer waits an hour: the example tick closes the wave.
EXAMPLES_CONFIG = """
partitions = 4
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "na"]
wave_interval_ms = 3600000
[[queues]]
name = "2v2"
strategy = "rebalance"
team_size = 2
regions = ["eu"]
wave_interval_ms = 3600000
[[queues]]
name = "5v5-ranked"
strategy = "rebalance"
team_size = 5
regions = ["eu-west"]
wave_interval_ms = 3600000
"""
TICK_AT_MS = 1_767_225_605_000


def publish(bootstrap: str, records: list[tuple[bytes, bytes, int | None]]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random"})
    for key, value, timestamp in records:
        producer.produce(QUEUE.name, value=value, key=key, timestamp=timestamp or 0)
    assert producer.flush(30) == 0


def golden(name: str) -> bytes:
    return (GOLDEN / name).read_bytes()


@pytest.mark.wavematch_config(EXAMPLES_CONFIG)
def test_every_golden_input_has_its_documented_outcome(broker, worker_factory) -> None:
    worker_factory.start()
    bootstrap = broker.bootstrap
    duel, party = queue_key("1v1", "eu"), queue_key("5v5-ranked", "eu-west")
    published_at = time.monotonic()
    publish(
        bootstrap,
        [
            # Both encodings of each join: the second of an id is an idempotent no-op.
            (duel, golden("TicketJoined/solo.avro"), None),
            (duel, golden("TicketJoined/solo.json"), None),
            (party, golden("TicketJoined/party.json"), None),
            (party, golden("TicketJoined/party.avro"), None),
            # Searching 1v1/eu, 2v2/eu at once and 1v1/na after 30 s (docs/adr/0145).
            (duel, golden("TicketJoined/searches.json"), None),
            # Searching 1v1/na, and after 60 s every region within 100 ms: eu (ADR 0147).
            (queue_key("1v1", "na"), golden("TicketJoined/nearby.json"), None),
            (duel, golden("TicketLeft/requested.json"), None),
            (duel, golden("TicketLeft/requested.avro"), None),  # not waiting: nothing
            # A platform's copy of the example tick: dated 2026-01-01, stamped now.
            (duel, golden("WaveTick/tick-42.json"), None),
            # The same tick stamped at its instant: its example fingerprint is no
            # configuration of this worker's (ADR 0210).
            (duel, golden("WaveTick/tick-42.avro"), TICK_AT_MS),
        ],
    )

    def outputs() -> dict[str, list[object]]:
        return {
            topic: [decode(r.value or b"") for r in read_topic(bootstrap, topic)]
            for topic in (STATUS.name, CLEANUP.name, WAVES.name, DEADLETTER.name)
        }

    # Apache Kafka stamps the queue topic's records with the append time (ADR 0074): there
    # the example tick, dated 2026-01-01, is implausible in both copies. On Tansu the copy
    # stamped at its instant is plausible, and names no configuration the worker knows.
    append_time = isinstance(broker, KafkaBroker)

    def finished() -> dict[str, list[object]] | None:
        out = outputs()
        return out if len(out[DEADLETTER.name]) >= 2 else None

    seen = wait_until(finished, 60, "the dead letters of the example ticks")
    statuses = Counter(s.ticket_id for s in seen[STATUS.name] if isinstance(s, TicketStatus))
    searching = {(s.queue, s.region) for s in seen[STATUS.name] if s.ticket_id == "t-5d21aa90"}
    assert searching == {("1v1", "eu"), ("2v2", "eu")}  # na opens after 30 s: not yet
    del statuses["t-5d21aa90"]
    nearby = {(s.queue, s.region) for s in seen[STATUS.name] if s.ticket_id == "t-7e03c6d1"}
    assert nearby == {("1v1", "na")}  # eu opens after 60 s: not yet
    del statuses["t-7e03c6d1"]
    copies = [
        (r.key, decode_json(r.value or b""))  # copies are written in the JSON form
        for r in read_topic(bootstrap, QUEUE.name)
        if (r.key or b"").startswith(b"1v1/eu") and b"t-7e03c6d1" in (r.value or b"")
    ]
    assert [(key, [(p.region, p.open_after_ms) for p in c.searches]) for key, c in copies] == [
        (b"1v1/eu", [("na", 0), ("eu", 60_000)])
    ]
    assert statuses == {"t-2f9c1b7e": 1, "t-party-81": 1}
    # Thirty seconds after its join, the searching ticket also searches 1v1/na, where the
    # nearby ticket waits: on a slow machine they may be matched before the wait ends.
    cleanups = seen[CLEANUP.name]
    (left,) = [c for c in cleanups if getattr(c, "ticket_id", None) == "t-2f9c1b7e"]
    others = [c for c in cleanups if c is not left]
    assert not others or time.monotonic() - published_at >= 30, others
    assert {getattr(c, "ticket_id", None) for c in others} <= {"t-5d21aa90", "t-7e03c6d1"}, others
    assert isinstance(left, TicketDequeued)
    assert (left.ticket_id, left.reason.value) == ("t-2f9c1b7e", "LEFT")
    letters = seen[DEADLETTER.name]
    assert all(isinstance(letter, DeadLetter) for letter in letters)
    reasons = [(letter.error_code, letter.field) for letter in letters]  # type: ignore[union-attr]
    implausible, unknown = (
        ("implausible_time", "tick_at_ms"),
        ("unknown_config", "config_fingerprint"),
    )
    assert reasons == ([implausible, implausible] if append_time else [implausible, unknown])
    assert seen[WAVES.name] == []
    # What the worker's own fingerprint stands for is in the log too (ADR 0075).
    settings = load_settings(worker_factory.config)
    configs = [decode(r.value or b"") for r in read_topic(bootstrap, CONFIG.name)]
    assert {c.config_fingerprint for c in configs} == {settings.config_fingerprint()}
    assert all(isinstance(c, ConfigPublished) for c in configs)
    # The data example (schemas/README.md): the golden join with data and a rival, dated
    # now (the broker may stamp append times), then a tick of now closes their wave.
    now = int(time.time() * 1000)
    example = json.loads(golden("TicketJoined/data.json")) | {"joined_at_ms": now}
    rival = example | {
        "ticket_id": "t-data-rival",
        "players": [{"player_id": "p-rival", "ratings": {"sc2": 1815}, "latency_ms": {"eu": 23}}],
        "data": {},
    }
    tick = json.loads(golden("WaveTick/tick-42.json")) | {
        "wave_id": str(now),
        "sequence": now,
        "tick_at_ms": now,
        "config_fingerprint": settings.config_fingerprint(),
    }
    publish(bootstrap, [(duel, json.dumps(body).encode(), now) for body in (example, rival, tick)])

    def created() -> list[object] | None:
        records = read_topic(bootstrap, MATCHES.name)
        return [decode(r.value) for r in records if b"p-3301" in (r.value or b"")] or None

    (match,) = wait_until(created, 60, "the data example's match")
    assert isinstance(match, MatchCreated)
    expected = decode(golden("MatchCreated/data.avro"))
    assert isinstance(expected, MatchCreated)
    seats = {seat.player_id: seat.data for team in match.teams for seat in team.players}
    assert seats == {"p-3301": expected.teams[0].players[0].data, "p-rival": {}}
    assert seats["p-3301"]["skin"] == "crimson"  # the player's entry over the ticket's
