"""A match's whole life on the real broker, driven by an independent client
(confluent-kafka): a ready check with a decline, the decliner's opponent requeued and
matched later with its original wait, a failed placement requeued, a timeout, a player
who joins two queues matched once; then `replay` re-derives it all IDENTICAL."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from schemas import models as m
from schemas.codec import decode
from schemas.topics import queue_key
from tests.integration.conftest import wait_until
from tests.integration.kafka import produce, read_topic
from tests.integration.outcome import replayed

pytestmark = pytest.mark.integration

CONFIG = """
partitions = 4
session_timeout_ms = 6000
heartbeat_interval_ms = 500
one_ticket_per_player = true
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "na"]
wave_interval_ms = 1000
# Long enough for this client's answers on a loaded machine (each one a new producer).
ready_check_ms = 20000
placement_timeout_ms = 120000
placement_requeues = 1
[[queues]]
name = "5v5"
strategy = "rebalance"
regions = ["eu"]
team_size = 5
wave_interval_ms = 1000
"""


def now_ms() -> int:
    return int(time.time() * 1000)


def send(bootstrap: str, region: str, body: dict[str, Any]) -> None:
    body = {"queue": "1v1", "region": region, **body}
    produce(bootstrap, [(queue_key("1v1", region), json.dumps(body).encode())])


def join(bootstrap: str, ticket: str, player: str, race: str, region: str = "eu") -> None:
    send(
        bootstrap,
        region,
        {
            "type": "TicketJoined",
            "ticket_id": ticket,
            "joined_at_ms": now_ms(),
            "players": [{"player_id": player, "ratings": {race: 1500}}],
        },
    )


def answer(bootstrap: str, match_id: str, player: str, accepted: bool, region: str = "eu") -> None:
    send(
        bootstrap,
        region,
        {
            "type": "ReadyCheckAnswered",
            "match_id": match_id,
            "player_id": player,
            "accepted": accepted,
            "answered_at_ms": now_ms(),
        },
    )


#: Where a started match's players connect (ADR 0171); the token a secret.
CONNECTION = {"address": "203.0.113.7", "port": 7777, "token": "lifecycle-join-token"}


def placed(bootstrap: str, match_id: str, outcome: str) -> None:
    send(
        bootstrap,
        "eu",
        {
            "type": "PlacementReported",
            "match_id": match_id,
            "outcome": outcome,
            "detail": "no capacity" if outcome == "FAILED" else None,
            "reported_at_ms": now_ms(),
            "connection": CONNECTION if outcome == "STARTED" else None,
        },
    )


def events(bootstrap: str, topic: str) -> list[Any]:
    return [decode(r.value or b"") for r in read_topic(bootstrap, topic, 0.3)]


def proposal_of(
    bootstrap: str, *tickets: str, besides: frozenset[str] = frozenset()
) -> m.MatchProposed:
    """The first proposal of exactly ``tickets`` whose match id is not in ``besides``."""

    def found() -> m.MatchProposed | None:
        for each in proposals(bootstrap):
            if each.match_id in besides:
                continue
            if {s.ticket_id for t in each.teams for s in t.players} == set(tickets):
                return each
        return None

    return wait_until(found, 60, f"a proposal of {tickets}")


def ended(bootstrap: str, ticket: str) -> m.TicketDequeued:
    def found() -> m.TicketDequeued | None:
        gone = [e for e in events(bootstrap, "wavematch.cleanup.v1") if e.ticket_id == ticket]
        return gone[-1] if gone else None

    return wait_until(found, 60, f"ticket {ticket} to end")


def created(bootstrap: str, match_id: str) -> None:
    """Wait for the MatchCreated of ``match_id`` (its ready check passed)."""
    wait_until(
        lambda: any(
            isinstance(e, m.MatchCreated) and e.match_id == match_id
            for e in events(bootstrap, "wavematch.matches.v1")
        ),
        60,
        f"match {match_id} to be created",
    )


def proposals(bootstrap: str) -> list[m.MatchProposed]:
    return [e for e in events(bootstrap, "wavematch.matches.v1") if isinstance(e, m.MatchProposed)]


def proposed_ids(bootstrap: str) -> frozenset[str]:
    # Read back per partition, not in time order: earlier proposals are named by id.
    return frozenset(p.match_id for p in proposals(bootstrap))


@pytest.mark.wavematch_config(CONFIG)
def test_a_match_life_on_the_broker_replays_identically(broker, worker_factory):
    worker = worker_factory.start()
    boot = broker.bootstrap
    # alice joins two queues: the second is refused, naming the first (which one comes
    # second is a race between two partitions: the test waits for the first to search).
    join(boot, "t-alice", "alice", "bw")
    wait_until(
        lambda: any(s.ticket_id == "t-alice" for s in events(boot, "wavematch.status.v1")),
        60,
        "alice's first ticket to search",
    )
    join(boot, "t-alice-na", "alice", "bw", region="na")
    join(boot, "t-bob", "bob", "sc2")
    refused = ended(boot, "t-alice-na")
    assert refused.reason is m.DequeueReason.REJECTED
    assert refused.detail == "player alice already holds ticket t-alice in 1v1/eu"

    # A ready check: bob declines, alice goes back with her wait.
    first = proposal_of(boot, "t-alice", "t-bob")
    answer(boot, first.match_id, "alice", True)
    answer(boot, first.match_id, "bob", False)
    declined = ended(boot, "t-bob")
    assert (declined.reason, declined.cause) == (m.DequeueReason.LEFT, m.DequeueCause.DECLINED)
    time.sleep(2.5)  # a few waves alone: alice's wait grows
    join(boot, "t-dave", "dave", "sc2")
    second = proposal_of(boot, "t-alice", "t-dave")
    answer(boot, second.match_id, "alice", True)
    answer(boot, second.match_id, "dave", True)
    created(boot, second.match_id)
    # Its placement fails: both return to the queue with their waits and meet again.
    seen = proposed_ids(boot)
    placed(boot, second.match_id, "FAILED")
    third = proposal_of(boot, "t-alice", "t-dave", besides=seen)
    answer(boot, third.match_id, "alice", True)
    answer(boot, third.match_id, "dave", True)
    created(boot, third.match_id)
    placed(boot, third.match_id, "STARTED")
    alice, dave = ended(boot, "t-alice"), ended(boot, "t-dave")
    assert (alice.reason, alice.match_id) == (m.DequeueReason.MATCHED, third.match_id)
    assert alice.waves_waited > dave.waves_waited + 2  # alice's wait counted from her join
    # Both players were told where to connect, on their tickets' statuses.
    told = {
        e.ticket_id: e.connection
        for e in events(boot, "wavematch.status.v1")
        if e.stage is m.TicketStage.MATCHED and e.match_id == third.match_id
    }
    assert told == {"t-alice": m.Connection(**CONNECTION), "t-dave": m.Connection(**CONNECTION)}

    # A timeout: erin accepts, carol never answers.
    join(boot, "t-carol", "carol", "sc2", region="na")
    join(boot, "t-erin", "erin", "bw", region="na")
    fourth = proposal_of(boot, "t-carol", "t-erin")
    answer(boot, fourth.match_id, "erin", True, region="na")
    silent = ended(boot, "t-carol")
    assert (silent.reason, silent.cause) == (
        m.DequeueReason.EXPIRED,
        m.DequeueCause.ACCEPTANCE_TIMED_OUT,
    )
    # A late answer is a dead letter, not a decision.
    answer(boot, fourth.match_id, "carol", True, region="na")
    wait_until(
        lambda: any(
            d.error_code == "match_closed" for d in events(boot, "wavematch.deadletter.v1")
        ),
        30,
        "the late answer's dead letter",
    )

    worker.stop()
    report, _ = replayed(broker, worker_factory)
    # 6 claim requests and decisions, 5 releases (erin still searches), all re-derived.
    assert report.verdict.identical["wavematch.queue.v1"] == 17
    assert report.verdict.identical["wavematch.matches.v1"] >= 6


@pytest.mark.wavematch_config(CONFIG)
def test_a_5v5_backfill_takes_a_party_of_two_and_replays_identically(broker, worker_factory):
    worker = worker_factory.start()
    boot = broker.bootstrap
    key = queue_key("5v5", "eu")
    party = {
        "type": "TicketJoined",
        "ticket_id": "t-party",
        "queue": "5v5",
        "region": "eu",
        "joined_at_ms": now_ms(),
        "players": [{"player_id": p, "ratings": {"mmr": 1500}} for p in ("ann", "ben")],
    }
    produce(boot, [(key, json.dumps(party).encode())])
    wait_until(
        lambda: any(s.ticket_id == "t-party" for s in events(boot, "wavematch.status.v1")),
        60,
        "the party to search",
    )
    request = {
        "type": "BackfillRequested",
        "session_id": "s-1",
        "queue": "5v5",
        "region": "eu",
        "requested_at_ms": now_ms(),
        "teams": [
            {
                "name": "red",
                "open_slots": 0,
                "players": [{"player_id": f"r{i}", "rating": 1500} for i in range(5)],
            },
            {
                "name": "blue",
                "open_slots": 2,
                "players": [{"player_id": f"b{i}", "rating": 1500} for i in range(3)],
            },
        ],
    }
    produce(boot, [(key, json.dumps(request).encode())])
    result = wait_until(
        lambda: next(
            (e for e in events(boot, "wavematch.matches.v1") if isinstance(e, m.BackfillResult)),
            None,
        ),
        60,
        "the backfill result",
    )
    assert result.outcome is m.BackfillOutcome.FILLED
    assert [(t.name, [s.player_id for s in t.players]) for t in result.teams] == [
        ("blue", ["ann", "ben"])
    ]
    seated = ended(boot, "t-party")
    assert (seated.reason, seated.match_id) == (m.DequeueReason.MATCHED, "s-1")

    worker.stop()
    report, _ = replayed(broker, worker_factory)
    assert report.verdict.identical["wavematch.matches.v1"] == 1
