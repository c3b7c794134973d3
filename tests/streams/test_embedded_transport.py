"""The ``tansu://`` scheme resolves to Faust's aiokafka transport, marked as the embedded
broker's; an Apache Kafka URL keeps Faust's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

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
    ("broker_url", "driver"),
    [("tansu://127.0.0.1:1", "tansu+aiokafka"), ("kafka://127.0.0.1:1", "aiokafka")],
)
def test_the_scheme_picks_the_transport(tmp_path: Path, broker_url: str, driver: str) -> None:
    config = tmp_path / "wavematch.toml"
    config.write_text(CONFIG)
    app = create_app(load_settings(config, broker_url=broker_url), CollectorRegistry())
    assert app.transport.driver_version.startswith(f"{driver}=")
