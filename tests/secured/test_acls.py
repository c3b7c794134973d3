"""Apache Kafka with an authorizer (StandardAuthorizer, KRaft) and SCRAM principals: a worker
runs with exactly the ACLs docs/operations.md lists for it, a platform that only joins and
leaves makes a match, a service that only reads matches reads it, and the platform can
neither forge a MatchCreated nor read or change anyone's credentials.

"Credentials" here are the SCRAM credentials the brokers keep (describing them, or
altering them to take over the worker's principal) and the ACLs themselves. The config
topic holds no secret (ConfigPublished carries the decisive settings only), but the
platform cannot read it either: it reads nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
    ScramMechanism,
    UserScramCredentialDeletion,
)

from schemas.codec import decode, encode_json
from schemas.models import TicketJoined
from schemas.topics import CONFIG, MATCHES, QUEUE
from streams.embedded.broker import free_port
from streams.settings import load_settings
from streams.topics import ensure_topics
from tests.integration.conftest import Worker, run, wait_until, wavematch_process
from tests.kafka.broker import KafkaBroker, java_and_jars
from tests.kafka.fixtures import require_kafka

pytestmark = pytest.mark.integration

HERE = Path(__file__).parent
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
PASSWORDS = {"worker": "worker-secret", "platform": "platform-secret", "reader": "reader-secret"}
APP_ID = "wavematch"
READER_GROUP = "match-reader"

#: The ACLs of docs/operations.md ("ACLs per principal"), for app_id "wavematch":
#: (principal, resource type, name, operations). Every name is literal.
R, W, D, C = AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
OUTPUTS = (
    "wavematch.matches.v1",
    "wavematch.cleanup.v1",
    "wavematch.status.v1",
    "wavematch.waves.v1",
    "wavematch.deadletter.v1",
    "wavematch.config.v1",
)
ACLS = (
    ("worker", TOPIC, QUEUE.name, (R, W, D)),
    *(("worker", TOPIC, name, (W, D)) for name in OUTPUTS),
    # Every worker follows the configurations published while it runs (docs/adr/0160).
    ("worker", TOPIC, "wavematch.config.v1", (R,)),
    ("worker", TOPIC, f"{APP_ID}-queue-snapshots", (R, W, D)),
    # Faust declares its leader topic at every start (it exists: the topic job made it).
    ("worker", TOPIC, f"{APP_ID}-__assignor-__leader", (R, W, D, C)),
    ("worker", GROUP, APP_ID, (R,)),
    ("worker", GROUP, f"{APP_ID}-queue", (R,)),
    ("platform", TOPIC, QUEUE.name, (W, D)),
    ("reader", TOPIC, MATCHES.name, (R, D)),
    ("reader", GROUP, READER_GROUP, (R,)),
)

QUEUES = """
partitions = 1
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu"]
wave_interval_ms = 1000
"""


@dataclass(frozen=True)
class Secured:
    broker: KafkaBroker

    @property
    def sasl(self) -> str:
        return f"127.0.0.1:{self.broker.ports['SASL']}"

    def client(self, user: str, **more: str) -> dict[str, str]:
        return {
            "bootstrap.servers": self.sasl,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": user,
            "sasl.password": PASSWORDS[user],
            **more,
        }


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secured]:
    require_kafka()
    root = tmp_path_factory.mktemp("acls")
    broker = KafkaBroker(
        root / "kafka",
        # The first listener (PLAINTEXT, principal ANONYMOUS) is the test's administrator
        # and the brokers' own: a super user. The principals under test use SASL only.
        listeners={"PLAINTEXT": "PLAINTEXT", "SASL": "SASL_PLAINTEXT"},
        scram_users=[("SCRAM-SHA-512", user, password) for user, password in PASSWORDS.items()],
        extra_properties={
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users": "User:ANONYMOUS",
            "listener.name.sasl.sasl.enabled.mechanisms": "SCRAM-SHA-512",
            "listener.name.sasl.scram-sha-512.sasl.jaas.config": SCRAM,
        },
    )
    with broker.start():
        # The topics come from the topic job, run by an administrator (docs/adr/0060).
        run(ensure_topics(load_settings(broker_url=broker.url, partitions=1)))
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        bindings = [
            AclBinding(
                kind,
                name,
                ResourcePatternType.LITERAL,
                f"User:{user}",
                "*",
                operation,
                AclPermissionType.ALLOW,
            )
            for user, kind, name, operations in ACLS
            for operation in operations
        ]
        for future in admin.create_acls(bindings).values():
            future.result(30)
        yield Secured(broker)


def start_worker(secured: Secured, root: Path) -> Worker:
    password = root / "worker-password"
    password.write_text(PASSWORDS["worker"])
    config = root / "worker.toml"
    settings = {
        "broker_url": f"kafka://{secured.sasl}",
        "app_id": APP_ID,
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_username": "worker",
        "sasl_password_file": str(password),
    }
    config.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in settings.items()) + QUEUES)
    port = free_port()
    log = root / "worker.log"
    process = wavematch_process(
        ["worker", "--web-port", str(port)], log, WAVEMATCH_CONFIG_FILE=str(config)
    )
    worker = Worker(process, f"http://127.0.0.1:{port}", log)
    try:
        wait_until(worker.partitions, 90, f"worker ready ({log})", lambda: process.poll() is None)
    except AssertionError:
        worker.stop()
        raise
    return worker


def join(ticket: str, side: str) -> bytes:
    body = {
        "ticket_id": ticket,
        "queue": "1v1",
        "region": "eu",
        "players": [{"player_id": f"p-{ticket}", "ratings": {side: 1500}}],
        "joined_at_ms": int(time.time() * 1000),
    }
    return encode_json(TicketJoined.model_validate(body))


def produce(config: dict[str, str], topic: str, key: bytes, value: bytes) -> KafkaError | None:
    """Send one record; the delivery error, or None when the broker took it."""
    said: list[KafkaError | None] = []
    producer = Producer({**config, "partitioner": "murmur2_random", "message.timeout.ms": "10000"})
    producer.produce(topic, value, key=key, on_delivery=lambda error, _: said.append(error))
    producer.flush(20)
    assert said, f"no delivery report for {topic}"
    return said[0]


def test_each_principal_can_do_its_part_and_the_platform_nothing_else(
    secured: Secured, tmp_path: Path
) -> None:
    worker = start_worker(secured, tmp_path)
    try:
        platform = secured.client("platform")
        tickets = {"acl-a": "bw", "acl-b": "sc2"}
        for ticket, side in tickets.items():
            assert produce(platform, QUEUE.name, b"1v1/eu", join(ticket, side)) is None

        reader = Consumer(
            secured.client("reader", **{"group.id": READER_GROUP, "auto.offset.reset": "earliest"})
        )
        reader.subscribe([MATCHES.name])
        deadline, match = time.monotonic() + 60, None
        while match is None and time.monotonic() < deadline:
            message = reader.poll(0.5)
            if message is not None and not message.error():
                match = decode(message.value())
        reader.close()
        assert match is not None, f"no match read by the reader ({worker.log})"
        assert {s.ticket_id for t in match.teams for s in t.players} == set(tickets)

        # The worker's principal may not describe the topics' configs: `topics check` run
        # as it says so in one line, instead of reporting what it could not read as drift.
        check = subprocess.run(
            [sys.executable, "-m", "streams.cli", "topics", "check"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "WAVEMATCH_CONFIG_FILE": str(tmp_path / "worker.toml")},
        )
        assert check.returncode == 2, check.stdout + check.stderr
        (line,) = check.stderr.splitlines()
        assert "the broker refused DescribeConfigs to this principal" in line, line

        # The platform cannot forge a match: its write to an output topic is refused.
        forged = produce(platform, MATCHES.name, b"m-forged", b"\xc3\x01forged")
        assert forged is not None and forged.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED

        # Nor read any topic, the config topic included: the broker does not even show it
        # (no Describe), and a consumer of it gets nothing but refusals.
        shown = AdminClient(platform).list_topics(CONFIG.name, timeout=10).topics[CONFIG.name]
        assert shown.error is not None
        assert shown.error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
        snoop = Consumer({**platform, "group.id": "snoop", "auto.offset.reset": "earliest"})
        snoop.subscribe([CONFIG.name])
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            message = snoop.poll(0.5)
            assert message is None or message.error(), "the platform read the config topic"
        snoop.close()

        # Nor see or change credentials: the SCRAM credentials are the cluster's.
        described = describe_scram_with_java(
            secured.broker, "platform", PASSWORDS["platform"], "worker"
        )
        assert described == "CLUSTER_AUTHORIZATION_FAILED"
        admin = AdminClient(secured.client("platform"))
        deletion = UserScramCredentialDeletion("worker", ScramMechanism.SCRAM_SHA_512)
        with pytest.raises(KafkaException) as altered:
            admin.alter_user_scram_credentials([deletion])["worker"].result()
        assert altered.value.args[0].code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    finally:
        worker.stop()
    log = worker.log.read_text()
    assert "Traceback" not in log and "AuthorizationFailed" not in log
    assert PASSWORDS["worker"] not in log


def describe_scram_with_java(broker: KafkaBroker, user: str, password: str, who: str) -> str:
    """What describing ``who``'s SCRAM credentials answers to ``user``, through Kafka's Java
    admin client: the error's name or "described". Not librdkafka: confluent-kafka's admin
    client aborts its process (munmap_chunk) after this refusal."""
    java, jars = java_and_jars()
    properties = broker.log_dir / f"describe-scram-{user}.properties"
    properties.write_text(
        f"bootstrap.servers=127.0.0.1:{broker.ports['SASL']}\n"
        "security.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=SCRAM-SHA-512\n"
        f'sasl.jaas.config={SCRAM[:-1]} username="{user}" password="{password}";\n'
    )
    child = subprocess.run(
        [java, "-cp", f"{jars}/*", str(HERE / "DescribeScram.java"), str(properties), who],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == 0, child.stderr.strip()[-500:]
    return child.stdout.strip().splitlines()[-1]
