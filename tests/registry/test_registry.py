"""A worker with a schema registry, on Apache Kafka with Apicurio Registry: outside readers
(confluent-kafka's deserializer, Apicurio's JVM serde) read its matches with no wavematch
code; joins framed by confluent-kafka's serializer are folded; an unknown schema id is a
dead letter; `wavematch replay` of that log is IDENTICAL through the registry and one line
without it; the registry refuses an incompatible change of an output schema.

One broker (the session's), one registry (the session's) and one worker for the module.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from schemas.codec import load_schema
from schemas.topics import DEADLETTER, MATCHES, QUEUE, WAVES
from streams.embedded.broker import free_port
from streams.wire.registry import RegistryError, SchemaRegistry, client_config, subject_schema
from tests.integration.conftest import ROOT, Worker, wait_until, wavematch_process
from tests.kafka.broker import KafkaBroker, empty_broker
from tests.registry.apicurio import Apicurio, serde_classpath

pytestmark = pytest.mark.integration

EXAMPLES = ROOT / "examples" / "registry"
CONFIG = """
partitions = 1
session_timeout_ms = 6000
heartbeat_interval_ms = 500
schema_registry_url = "{url}"
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu"]
wave_interval_ms = 1000
[[queues]]
name = "2v2"
strategy = "rebalance"
team_size = 2
regions = ["eu"]
wave_interval_ms = 1000
"""


@pytest.fixture(scope="module")
def config(apicurio: Apicurio, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("registry-config") / "wavematch.toml"
    path.write_text(CONFIG.format(url=apicurio.url))
    return path


@pytest.fixture(scope="module")
def worker(
    config: Path,
    apicurio: Apicurio,
    kafka_broker: KafkaBroker,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Worker]:
    # The registry was launched first (``config`` asks for it), then the broker started:
    # their JVMs start side by side.
    apicurio.wait_ready()
    empty_broker(kafka_broker.bootstrap)
    root = tmp_path_factory.mktemp("registry-worker")
    port = free_port()
    log = root / "worker.log"
    process = wavematch_process(
        ["worker", "--broker", kafka_broker.url, "--web-port", str(port)],
        log,
        WAVEMATCH_CONFIG_FILE=str(config),
    )
    running = Worker(process, f"http://127.0.0.1:{port}", log)
    try:
        wait_until(running.partitions, 90, f"worker ready ({log})", lambda: process.poll() is None)
        yield running
    finally:
        running.stop()
    assert "Traceback" not in log.read_text()


def join(ticket: str, side: str, now_ms: int) -> dict[str, Any]:
    return {
        "ticket_id": ticket,
        "queue": "1v1",
        "region": "eu",
        "party_id": None,
        "players": [{"player_id": f"p-{ticket}", "ratings": {side: 1500}}],
        "joined_at_ms": now_ms,
    }


def publish_framed_joins(broker: KafkaBroker, registry_url: str, tickets: list[str]) -> None:
    """Joins as a JVM or Python platform sends them with a registry: confluent-kafka's
    AvroSerializer with the committed .avsc, a subject per record type on the queue topic."""
    registry = SchemaRegistryClient({"url": registry_url})
    serialize = AvroSerializer(
        registry,
        json.dumps(load_schema("TicketJoined")),
        conf={"subject.name.strategy": _topic_record_subject},
    )
    producer = Producer({"bootstrap.servers": broker.bootstrap, "partitioner": "murmur2_random"})
    now_ms = int(time.time() * 1000)
    context = SerializationContext(QUEUE.name, MessageField.VALUE)
    for ticket, side in zip(tickets, ("bw", "sc2"), strict=True):  # the game's two sides
        body = join(ticket, side, now_ms)
        producer.produce(QUEUE.name, serialize(body, context), key=b"1v1/eu")
    # A registry-framed value whose schema id the registry never gave: a dead letter.
    producer.produce(QUEUE.name, b"\x00\x00\x0f\x42\x3f" + b"\x00" * 8, key=b"1v1/eu")
    producer.flush(30)


def expire_a_backfill(broker: KafkaBroker) -> None:
    """A 2v2 backfill request nobody fills: a BackfillResult EXPIRED at its next tick."""
    now_ms = int(time.time() * 1000)
    request = {
        "type": "BackfillRequested",
        "session_id": "reg-session",
        "queue": "2v2",
        "region": "eu",
        "teams": [
            {"name": "red", "players": [{"player_id": "r0", "rating": 1500}], "open_slots": 1},
            {"name": "blue", "players": [{"player_id": "b0", "rating": 1500}], "open_slots": 1},
        ],
        "deadline_at_ms": now_ms + 500,
        "requested_at_ms": now_ms,
    }
    producer = Producer({"bootstrap.servers": broker.bootstrap, "partitioner": "murmur2_random"})
    producer.produce(QUEUE.name, json.dumps(request).encode(), key=b"2v2/eu")
    producer.flush(30)


def _topic_record_subject(context: SerializationContext, name: str) -> str:
    # Two record types on one topic cannot share <topic>-value: one subject per type.
    return f"{context.topic}-{name}"


def read_until(
    broker: KafkaBroker, registry_url: str, topic: str, found: Any, timeout_s: float = 60
) -> dict[str, Any]:
    """The first record of ``topic`` (decoded by confluent-kafka alone) that ``found`` takes."""
    deserialize = AvroDeserializer(SchemaRegistryClient({"url": registry_url}))
    consumer = Consumer(
        {
            "bootstrap.servers": broker.bootstrap,
            "group.id": f"test-{topic}-{time.monotonic_ns()}",
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe([topic])
    deadline = time.monotonic() + timeout_s
    seen = []
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            assert message.value()[:1] == b"\x00", "not in the registry framing"
            record = deserialize(message.value(), SerializationContext(topic, MessageField.VALUE))
            if found(record):
                return dict(record)
            seen.append(record)
    finally:
        consumer.close()
    raise AssertionError(f"no such record on {topic} within {timeout_s:.0f} s; saw {seen}")


def wavematch_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAVEMATCH_SCHEMA_REGISTRY")}
    return subprocess.run(
        [sys.executable, "-m", "streams.cli", *args, "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


def seated(match: dict[str, Any]) -> set[str]:
    return {seat["ticket_id"] for team in match["teams"] for seat in team["players"]}


def test_outside_readers_read_the_match_of_registry_framed_joins(
    worker: Worker, kafka_broker: KafkaBroker, apicurio: Apicurio, config: Path, tmp_path: Path
) -> None:
    # A BackfillResult first on the matches topic: the readers below pass over it.
    expire_a_backfill(kafka_broker)
    read_until(kafka_broker, apicurio.url, MATCHES.name, lambda r: "session_id" in r)
    tickets = ["reg-a", "reg-b"]
    publish_framed_joins(kafka_broker, apicurio.url, tickets)
    letter = read_until(
        kafka_broker,
        apicurio.url,
        DEADLETTER.name,
        lambda r: r["field"] == "schema_id" and "999999" in r["reason"],
    )
    assert letter["error_code"] == "unknown_schema_id", letter

    assert "schema id 999999" in letter["reason"]
    match = read_until(
        kafka_broker, apicurio.url, MATCHES.name, lambda r: seated(r) == set(tickets)
    )
    assert match["queue"] == "1v1" and match["strategy"] == "optimal"
    wave = read_until(kafka_broker, apicurio.url, WAVES.name, lambda r: r["matches"] >= 1)
    assert wave["region"] == "eu"

    # `wavematch tail` reads the registry-framed topic through the same registry.
    tail = subprocess.run(
        [
            *(sys.executable, "-m", "streams.cli", "tail", "matches", "--broker", kafka_broker.url),
            *("--config", str(config), "--from-beginning", "--count", "1", "--timeout", "30"),
            *("--where", "type=MatchCreated"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert tail.returncode == 0, tail.stderr
    shown = json.loads(tail.stdout.splitlines()[0])
    assert (shown["type"], shown["match_id"]) == ("MatchCreated", match["match_id"])

    # An auditor replays that log, framed joins and framed outputs, through the registry
    # of the settings (docs/adr/0167); without one, one line naming the setting.
    identical = wavematch_cli("replay", "--broker", kafka_broker.url, "--config", str(config))
    assert identical.returncode == 0, identical.stdout + identical.stderr
    lines = {line[:21].strip(): line[21:] for line in identical.stdout.splitlines()}
    assert lines["verdict"] == "IDENTICAL", identical.stdout
    matched, _, checked = lines["matches identical"].partition(" of ")
    assert matched == checked and int(checked) >= 1, identical.stdout
    bare = tmp_path / "no-registry.toml"
    bare.write_text(config.read_text().replace(f'schema_registry_url = "{apicurio.url}"', ""))
    refused = wavematch_cli("replay", "--broker", kafka_broker.url, "--config", str(bare))
    assert refused.returncode == 2 and refused.stdout == "", refused.stdout + refused.stderr
    (line,) = refused.stderr.splitlines()
    assert "schema_registry_url:" in line and "registry-framed" in line, line

    # The Python example of schemas/README.md, as a user runs it.
    example = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "read_matches.py"),
            kafka_broker.bootstrap,
            apicurio.url,
            match["match_id"],
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert example.returncode == 0, example.stderr
    assert json.loads(example.stdout.splitlines()[-1])["match_id"] == match["match_id"]

    # The JVM example: Apicurio's serde in its Confluent-compatible mode.
    classes = tmp_path / "classes"
    javac = subprocess.run(
        ["javac", "-cp", serde_classpath(), "-d", str(classes), str(EXAMPLES / "ReadMatches.java")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert javac.returncode == 0, javac.stderr
    jvm = subprocess.run(
        [
            "java",
            "-cp",
            f"{serde_classpath()}:{classes}",
            "ReadMatches",
            kafka_broker.bootstrap,
            apicurio.v2_url,
            match["match_id"],
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert jvm.returncode == 0, jvm.stdout + jvm.stderr
    name, _, body = jvm.stdout.strip().splitlines()[-1].partition(" ")
    assert name == "io.wavematch.v1.MatchCreated"
    assert json.loads(body)["match_id"] == match["match_id"]


def test_the_registry_refuses_an_incompatible_output_schema(
    worker: Worker, apicurio: Apicurio
) -> None:
    """A release whose WaveClosed gained a field without a default cannot register it: the
    worker would stop at its start with this line instead of writing what readers refuse."""

    def gained(field: dict[str, Any]) -> Any:
        def schema_of(topic: Any) -> Any:
            schema = json.loads(json.dumps(subject_schema(topic)))
            schema["fields"].append(field)
            return schema

        return schema_of

    async def register(field: dict[str, Any]) -> None:
        from confluent_kafka.schema_registry import AsyncSchemaRegistryClient

        client = AsyncSchemaRegistryClient(client_config(apicurio.url))
        await SchemaRegistry(client).register_outputs((WAVES,), gained(field))

    registry = SchemaRegistryClient({"url": apicurio.url})
    subject = f"{WAVES.name}-value"
    assert len(registry.get_versions(subject)) == 1  # the worker's, registered at its start
    with pytest.raises(RegistryError) as refused:
        asyncio.run(register({"name": "new_required", "type": "long"}))
    said = str(refused.value)
    assert said.startswith(f"schema registry: cannot register {subject}: ")
    assert "Incompatible" in said and "\n" not in said
    assert len(registry.get_versions(subject)) == 1
    # The compatible evolution, a new field with a default, is accepted as a new version.
    asyncio.run(register({"name": "new_optional", "type": ["null", "long"], "default": None}))
    assert len(registry.get_versions(subject)) == 2
