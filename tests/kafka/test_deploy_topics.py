"""The topics the deployments' own topic command creates on a live Apache Kafka broker have
what the topic map (schemas/topics.py) and the compaction of the state topics promise:
partition count from the deployment's settings, cleanup policy and retention set on the
topic itself (DescribeConfigs), not inherited from the broker's defaults."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("yaml", reason="PyYAML parses the deployment files (test extra)")

from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
)

from schemas.topics import TOPICS
from streams.settings import Settings
from streams.worker.snapshot_topic import snapshot_topic
from tests.deploy import checks
from tests.integration.conftest import wait_until
from tests.kafka.broker import KafkaBroker, empty_broker

pytestmark = pytest.mark.integration


def compose_topic_command(tmp_path: Path) -> tuple[list[str], dict[str, str], Path]:
    service = checks.compose()["services"]["topics"]
    config = checks.compose_config_file(service)
    assert config is not None
    return list(service["entrypoint"]), checks.service_env(service), config


def k8s_topic_command(tmp_path: Path) -> tuple[list[str], dict[str, str], Path]:
    docs = checks.k8s_docs()
    job = checks.find(docs, "Job", "wavematch-topics")
    env = checks.container_env(job, docs)
    text = checks.mounted_config(job, docs, env["WAVEMATCH_CONFIG_FILE"])
    assert text is not None
    config = tmp_path / "wavematch.toml"
    config.write_text(text)
    # A single test broker cannot hold three replicas: only this one setting is changed.
    env["WAVEMATCH_REPLICATION_FACTOR"] = "1"
    return list(checks.container(job)["command"]), env, config


def expected_topics(settings: Settings) -> dict[str, tuple[int, dict[str, str]]]:
    """What the topic map and ADRs 0005/0061 promise: topic -> (partitions, configs)."""
    partitions = settings.partitions
    compacted = {"cleanup.policy": "compact"}
    return {
        **{t.name: (partitions, t.config()) for t in TOPICS},
        snapshot_topic(settings.app_id): (partitions, compacted),
        f"{settings.app_id}-__assignor-__leader": (1, {}),
    }


def listing_of(admin: AdminClient, names: set[str]) -> dict[str, Any] | None:
    """The broker's topic metadata once it lists exactly ``names`` besides Kafka's own."""
    topics = admin.list_topics(timeout=30).topics
    return topics if {t for t in topics if not t.startswith("__")} == names else None


@pytest.mark.parametrize("deployment", ["compose", "k8s"])
def test_deployed_topics_have_the_promised_partitions_cleanup_and_retention(
    kafka_broker: KafkaBroker, tmp_path: Path, deployment: str
) -> None:
    command = compose_topic_command if deployment == "compose" else k8s_topic_command
    argv, env, config = command(tmp_path)
    argv = [str(Path(sys.executable).parent / argv[0]), *argv[1:]]
    empty_broker(kafka_broker.bootstrap)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("WAVEMATCH_")}
    environ.update(env, WAVEMATCH_BROKER_URL=kafka_broker.url, WAVEMATCH_CONFIG_FILE=str(config))
    done = subprocess.run(
        argv, env=environ, capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]

    settings = checks.settings_under(env, config)
    expected = expected_topics(settings)
    admin = AdminClient({"bootstrap.servers": kafka_broker.bootstrap})
    assert {line.split()[0] for line in done.stdout.splitlines()} == {"created"}, done.stdout
    # Creation returns once the controller has it; the broker's metadata follows shortly.
    metadata = wait_until(
        lambda: listing_of(admin, set(expected)),
        30,
        f"the broker to list exactly {sorted(expected)} (created: {done.stdout.strip()})",
    )
    for name, (partitions, configs) in expected.items():
        assert len(metadata[name].partitions) == partitions, name
        resource = ConfigResource("TOPIC", name)
        described = admin.describe_configs([resource])[resource].result(30)
        for key, value in configs.items():
            entry = described[key]
            assert (name, key, entry.value) == (name, key, value)
            assert entry.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value, (name, key)


def test_topics_check_names_a_changed_retention(kafka_broker: KafkaBroker, tmp_path: Path) -> None:
    """`wavematch topics check` exits 1 naming a config an operator changed by hand."""
    _, env, config = compose_topic_command(tmp_path)
    script = str(Path(sys.executable).parent / "wavematch")
    empty_broker(kafka_broker.bootstrap)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("WAVEMATCH_")}
    environ.update(env, WAVEMATCH_BROKER_URL=kafka_broker.url, WAVEMATCH_CONFIG_FILE=str(config))

    def topics(action: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [script, "topics", action], env=environ, capture_output=True, text=True, timeout=120
        )

    assert topics("create").returncode == 0
    assert topics("check").returncode == 0
    admin = AdminClient({"bootstrap.servers": kafka_broker.bootstrap})
    retention = ConfigEntry("retention.ms", "1234", incremental_operation=AlterConfigOpType.SET)
    changed = ConfigResource("TOPIC", "wavematch.matches.v1", incremental_configs=[retention])
    admin.incremental_alter_configs([changed])[changed].result(30)
    planned = next(t for t in TOPICS if t.name == "wavematch.matches.v1").config()["retention.ms"]
    drifted = wait_until(
        lambda: (done := topics("check")).returncode == 1 and done,
        30,
        "topics check to see the changed retention",
    )
    assert (
        f"drift: wavematch.matches.v1: retention.ms=1234, the settings say {planned}"
        in drifted.stderr
    )
