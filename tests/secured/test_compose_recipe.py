"""The broker side of docker-compose.secured.yml on Apache Kafka, without a container
engine: its `certs` script (keytool) makes the keystore and CA, the `kafka` service's
KAFKA_* variables become the broker's properties (the apache/kafka image's naming rule),
the SCRAM user is added after start (as its `kafka-user` one-shot does, through the same
AlterUserScramCredentials request), and the workers' settings then create the topics and
publish over SASL_SSL."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from streams.settings import load_settings
from streams.topics import ensure_topics
from tests.deploy import checks
from tests.deploy import secured_checks as secured
from tests.kafka.broker import KafkaBroker
from tests.kafka.fixtures import require_kafka
from tests.secured.test_sasl_ssl import COMMANDS, wavematch

pytestmark = pytest.mark.integration

#: Broker settings the test's launcher owns (ports, listeners): not taken from compose.
LAUNCHER_OWNS = ("LISTENERS", "ADVERTISED_LISTENERS", "LISTENER_SECURITY_PROTOCOL_MAP")


def image_property(variable: str) -> str:
    """apache/kafka's rule: KAFKA_ dropped, lower case, ___ is -, __ is _, _ is ."""
    name = variable.removeprefix("KAFKA_").lower()
    return name.replace("___", "-").replace("__", "\0").replace("_", ".").replace("\0", "_")


def test_the_image_naming_rule() -> None:
    assert image_property("KAFKA_LISTENER_NAME_SECURED_SCRAM___SHA___512_SASL_JAAS_CONFIG") == (
        "listener.name.secured.scram-sha-512.sasl.jaas.config"
    )
    assert image_property("KAFKA_SSL_KEYSTORE_TYPE") == "ssl.keystore.type"


def test_the_compose_recipe_serves_sasl_ssl(tmp_path: Path) -> None:
    require_kafka()
    if shutil.which("keytool") is None:
        pytest.skip("keytool (the JDK's) is not installed")
    services = secured.secured_compose()["services"]
    tls = tmp_path / "tls"
    tls.mkdir()
    script = services["certs"]["entrypoint"][2].replace("$$", "$").replace("cd /tls", f"cd {tls}")
    script = script.replace("chown 1000 new.p12 && ", "")  # the image's uid; not ours here
    made = subprocess.run(
        ["sh", "-ec", script],
        env={**os.environ, **services["certs"]["environment"]},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert {p.name for p in tls.iterdir()} == {"ca.pem", "broker.p12", "broker.pem"}

    kafka_env = checks.service_env(services["kafka"])
    properties = {
        image_property(k): v.replace("/etc/kafka/tls", str(tls))
        for k, v in kafka_env.items()
        if k.startswith("KAFKA_") and k.removeprefix("KAFKA_") not in LAUNCHER_OWNS
    }
    protocols = dict(
        p.split(":") for p in kafka_env["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"].split(",")
    )
    broker = KafkaBroker(
        tmp_path / "kafka",
        listeners={"PLAINTEXT": "PLAINTEXT", "SECURED": protocols["SECURED"]},
        extra_properties=properties,
        host="localhost",  # the certificate names kafka and localhost, not 127.0.0.1
    )
    env = checks.service_env(services["worker"])
    password = tmp_path / "sasl-password.txt"
    password.write_text(
        "0123456789abcdef0123456789abcdef0123456789abcdef"
    )  # as `openssl rand -hex 24`
    with broker.start():
        add_scram_user(broker.bootstrap, env["WAVEMATCH_SASL_USERNAME"], password.read_text())
        config = tmp_path / "wavematch.toml"
        config.write_text((checks.DEPLOY / "wavematch.toml").read_text())
        worker_env = {
            **env,
            # The certificate names kafka and localhost; the test reaches it as localhost.
            "WAVEMATCH_BROKER_URL": f"kafka://localhost:{broker.ports['SECURED']}",
            "WAVEMATCH_SASL_PASSWORD_FILE": str(password),
            "WAVEMATCH_SSL_CAFILE": str(tls / "ca.pem"),
        }
        with checks.environment(
            {k: v for k, v in worker_env.items() if k != "WAVEMATCH_CONFIG_FILE"}
        ):
            settings = load_settings(config)
        assert settings.security_protocol == "SASL_SSL"
        assert asyncio.run(asyncio.wait_for(ensure_topics(settings), 60))
        toml = tmp_path / "client.toml"
        toml.write_text(
            "".join(
                f'{k.removeprefix("WAVEMATCH_").lower()} = "{v}"\n'
                for k, v in worker_env.items()
                if k.startswith("WAVEMATCH_") and k != "WAVEMATCH_CONFIG_FILE"
            )
            + config.read_text()
        )
        joined = wavematch(toml, *COMMANDS["join"][:4], "eu-west", *COMMANDS["join"][5:])
        assert joined.returncode == 0, joined.stderr


def add_scram_user(bootstrap: str, user: str, password: str) -> None:
    from confluent_kafka.admin import (
        AdminClient,
        ScramCredentialInfo,
        ScramMechanism,
        UserScramCredentialUpsertion,
    )

    admin = AdminClient({"bootstrap.servers": bootstrap})
    upsert = UserScramCredentialUpsertion(
        user, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password.encode()
    )
    for future in admin.alter_user_scram_credentials([upsert]).values():
        future.result(30)
