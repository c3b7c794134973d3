"""`wavematch simulate --candidate` without --log: the same what-if read from the broker."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from confluent_kafka import Producer

from schemas.topics import CONFIG, QUEUE
from streams.audit.logfile import read_log
from streams.cli import main
from streams.embedded.broker import EmbeddedBroker
from streams.settings import load_settings
from streams.topics import ensure_topics
from tests.sim.test_recorded import LOG, TIGHT, candidate

pytestmark = pytest.mark.integration

RECORDED_CONFIG = LOG.with_suffix(".toml")


def test_the_broker_topics_give_the_exported_files_report(tmp_path: Path) -> None:
    tight = str(candidate(tmp_path, "tight", rules=TIGHT))
    from_file = tmp_path / "file"
    args = ["simulate", "--log", str(LOG), "--candidate", tight]
    assert main([*args, "--report", str(from_file)]) == 0
    with EmbeddedBroker(log_path=tmp_path / "broker.log") as broker:
        settings = load_settings(RECORDED_CONFIG, broker_url=broker.url)
        asyncio.run(ensure_topics(settings))
        producer = Producer({"bootstrap.servers": broker.bootstrap})
        for record in read_log(LOG):
            if record.topic in (QUEUE.name, CONFIG.name):
                producer.produce(
                    record.topic,
                    record.value,
                    record.key,
                    partition=record.partition,
                    timestamp=record.timestamp or 0,
                )
        assert producer.flush(30) == 0
        from_broker = tmp_path / "broker"
        args = ["simulate", "--broker", broker.url, "--candidate", tight]
        assert main([*args, "--report", str(from_broker)]) == 0
    file_figures = json.loads((from_file / "figures.json").read_text())
    broker_figures = json.loads((from_broker / "figures.json").read_text())
    assert (file_figures["log"], broker_figures["log"]) == ("recorded-session.avro", "broker")
    assert broker_figures["scenarios"] == file_figures["scenarios"]
    (scenario,) = broker_figures["scenarios"]
    assert [v["variant"] for v in scenario["variants"]] == ["recorded", "tight"]
