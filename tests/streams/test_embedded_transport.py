"""The embedded broker's transport shortens the worker consumer's fetch wait (Tansu answers
late when little data waits); an Apache Kafka URL keeps Faust's own consumer."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from streams.embedded.transport import FETCH_MAX_WAIT_MS
from streams.settings import load_settings
from streams.worker.app import create_app

CONFIG = """
partitions = 2
web_enabled = false
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu"]
wave_interval_ms = 1000
"""


@pytest.mark.parametrize(
    ("broker_url", "fetch_wait_ms"),
    [("tansu://127.0.0.1:1", FETCH_MAX_WAIT_MS), ("kafka://127.0.0.1:1", 1500)],
)
async def test_worker_consumer_fetch_wait(
    tmp_path: Path, broker_url: str, fetch_wait_ms: int
) -> None:
    config = tmp_path / "wavematch.toml"
    config.write_text(CONFIG)
    app = create_app(load_settings(config, broker_url=broker_url), CollectorRegistry())
    thread = app.consumer._thread
    consumer = thread._create_worker_consumer(app.transport)
    try:
        assert consumer._fetch_max_wait_ms == fetch_wait_ms
    finally:
        await consumer.stop()  # never started: releases its client
