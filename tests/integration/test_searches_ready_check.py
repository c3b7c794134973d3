"""A player searching two regions of a queue with a ready check and placement reports,
on the real broker through an independent client (confluent-kafka): the first match is
declined by the other player and the search goes on in both regions; the second,
elsewhere, pauses the first region's search through its ready check and, accepted and
placed, ends it; then `replay` re-derives it all IDENTICAL (docs/adr/0197, 0204)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemas import models as m
from schemas.codec import MAGIC, decode
from schemas.topics import QUEUE, queue_key
from tests.integration.conftest import wait_until
from tests.integration.kafka import produce, read_topic_to_end
from tests.integration.outcome import replayed
from tests.integration.test_lifecycle import (
    CONFIG,
    answer,
    created,
    ended,
    events,
    join,
    now_ms,
    proposal_of,
    send,
)

pytestmark = pytest.mark.integration


def join_both(bootstrap: str, ticket: str, player: str) -> None:
    body: dict[str, Any] = {
        "type": "TicketJoined",
        "ticket_id": ticket,
        "queue": "1v1",
        "region": "eu",
        "joined_at_ms": now_ms(),
        "players": [{"player_id": player, "ratings": {"bw": 1500}}],
        "searches": [{"region": "eu"}, {"region": "na"}],
    }
    produce(bootstrap, [(queue_key("1v1", "eu"), json.dumps(body).encode())])


def dequeues(bootstrap: str, ticket: str) -> list[m.TicketDequeued]:
    return [e for e in events(bootstrap, "wavematch.cleanup.v1") if e.ticket_id == ticket]


WAVES = "wavematch.waves.v1"
# The ready check outlasts this test's look at three topics during it (a loaded machine).
SLOW_READY_CHECK = CONFIG.replace("ready_check_ms = 20000", "ready_check_ms = 90000")
assert SLOW_READY_CHECK != CONFIG


def paused_in_eu_meanwhile(bootstrap: str, ticket: str, proposal: m.MatchProposed) -> None:
    """na's match holds ``ticket`` through its ready check: na tells eu (SearchHeld, which
    the replay below re-derives), so eu's later waves publish no SEARCHING status over
    na's REQUIRES_ACCEPTANCE."""
    settled = proposal.proposed_at_ms + 1_000  # the notice is folded in eu by then

    def later_eu_waves() -> list[m.WaveClosed] | None:
        waves = [
            e
            for e in map(decode, (r.value or b"" for r in read_topic_to_end(bootstrap, WAVES)))
            if e.region == "eu" and e.queue == "1v1" and e.closed_at_ms > settled
        ]
        return waves if len(waves) >= 2 else None

    wait_until(later_eu_waves, 60, "two waves in eu after the hold notice")
    records = read_topic_to_end(bootstrap, "wavematch.status.v1")
    statuses = [s for s in map(decode, (r.value or b"" for r in records)) if s.ticket_id == ticket]
    assert [s for s in statuses if s.region == "eu" and s.at_ms > settled] == []
    assert statuses[-1].stage is m.TicketStage.REQUIRES_ACCEPTANCE


@pytest.mark.wavematch_config(SLOW_READY_CHECK)
def test_a_searching_player_goes_through_a_ready_check_and_a_placement(broker, worker_factory):
    worker = worker_factory.start()
    boot = broker.bootstrap
    join_both(boot, "t-alice", "alice")
    join(boot, "t-bob", "bob", "sc2")
    first = proposal_of(boot, "t-alice", "t-bob")
    answer(boot, first.match_id, "alice", True)
    answer(boot, first.match_id, "bob", False)
    declined = ended(boot, "t-bob")
    assert (declined.reason, declined.cause) == (m.DequeueReason.LEFT, m.DequeueCause.DECLINED)
    assert dequeues(boot, "t-alice") == []  # back in eu, still searching na

    join(boot, "t-carol", "carol", "sc2", region="na")
    second = proposal_of(boot, "t-alice", "t-carol")
    assert second.region == "na"
    paused_in_eu_meanwhile(boot, "t-alice", second)
    answer(boot, second.match_id, "alice", True, region="na")
    answer(boot, second.match_id, "carol", True, region="na")
    created(boot, second.match_id)
    assert dequeues(boot, "t-alice") == []  # placing: eu's search holds on
    send(
        boot,
        "na",
        {
            "type": "PlacementReported",
            "match_id": second.match_id,
            "outcome": "STARTED",
            "reported_at_ms": now_ms(),
        },
    )
    gone = wait_until(
        lambda: (lambda d: d if len(d) == 2 else None)(dequeues(boot, "t-alice")),
        60,
        "alice's two dequeues",
    )
    by_region = {d.region: d for d in gone}
    assert (by_region["na"].reason, by_region["na"].match_id) == (
        m.DequeueReason.MATCHED,
        second.match_id,
    )
    assert by_region["eu"].reason is m.DequeueReason.LEFT
    assert (by_region["eu"].detail or "").startswith("matched_elsewhere")

    worker.stop()
    report, records = replayed(broker, worker_factory)
    assert report.verdict.identical["wavematch.matches.v1"] >= 3
    service = [
        decode(r.value or b"")
        for r in records
        if r.topic == QUEUE.name and (r.value or b"")[:2] == MAGIC
    ]
    notices = [(n.match_id, n.region, n.held) for n in service if isinstance(n, m.SearchHeld)]
    assert sorted(notices) == sorted(
        [
            (first.match_id, "na", True),  # eu's first proposal held alice...
            (first.match_id, "na", False),  # ...and gave her back when bob declined
            (second.match_id, "eu", True),  # then na's; its start ends eu's search
        ]
    )
