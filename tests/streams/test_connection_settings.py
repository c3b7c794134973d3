"""The secured-connection settings: what they refuse (one line naming the field), where the
password comes from, that it shows nowhere (repr, fingerprint), and that every Kafka client
in streams/ takes its connection from streams/connection.py."""

from __future__ import annotations

import re
import ssl
from pathlib import Path

import pytest

from streams.connection import client_kwargs, connection_of, faust_credentials
from streams.settings import SettingsError, load_settings
from tests.secured.certificates import make_authority

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "pa55-w0rd-only-in-env"
SASL = {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-256", "sasl_username": "mm"}


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_authority(tmp_path_factory.mktemp("tls")).ca


def test_plaintext_is_the_default_and_adds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WAVEMATCH_SASL_PASSWORD", raising=False)
    settings = load_settings(broker_url="kafka://k1:9092,k2:9092")
    assert client_kwargs(connection_of(settings)) == {
        "bootstrap_servers": "k1:9092,k2:9092",
        "security_protocol": "PLAINTEXT",
    }
    assert faust_credentials(connection_of(settings)) is None


def test_sasl_ssl_from_the_environment(monkeypatch: pytest.MonkeyPatch, ca: Path) -> None:
    monkeypatch.setenv("WAVEMATCH_SASL_PASSWORD", PASSWORD)
    settings = load_settings(**SASL, ssl_cafile=ca)
    kwargs = client_kwargs(connection_of(settings))
    assert kwargs["security_protocol"] == "SASL_SSL"
    assert kwargs["sasl_mechanism"] == "SCRAM-SHA-256"
    assert (kwargs["sasl_plain_username"], kwargs["sasl_plain_password"]) == ("mm", PASSWORD)
    assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
    assert kwargs["ssl_context"].verify_mode == ssl.CERT_REQUIRED
    credentials = faust_credentials(connection_of(settings))
    assert credentials.protocol.value == "SASL_SSL"  # type: ignore[union-attr]
    assert credentials.mechanism.value == "SCRAM-SHA-256"  # type: ignore[union-attr]
    assert credentials.password == PASSWORD  # type: ignore[union-attr]


def test_the_password_shows_in_no_repr_and_not_in_the_fingerprint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("WAVEMATCH_SASL_PASSWORD", raising=False)
    plain = load_settings(broker_url="kafka://elsewhere:9092")
    sasl_plaintext = {**SASL, "security_protocol": "SASL_PLAINTEXT"}
    monkeypatch.setenv("WAVEMATCH_SASL_PASSWORD", PASSWORD)
    settings = load_settings(**sasl_plaintext)
    for text in (repr(settings), str(settings), repr(connection_of(settings))):
        assert PASSWORD not in text
    assert PASSWORD not in settings.model_dump_json()
    # Connection settings decide nothing: the fingerprint (in every tick and match) is
    # that of the same queues on a plaintext broker, whatever the password.
    assert settings.config_fingerprint() == plain.config_fingerprint()
    monkeypatch.setenv("WAVEMATCH_SASL_PASSWORD", "another")
    assert load_settings(**sasl_plaintext).config_fingerprint() == plain.config_fingerprint()


def test_the_password_from_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WAVEMATCH_SASL_PASSWORD", raising=False)
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")  # a mounted Secret often ends with a newline
    sasl_plaintext = {**SASL, "security_protocol": "SASL_PLAINTEXT"}
    settings = load_settings(**sasl_plaintext, sasl_password_file=secret)
    assert settings.sasl_password is not None
    assert settings.sasl_password.get_secret_value() == PASSWORD


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"security_protocol": "SASL_SSL"}, "sasl_mechanism"),
        ({**SASL, "sasl_username": None}, "sasl_username"),
        ({**SASL, "sasl_password": None}, "sasl_password"),
        ({"sasl_mechanism": "PLAIN"}, "sasl_mechanism"),
        ({"sasl_username": "mm"}, "sasl_username"),
        ({"security_protocol": "SSL", "ssl_cafile": "/no/such/ca.pem"}, "ssl_cafile"),
        ({"ssl_cafile": "/etc/hostname"}, "ssl_cafile"),
        ({"security_protocol": "SSL", "ssl_keyfile": "/etc/hostname"}, "ssl_keyfile"),
        ({"security_protocol": "SASL_SSL", "sasl_mechanism": "GSSAPI"}, "sasl_mechanism"),
        ({"security_protocol": "TLS"}, "security_protocol"),
        ({"broker_url": "tansu://127.0.0.1:1", "security_protocol": "SSL"}, "security_protocol"),
        ({**SASL, "sasl_password_file": "/no/such/file"}, "sasl_password_file"),
        (
            {**SASL, "sasl_password": "x", "sasl_password_file": "/etc/hostname"},
            "sasl_password_file",
        ),
    ],
)
def test_inconsistent_settings_are_one_line_naming_the_field(
    changes: dict[str, object], field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WAVEMATCH_SASL_PASSWORD", raising=False)
    overrides = {k: v for k, v in changes.items() if v is not None}
    with pytest.raises(SettingsError) as refused:
        load_settings(**overrides)
    message = str(refused.value)
    assert message.startswith(f"{field}: "), message
    assert "\n" not in message
    assert PASSWORD not in message


def test_every_kafka_client_in_streams_takes_the_built_connection() -> None:
    """aiokafka clients get ``**client_kwargs(...)``; nothing else names bootstrap servers."""
    clients = re.compile(r"\b(AIOKafkaConsumer|AIOKafkaProducer|AIOKafkaAdminClient)\(")
    offenders = []
    for path in sorted((ROOT / "streams").rglob("*.py")):
        text = path.read_text()
        where = path.relative_to(ROOT)
        if "bootstrap_servers=" in text and where != Path("streams/connection.py"):
            offenders.append(f"{where}: bootstrap_servers= outside streams/connection.py")
        for match in clients.finditer(text):
            call = text[match.end() : match.end() + 200]
            if "client_kwargs(" not in call:
                offenders.append(f"{where}: {match.group(1)} without client_kwargs")
        if "faust.App(" in text and "broker_credentials=faust_credentials(" not in text:
            offenders.append(f"{where}: faust.App without broker_credentials")
    assert offenders == []


def test_a_broker_that_never_answers_is_one_line_within_the_timeout() -> None:
    """A listener that accepts and stays silent (a wrong port, a stuck proxy) must not hang
    a command: the probe gives up after its timeout and names broker_url."""
    import asyncio
    import time

    from streams.connection import BrokerRefused, Connection, check_connection

    async def probe() -> str:
        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read(-1)

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        connection = Connection(
            f"127.0.0.1:{port}",
            "SASL_PLAINTEXT",
            "SCRAM-SHA-256",
            "mm",
            load_settings(  # a SecretStr, as the settings make it
                security_protocol="SASL_PLAINTEXT",
                sasl_mechanism="PLAIN",
                sasl_username="mm",
                sasl_password=PASSWORD,
            ).sasl_password,
        )
        try:
            await check_connection(connection, timeout_s=1.0)
        except BrokerRefused as refused:
            return str(refused)
        finally:
            server.close()
        return "connected"

    started = time.monotonic()
    message = asyncio.run(probe())
    assert time.monotonic() - started < 5
    assert message.startswith("broker_url: no answer from 127.0.0.1:"), message
    assert PASSWORD not in message


def test_a_cluster_url_none_of_whose_servers_accepts_is_one_line() -> None:
    """Every server of a several-broker URL is tried (one that accepts is enough:
    tests/integration/test_replicated_kafka.py); none accepting is refused naming broker_url."""
    import asyncio

    from streams.connection import BrokerRefused, check_connection
    from streams.embedded.broker import free_port

    servers = f"127.0.0.1:{free_port()},127.0.0.1:{free_port()}"
    with pytest.raises(BrokerRefused, match=f"^broker_url: cannot reach {servers} "):
        asyncio.run(check_connection(servers, timeout_s=1.0))
