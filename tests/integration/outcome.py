"""What must hold after traffic, whatever happened to workers or broker meanwhile: every
ticket ends exactly one way, no player sits in two matches, a match id is never published
differently, and a replay of the whole log reproduces every published record."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from schemas.codec import decode
from schemas.topics import QUEUE
from streams.audit.replay import JUDGED, replay
from streams.audit.topics import committed_offsets, read_topics
from streams.settings import load_settings
from tests.integration.conftest import AnyBroker, Worker, WorkerFactory, run, wait_until
from tests.integration.kafka import read_topic


def check_outcome(
    broker: AnyBroker,
    worker_factory: WorkerFactory,
    tickets: set[str],
    survivor: Worker,
    matched_share: float = 0.5,
) -> None:
    """Byte-identical copies of an output are allowed: delivery is at least once and
    consumers de-duplicate by key (docs/operations.md, ADR 0090). More than
    ``matched_share`` of the tickets are matched (joins held back by a long outage
    arrive past their TTL and expire instead)."""

    def ended() -> set[str]:
        return {
            decode(r.value).ticket_id
            for r in read_topic(broker.bootstrap, "wavematch.cleanup.v1", 0.3)
        }

    wait_until(
        lambda: ended() >= tickets,
        120,
        "every ticket to end",
        alive=lambda: survivor.process.poll() is None,
    )

    cleanup = read_topic(broker.bootstrap, "wavematch.cleanup.v1")
    endings: dict[str, list[bytes]] = defaultdict(list)
    for record in cleanup:
        endings[decode(record.value).ticket_id].append(record.value)
    twice = {t for t, values in endings.items() if len(set(values)) > 1}
    assert not twice, "tickets that ended in two different ways: " + "; ".join(
        f"{t}: {[decode(v) for v in dict.fromkeys(endings[t])]}" for t in sorted(twice)[:3]
    )

    matches = read_topic(broker.bootstrap, "wavematch.matches.v1")
    copies: dict[str, list[bytes]] = defaultdict(list)
    for record in matches:
        copies[decode(record.value).match_id].append(record.value)
    assert all(len(set(values)) == 1 for values in copies.values()), (
        "a match id re-published differently"
    )
    seats = Counter(
        seat.player_id
        for values in copies.values()
        for team in decode(values[0]).teams
        for seat in team.players
    )
    assert max(seats.values()) == 1, (
        f"players matched twice: {[p for p, n in seats.items() if n > 1][:5]}"
    )
    matched = sum(1 for values in endings.values() if decode(values[0]).reason.value == "MATCHED")
    assert matched == sum(seats.values())
    assert matched > len(tickets) * matched_share, f"{matched} of {len(tickets)} tickets matched"

    for worker in worker_factory.started:
        worker.stop()  # no more ticks: the log and the outputs are final
    report, _ = replayed(broker, worker_factory)
    assert report.verdict.identical["wavematch.matches.v1"] == len(copies)


def replayed(broker: AnyBroker, worker_factory: WorkerFactory) -> tuple[Any, list[Any]]:
    """`wavematch replay` of the whole log with the workers stopped: its report, asserted
    IDENTICAL, and the records it read (the queue topic and the judged outputs)."""
    settings = load_settings(worker_factory.config, broker_url=broker.url)
    records = run(read_topics(broker.bootstrap, (QUEUE.name, *JUDGED)))
    processed = run(committed_offsets(broker.bootstrap, settings.queue_group, QUEUE.name))
    report = replay(settings, records, processed=processed)
    assert report.ok, report.differences[:5]
    return report, records
