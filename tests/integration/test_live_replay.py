"""`replay` of a live system: waves close every second while the log is read, and each
report is IDENTICAL. The committed offsets are read first, then the output topics, then
the queue topic: every published output read has its input read after it."""

from __future__ import annotations

from typing import Any

import pytest

from schemas.topics import CONFIG, QUEUE
from streams.audit import topics as reader
from streams.audit.replay import JUDGED, replay
from streams.audit.topics import committed_offsets, read_topics
from streams.settings import load_settings
from tests.integration.conftest import run, wait_until
from tests.integration.kafka import json_join, produce, read_topic_to_end
from tests.integration.test_lifecycle import CONFIG as WAVES_EVERY_SECOND

pytestmark = pytest.mark.integration


@pytest.mark.wavematch_config(WAVES_EVERY_SECOND)
def test_a_replay_of_a_live_log_is_identical_while_waves_close(
    broker, worker_factory, monkeypatch
) -> None:
    worker_factory.start()
    settings = load_settings(worker_factory.config, broker_url=broker.url)
    boot = broker.bootstrap
    wait_until(lambda: read_topic_to_end(boot, "wavematch.waves.v1"), 60, "the first waves")
    groups: list[list[str]] = []
    to_end = reader.records_to_highwater

    def recorded(consumer: Any, partitions: Any, idle_s: float) -> Any:
        groups.append(sorted({tp.topic for tp in partitions}))
        return to_end(consumer, partitions, idle_s)

    monkeypatch.setattr(reader, "records_to_highwater", recorded)
    for round_ in range(5):
        produce(boot, [(b"1v1/eu", json_join(f"t-live-{round_}"))])
        processed = run(committed_offsets(boot, settings.queue_group, QUEUE.name))
        records = run(read_topics(boot, (QUEUE.name, *JUDGED, CONFIG.name)))
        report = replay(settings, records, processed=processed)
        assert report.ok, (round_, report.differences[:3])
    assert groups[:2] == [sorted(JUDGED), sorted((CONFIG.name, QUEUE.name))]
