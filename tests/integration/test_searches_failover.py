"""Tickets searching several regions and queues through a SIGKILL (docs/adr/0145), on
both brokers, published by an outside client (confluent-kafka): players join one place,
or 2-3 regions of 1v1 with staggered openings, or 1v1 and 2v2 at once. Two workers, one
killed mid-run. Each ticket is matched at most once, in a place open at its wait;
nobody is in two matches; every ticket ends; the replay of the whole log (copies and
search claims included) is IDENTICAL."""

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

pytestmark = pytest.mark.integration

CONFIG = """
partitions = 8
ticket_ttl_ms = 12000
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "na", "asia"]
wave_interval_ms = 1000
[[queues]]
name = "2v2"
strategy = "rebalance"
regions = ["eu", "na"]
team_count = 2
team_size = 2
wave_interval_ms = 1000
"""

#: (home queue, home region, the places with their openings), by player number mod 3.
SHAPES = (
    ("1v1", "eu", ()),
    (
        "1v1",
        "eu",
        (("1v1", "eu", 0), ("1v1", "na", 1_500), ("1v1", "asia", 3_000)),
    ),
    # 2v2 first (four of them meet within a second or two), 1v1 too after 3 s.
    ("2v2", "na", (("2v2", "na", 0), ("2v2", "eu", 1_000), ("1v1", "na", 3_000))),
)


class Traffic:
    """One new solo player every period, in the shape its number picks."""

    def __init__(self, per_second: float) -> None:
        self.period_s = 1.0 / per_second
        #: ticket -> (player, joined_at_ms, {(queue, region): open_after_ms})
        self.tickets: dict[str, tuple[str, int, dict[tuple[str, str], int]]] = {}
        self.lock = threading.Lock()

    def run(self, bootstrap: str, stop: threading.Event) -> None:
        producer = Producer(
            {"bootstrap.servers": bootstrap, "partitioner": "murmur2_random", "linger.ms": 5}
        )
        number = 0
        while not stop.is_set():
            queue, region, places = SHAPES[number % 3]
            player, ticket, at = f"p{number}", f"t{number}", int(time.time() * 1000)
            race = "bw" if number % 2 else "sc2"  # optimal pairs the two kinds of rating
            body: dict[str, object] = {
                "type": "TicketJoined",
                "ticket_id": ticket,
                "queue": queue,
                "region": region,
                "joined_at_ms": at,
                "players": [{"player_id": player, "ratings": {race: 1500 + number % 200}}],
            }
            if places:
                body["searches"] = [
                    {"queue": q, "region": r, "open_after_ms": after} for q, r, after in places
                ]
            producer.produce(QUEUE.name, json.dumps(body).encode(), queue_key(queue, region))
            with self.lock:
                self.tickets[ticket] = (
                    player,
                    at,
                    {(q, r): a for q, r, a in places} or {(queue, region): 0},
                )
            producer.poll(0)
            number += 1
            time.sleep(self.period_s)
        assert producer.flush(30) == 0


@pytest.mark.wavematch_config(CONFIG)
def test_each_searching_ticket_is_matched_once_through_a_sigkill_and_replays(
    broker, worker_factory
):
    traffic = Traffic(per_second=8)
    first = sigkill_one_of_two_under_traffic(broker, worker_factory, traffic)
    tickets = dict(traffic.tickets)
    assert len(tickets) > 90

    def endings() -> dict[tuple[str, str, str], set[bytes]]:
        out: dict[tuple[str, str, str], set[bytes]] = defaultdict(set)
        for r in read_topic(broker.bootstrap, "wavematch.cleanup.v1", 0.3):
            d = decode(r.value)
            out[d.ticket_id, d.queue, d.region].add(r.value)
        return out

    def every_home_ended() -> dict[tuple[str, str, str], set[bytes]] | None:
        ended = endings()
        homes = {(t, *next(iter(places))) for t, (_, _, places) in tickets.items()}
        return ended if ended.keys() >= homes else None

    ended = wait_until(every_home_ended, 120, "every ticket to end at home")
    assert not [k for k, values in ended.items() if len(values) > 1], "a search ended twice"
    dequeues = [decode(next(iter(v))) for v in ended.values()]
    matched = [d for d in dequeues if d.reason is m.DequeueReason.MATCHED]
    per_ticket = defaultdict(int)
    for d in matched:
        per_ticket[d.ticket_id] += 1
    assert max(per_ticket.values()) == 1, "a ticket matched in two places"
    elsewhere = [d for d in dequeues if (d.detail or "").startswith("matched_elsewhere")]
    assert elsewhere, "no ticket was matched with searches left to end"

    match_records = read_topic(broker.bootstrap, "wavematch.matches.v1")
    matches = [decode(r.value) for r in match_records]
    created = {x.match_id: x for x in matches if isinstance(x, m.MatchCreated)}
    seats = [(s, x) for x in created.values() for team in x.teams for s in team.players]
    players = [s.player_id for s, _ in seats]
    assert len(players) == len(set(players)), "a player in two matches"
    searching = 0
    for seat, match in seats:
        _, joined, places = tickets[seat.ticket_id]
        assert (match.queue, match.region) in places, (seat, match.region)
        opens_after = places[match.queue, match.region]
        if opens_after:  # opened at a wave at or after it (a wave's instant may precede a join)
            assert match.created_at_ms >= joined + opens_after, (seat, match)
        searching += len(places) > 1
    assert searching > 20, "too few tickets searching several places were matched"
    reasons = sorted({(d.queue, d.reason.value, (d.detail or "")[:40]) for d in dequeues})
    assert {x.queue for x in created.values()} == {"1v1", "2v2"}, reasons

    first.stop()  # no more ticks: the log and the outputs are final
    report, records = replayed(broker, worker_factory)
    _print_added_latency(records, tickets)
    assert report.verdict.identical["wavematch.queue.v1"] > len(tickets) // 2


def _print_added_latency(records, tickets) -> None:  # type: ignore[no-untyped-def]
    """The time from a wave's WaveClosed to the MatchCreated of its tentative matches
    (broker timestamps): what the search claims add (docs/benchmarks/searches.md)."""
    closed, created = {}, []
    for r in records:
        if r.topic == "wavematch.waves.v1":
            wave = decode(r.value)
            closed[wave.queue, wave.region, wave.wave_id] = r.timestamp
        elif r.topic == "wavematch.matches.v1":
            created.append(r)
    added = []
    for r in created:
        match = decode(r.value)
        if not isinstance(match, m.MatchCreated):
            continue
        ids = [s.ticket_id for team in match.teams for s in team.players]
        wave = closed.get((match.queue, match.region, match.wave_id))
        if wave is not None and r.timestamp and any(len(tickets[t][2]) > 1 for t in ids):
            added.append(r.timestamp - wave)
    if added:
        added.sort()
        print(
            f"\nsearch claims: {len(added)} tentative matches, added latency after the wave "
            f"median {added[len(added) // 2]} ms, p90 {added[len(added) * 9 // 10]} ms"
        )
