"""Queue events of one duo queue in region eu, and its folder, for the worker's tests."""

from __future__ import annotations

import pytest

from matcher.core import QueueProfile
from matcher.queue import QueueRules
from schemas.codec import encode
from schemas.models import TicketJoined, WaveTick
from schemas.topics import murmur2_partition, queue_key
from streams.worker.folding import Folder
from tests.queue.conftest import PAIRS

PARTITIONS = 4
KEY = queue_key("duo", "eu")
HOME = murmur2_partition(KEY, PARTITIONS)


@pytest.fixture
def folder() -> Folder:
    profile = QueueProfile(queue="duo", strategy=PAIRS, maps=("alpha", "beta"), team_size=2)
    return Folder({"duo": profile}, {"duo": ("eu", "na")}, QueueRules(), PARTITIONS)


def joined(ticket_id: str, player: str, at_ms: int = 1_767_225_600_000) -> bytes:
    return encode(
        TicketJoined(
            ticket_id=ticket_id,
            queue="duo",
            region="eu",
            joined_at_ms=at_ms,
            players=[{"player_id": player, "ratings": {"any": 1500}}],
        )
    )


def tick(sequence: int) -> bytes:
    return encode(
        WaveTick(
            queue="duo",
            region="eu",
            wave_id=str(sequence),
            sequence=sequence,
            tick_at_ms=1_767_225_600_000 + sequence * 1000,
            config_fingerprint="cfg",
            interval_ms=1000,
        )
    )
