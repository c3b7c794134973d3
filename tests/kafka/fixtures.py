"""Pytest fixtures for the Apache Kafka tier (imported by tests/conftest.py).

``kafka_broker`` is one broker for the whole session; ``kafka_broker_factory`` starts
brokers of a test's own (other listeners, SASL users, a broker to SIGKILL), stopped after
the test; ``kafka_cluster`` is a test's own three-node replicated cluster. Without Java
or the jars they fail, saying why in one line, unless ``WAVEMATCH_SKIP_TIERS=kafka`` asks
to skip them (never under ``CI=true``): no run passes with the Kafka tier silently skipped.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.kafka.broker import KafkaBroker, KafkaCluster, KafkaUnavailable, java_and_jars
from tests.tiers import skipped_tiers


def require_kafka() -> None:
    """Fail the calling test when the Kafka tier cannot run; skip it only when the run was
    told to (``WAVEMATCH_SKIP_TIERS=kafka``; not under CI=true). The session's start
    installs the tier first (tests/tiers.py)."""
    try:
        java_and_jars()
    except KafkaUnavailable as missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{missing}; CI=true requires the Apache Kafka tier", pytrace=False)
        if "kafka" in skipped_tiers():
            pytest.skip(f"{missing}; skipped as WAVEMATCH_SKIP_TIERS asks")
        pytest.fail(str(missing), pytrace=False)


@dataclass
class KafkaBrokerFactory:
    """``start(extra_properties=..., listeners=..., scram_users=...)`` in the test's tmp dir."""

    root: Path
    started: list[KafkaBroker] = field(default_factory=list)

    def start(
        self,
        extra_properties: Mapping[str, str] | None = None,
        listeners: Mapping[str, str] | None = None,
        scram_users: Sequence[tuple[str, str, str]] = (),
    ) -> KafkaBroker:
        require_kafka()
        broker = KafkaBroker(
            self.root / f"kafka-{len(self.started)}",
            extra_properties=dict(extra_properties or {}),
            listeners=dict(listeners or {"PLAINTEXT": "PLAINTEXT"}),
            scram_users=scram_users,
        )
        self.started.append(broker)
        return broker.start()

    def stop_all(self) -> None:
        for broker in self.started:
            broker.stop(signal.SIGTERM)


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """One Apache Kafka broker for the session (its log under pytest's kept tmp dirs)."""
    require_kafka()
    broker = KafkaBroker(tmp_path_factory.mktemp("kafka-session"))
    with broker.start():
        yield broker


@pytest.fixture
def kafka_broker_factory(tmp_path: Path) -> Iterator[KafkaBrokerFactory]:
    factory = KafkaBrokerFactory(tmp_path)
    yield factory
    factory.stop_all()


@pytest.fixture
def kafka_cluster(tmp_path: Path) -> Iterator[KafkaCluster]:
    """Three replicated nodes (tests/kafka/broker.py ``KafkaCluster``), logs in tmp_path."""
    require_kafka()
    with KafkaCluster(tmp_path / "kafka-cluster").start() as cluster:
        yield cluster
