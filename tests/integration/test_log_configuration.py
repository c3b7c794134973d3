"""A deployment with every non-default setting, driven by an outside client
(confluent-kafka): its log replays IDENTICAL and explains with no settings file, from the
broker and from `export` (docs/adr/0135). On the way, from outside: a declined ready check
and a failed placement are not remembered as meetings (the pair is proposed again), a
backdated join gains at most max_clock_skew_ms of waiting (ADR 0136), a stale tick is
no dead letter (ADR 0137), and time to match counts tickets confirmed by answers and
reports."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from schemas import models as m
from schemas.codec import decode
from schemas.topics import queue_key
from streams.audit.topics import read_topics
from streams.cli import main
from tests.integration.conftest import run, wait_until
from tests.integration.kafka import produce, read_topic

pytestmark = pytest.mark.integration

SKEW_MS = 10_000
CONFIG = f"""
partitions = 4
session_timeout_ms = 6000
heartbeat_interval_ms = 500
one_ticket_per_player = true
ticket_ttl_ms = 900000
max_clock_skew_ms = {SKEW_MS}
fallback_servers = ["fallback-1"]
[[routes]]
region_a = "eu"
region_b = "eu"
servers = ["eu-frankfurt"]
[[queues]]
name = "ladder"
strategy = "optimal"
regions = ["eu", "na"]
maps = ["Polypoid", "Eclipse"]
wave_interval_ms = 1000
# Long enough for this client's answers on a loaded machine (each one a new producer).
ready_check_ms = 20000
placement_timeout_ms = 120000
placement_requeues = 1
ticket_ttl_ms = 300000
[queues.rules]
rating = "mmr"
max_distance = {{ base = 100, growth_per_s = 2, cap = 400 }}
rematch = {{ last = 2, within_s = 600 }}
[[queues]]
name = "squad"
strategy = "rebalance"
regions = ["eu"]
maps = ["Polypoid"]
team_size = 5
wave_interval_ms = 1000
ticket_ttl_ms = 600000
"""


def now_ms() -> int:
    return int(time.time() * 1000)


def send(boot: str, queue: str, region: str, body: dict[str, Any]) -> None:
    body = {"queue": queue, "region": region, **body}
    produce(boot, [(queue_key(queue, region), json.dumps(body).encode())])


def join(boot: str, ticket: str, player: str, mmr: int, region: str = "eu", at: int = 0) -> None:
    players = [{"player_id": player, "ratings": {"mmr": mmr}}]
    joined = {"ticket_id": ticket, "joined_at_ms": at or now_ms(), "players": players}
    send(boot, "ladder", region, {"type": "TicketJoined", **joined})


def answer(boot: str, match_id: str, player: str, accepted: bool, region: str = "eu") -> None:
    body = {"match_id": match_id, "player_id": player, "accepted": accepted}
    send(boot, "ladder", region, {"type": "ReadyCheckAnswered", "answered_at_ms": now_ms(), **body})


def placed(boot: str, match_id: str, outcome: str, region: str = "eu") -> None:
    body = {"match_id": match_id, "outcome": outcome, "reported_at_ms": now_ms()}
    send(boot, "ladder", region, {"type": "PlacementReported", **body})


def events(boot: str, topic: str) -> list[Any]:
    return [decode(r.value or b"") for r in read_topic(boot, topic, 0.3)]


def proposal_of(boot: str, *tickets: str, besides: frozenset[str] = frozenset()) -> m.MatchProposed:
    def found() -> m.MatchProposed | None:
        for each in events(boot, "wavematch.matches.v1"):
            if not isinstance(each, m.MatchProposed) or each.match_id in besides:
                continue
            if {s.ticket_id for t in each.teams for s in t.players} == set(tickets):
                return each
        return None

    return wait_until(found, 60, f"a proposal of {tickets}")


def created(boot: str, match_id: str) -> None:
    wait_until(
        lambda: any(
            isinstance(e, m.MatchCreated) and e.match_id == match_id
            for e in events(boot, "wavematch.matches.v1")
        ),
        60,
        f"match {match_id} confirmed",
    )


def ended(boot: str, ticket: str) -> m.TicketDequeued:
    def found() -> m.TicketDequeued | None:
        gone = [e for e in events(boot, "wavematch.cleanup.v1") if e.ticket_id == ticket]
        return gone[-1] if gone else None

    return wait_until(found, 60, f"ticket {ticket} to end")


def proposed_ids(boot: str) -> frozenset[str]:
    return frozenset(
        e.match_id for e in events(boot, "wavematch.matches.v1") if isinstance(e, m.MatchProposed)
    )


def backfill(boot: str) -> None:
    """A party of two fills the two open slots of the running session s-1."""
    key = queue_key("squad", "eu")
    party = {
        "type": "TicketJoined",
        "ticket_id": "t-party",
        "queue": "squad",
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
    teams = [
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
    ]
    request = {
        "type": "BackfillRequested",
        "session_id": "s-1",
        "queue": "squad",
        "region": "eu",
        "requested_at_ms": now_ms(),
        "teams": teams,
    }
    produce(boot, [(key, json.dumps(request).encode())])
    gone = ended(boot, "t-party")
    assert (gone.reason, gone.match_id) == (m.DequeueReason.MATCHED, "s-1")


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


@pytest.mark.wavematch_config(CONFIG)
def test_every_non_default_setting_replays_and_explains_from_the_log_alone(
    broker, worker_factory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    worker = worker_factory.start()
    boot = broker.bootstrap
    join(boot, "t-alice", "alice", 1500)
    join(boot, "t-bob", "bob", 1550)
    # bob declines: he and alice never played, so they may be proposed again at once.
    first = proposal_of(boot, "t-alice", "t-bob")
    answer(boot, first.match_id, "alice", True)
    answer(boot, first.match_id, "bob", False)
    assert ended(boot, "t-bob").cause is m.DequeueCause.DECLINED
    join(boot, "t-bob-2", "bob", 1550)
    second = proposal_of(boot, "t-alice", "t-bob-2")
    answer(boot, second.match_id, "alice", True)
    answer(boot, second.match_id, "bob", True)
    created(boot, second.match_id)
    # Its placement fails: never played, so they are proposed again.
    seen = proposed_ids(boot)
    placed(boot, second.match_id, "FAILED")
    third = proposal_of(boot, "t-alice", "t-bob-2", besides=seen)
    answer(boot, third.match_id, "alice", True)
    answer(boot, third.match_id, "bob", True)
    created(boot, third.match_id)
    placed(boot, third.match_id, "STARTED")
    assert ended(boot, "t-alice").match_id == third.match_id

    # Two players 128 apart claim to have joined 200 s ago (within the queue's 300 s TTL):
    # 10 s of that counts, so the distance limit (100 + 2 per second) reaches 128 only
    # 14 s after that bound.
    long_ago = now_ms() - 200_000
    join(boot, "t-dan", "dan", 1500, region="na", at=long_ago)
    join(boot, "t-eve", "eve", 1628, region="na", at=long_ago)
    backdated = proposal_of(boot, "t-dan", "t-eve")
    (joined_record,) = [
        r
        for r in run(read_topics(boot, ("wavematch.queue.v1",)))
        if b'"t-dan"' in (r.value or b"") and b"TicketJoined" in (r.value or b"")
    ]
    assert joined_record.timestamp is not None
    assert backdated.proposed_at_ms - (joined_record.timestamp - SKEW_MS) >= 14_000
    answer(boot, backdated.match_id, "dan", True, region="na")
    answer(boot, backdated.match_id, "eve", True, region="na")
    created(boot, backdated.match_id)
    placed(boot, backdated.match_id, "STARTED", region="na")
    assert ended(boot, "t-eve").match_id == backdated.match_id

    backfill(boot)
    # A stale tick (a second timer's, redelivered late) is no dead letter.
    stale = {
        "type": "WaveTick",
        "wave_id": "stale",
        "sequence": 1,
        "tick_at_ms": now_ms() - 600_000,
    }
    send(boot, "ladder", "eu", {**stale, "config_fingerprint": "x", "interval_ms": 1000})
    time.sleep(3)
    # The ladder's tickets were matched for good by answers and reports: time to match
    # counts them (alice and bob in eu, dan and eve in na), as Grafana reads it.
    with urllib.request.urlopen(f"{worker.web}/metrics", timeout=10) as response:
        scraped = response.read().decode()
    for region in ("eu", "na"):
        count = f'wavematch_time_to_match_seconds_count{{queue="ladder",region="{region}"}} 2.0'
        assert count in scraped, [line for line in scraped.splitlines() if "time_to_match" in line]
    worker.stop()
    letters = events(boot, "wavematch.deadletter.v1")
    assert [d.error_code for d in letters] == []

    # No settings file: the configuration comes from the log, from the broker ...
    code, out = cli(["replay", "--broker", broker.url, "--quiet"], capsys)
    assert code == 0, out
    assert "configuration        from the log" in out and "verdict              IDENTICAL" in out
    # ... and from an export.
    export = tmp_path / "session.avro"
    assert main(["export", "--broker", broker.url, "--output", str(export)]) == 0
    code, out = cli(["replay", "--log", str(export), "--quiet"], capsys)
    assert code == 0 and "verdict              IDENTICAL" in out, out
    for source in (["--broker", broker.url], ["--log", str(export)]):
        code, out = cli(["explain", "--ticket", "t-bob", *source], capsys)
        assert code == 0 and "dequeued DECLINED" in out, out
        code, out = cli(["explain", "--ticket", "t-alice", *source], capsys)
        assert "dequeued MATCHED after" in out and third.match_id in out, out
        code, out = cli(["explain", third.match_id, *source], capsys)
        assert code == 0 and "(optimal), closed by the WaveTick" in out, out
        code, out = cli(["explain", "s-1", *source], capsys)
        assert code == 0 and "backfill of session s-1" in out, out
