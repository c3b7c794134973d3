"""The golden MatchCreated and TicketDequeued examples are what a real queue publishes: the
worker's fold and publisher, given the inputs they describe, write the very same bytes."""

from __future__ import annotations

from pathlib import Path

from schemas.codec import decode, encode
from schemas.models import TicketJoined, WaveTick
from schemas.topics import CLEANUP, MATCHES, QUEUE, queue_key
from streams.settings import QueueSettings, Settings
from streams.wire.outbound import Writer
from streams.worker.folding import Folder
from streams.worker.outputs import records_of

GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden"
T0 = 1_767_225_600_000


def wave_outputs(
    queue: QueueSettings, region: str, joins: list[bytes], at_ms: int, fingerprint: str
):  # type: ignore[no-untyped-def]
    folder = Folder.from_settings(Settings(partitions=1, queues=(queue,)))
    state, key = folder.new_state(0), queue_key(queue.name, region)
    for offset, value in enumerate(joins):
        assert folder.fold(state, key, value, offset).step.note == "joined"
    tick = WaveTick(
        queue=queue.name,
        region=region,
        wave_id=str(at_ms),
        sequence=at_ms,
        tick_at_ms=at_ms,
        config_fingerprint=fingerprint,
        interval_ms=5_000,
    )
    folded = folder.fold(state, key, encode(tick), len(joins))
    return records_of(Writer(), folded, topic=QUEUE.name, partition=0, key=key, value=b"")


def test_the_duel_examples_are_what_a_1v1_queue_publishes() -> None:
    solo = (GOLDEN / "TicketJoined" / "solo.avro").read_bytes()
    rival = TicketJoined(
        ticket_id="t-5d1e",
        queue="1v1",
        region="eu",
        joined_at_ms=T0,
        players=[{"player_id": "p-77", "ratings": {"sc2": 1815}, "latency_ms": {"eu": 23}}],
    )
    queue = QueueSettings(name="1v1", strategy="optimal", regions=("eu",))
    outputs = wave_outputs(queue, "eu", [solo, encode(rival)], T0 + 5_000, "cfg-9a1f03c2")
    (match,) = [value for topic, _, value in outputs if topic == MATCHES.name]
    assert match == (GOLDEN / "MatchCreated" / "duel.avro").read_bytes(), decode(match)
    dequeued = {decode(v).ticket_id: v for topic, _, v in outputs if topic == CLEANUP.name}
    assert dequeued["t-2f9c1b7e"] == (GOLDEN / "TicketDequeued" / "matched.avro").read_bytes()


def test_the_team_example_is_what_a_2v2_queue_publishes() -> None:
    def join(ticket: str, players: list[tuple[str, str, int]]) -> bytes:
        return encode(
            TicketJoined(
                ticket_id=ticket,
                queue="2v2",
                region="us-east",
                joined_at_ms=T0,
                players=[
                    {"player_id": p, "ratings": {role: rating}, "roles": [role]}
                    for p, role, rating in players
                ],
            )
        )

    queue = QueueSettings(
        name="2v2",
        strategy="rebalance",
        team_size=2,
        regions=("us-east",),
        roles=("tank", "healer"),
    )
    joins = [
        join("t-7", [("p-70", "tank", 1500), ("p-71", "healer", 1480)]),
        join("t-8", [("p-80", "tank", 1510)]),
        join("t-9", [("p-90", "healer", 1470)]),
    ]
    outputs = wave_outputs(queue, "us-east", joins, T0 + 35_000, "cfg-00ff")
    (match,) = [value for topic, _, value in outputs if topic == MATCHES.name]
    assert match == (GOLDEN / "MatchCreated" / "teams-2v2.avro").read_bytes(), decode(match)
