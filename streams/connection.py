"""How every Kafka client reaches the broker: bootstrap servers, TLS and SASL, in one place.

Every client wavematch creates (the worker's consumers, producer and admin client, Faust's
own clients, the CLI's) takes its connection from :func:`client_kwargs` or, for Faust,
:func:`faust_credentials`; :func:`check_connection` turns a refused connection into one
line naming the setting to fix (docs/adr/0095). :func:`registry_of` is the schema
registry's client, set up the same way (docs/adr/0165).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from faust.types.auth import CredentialsT

    from streams.settings import Settings
    from streams.wire.registry import SchemaRegistry

#: How long a refused or silent broker may take to say so before a command gives up.
CONNECT_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class Connection:
    """Where the brokers are and how to authenticate; the password never shows in ``repr``.

    A bare ``"host:port"`` string stands for a PLAINTEXT connection wherever a
    :class:`Connection` is accepted (tests and benchmarks on a local broker).
    """

    bootstrap: str
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_username: str | None = None
    sasl_password: SecretStr | None = None
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_key_password: SecretStr | None = None

    @property
    def uses_tls(self) -> bool:
        return self.security_protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol.startswith("SASL_")


Brokers = Connection | str


def connection_of(settings: Settings) -> Connection:
    """The connection part of the settings (the only place that reads those fields)."""

    def text(path: object) -> str | None:
        return str(path) if path is not None else None

    return Connection(
        bootstrap=settings.broker_url.split("://", 1)[-1],
        security_protocol=settings.security_protocol,
        sasl_mechanism=settings.sasl_mechanism,
        sasl_username=settings.sasl_username,
        sasl_password=settings.sasl_password,
        ssl_cafile=text(settings.ssl_cafile),
        ssl_certfile=text(settings.ssl_certfile),
        ssl_keyfile=text(settings.ssl_keyfile),
        ssl_key_password=settings.ssl_key_password,
    )


def as_connection(brokers: Brokers) -> Connection:
    return Connection(brokers) if isinstance(brokers, str) else brokers


def ssl_context(connection: Connection) -> ssl.SSLContext:
    """A client TLS context: the CA file (or the system's CAs), and a client certificate if set."""
    from aiokafka.helpers import create_ssl_context

    password = connection.ssl_key_password
    context: ssl.SSLContext = create_ssl_context(
        cafile=connection.ssl_cafile,
        certfile=connection.ssl_certfile,
        keyfile=connection.ssl_keyfile,
        password=password.get_secret_value() if password is not None else None,
    )
    return context


def client_kwargs(brokers: Brokers) -> dict[str, Any]:
    """Keyword arguments for any aiokafka client: bootstrap servers, TLS and SASL."""
    connection = as_connection(brokers)
    kwargs: dict[str, Any] = {
        "bootstrap_servers": connection.bootstrap,
        "security_protocol": connection.security_protocol,
    }
    if connection.uses_tls:
        kwargs["ssl_context"] = ssl_context(connection)
    if connection.uses_sasl:
        assert connection.sasl_password is not None  # the settings refuse SASL without one
        kwargs["sasl_mechanism"] = connection.sasl_mechanism
        kwargs["sasl_plain_username"] = connection.sasl_username
        kwargs["sasl_plain_password"] = connection.sasl_password.get_secret_value()
    return kwargs


def faust_credentials(connection: Connection) -> CredentialsT | None:
    """The same connection as Faust's ``broker_credentials`` (its clients read only that)."""
    from faust.auth import SASLCredentials, SSLCredentials

    if connection.uses_sasl:
        assert connection.sasl_password is not None
        # SASLCredentials picks SASL_SSL when given a context, SASL_PLAINTEXT otherwise.
        return SASLCredentials(
            username=connection.sasl_username,
            password=connection.sasl_password.get_secret_value(),
            mechanism=connection.sasl_mechanism,
            ssl_context=ssl_context(connection) if connection.uses_tls else None,
        )
    if connection.uses_tls:
        return SSLCredentials(ssl_context(connection))
    return None


class BrokerRefused(ConnectionError):
    """The broker could not be reached or refused us; the message is one line naming the
    setting to check and the broker's answer."""


async def check_connection(brokers: Brokers, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Open one connection to a bootstrap server, with TLS and SASL as configured.

    aiokafka logs why a bootstrap failed and raises only "Unable to bootstrap", and may
    retry for long; this probe gets the reason, within ``timeout_s`` per server, and raises
    :class:`BrokerRefused` with the first server's. The servers are tried in order until
    one accepts: a cluster is up while any of the brokers the URL lists is.
    """
    from aiokafka.conn import create_conn

    kwargs = client_kwargs(brokers)
    servers = [s.strip() for s in kwargs.pop("bootstrap_servers").split(",") if s.strip()]
    first: Exception | None = None
    for server in servers:
        host, _, port = server.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")  # an IPv6 address, bracketed
        try:
            conn = await asyncio.wait_for(
                create_conn(host, int(port), request_timeout_ms=int(timeout_s * 1000), **kwargs),
                timeout_s,
            )
        except Exception as error:  # every failure becomes the one line, with its cause
            first = first or error
            continue
        conn.close()
        return
    raise BrokerRefused(explain(as_connection(brokers), first or ValueError("no server"))) from None


#: How long a client cancelled while it starts or stops is let finish (then cancelled): a
#: start or stop reaches its broker in milliseconds, and a stop must not wait out a dead one.
CLIENT_GRACE_S = 5.0


async def start_client(client: Any) -> None:
    """Start an aiokafka consumer or producer. Cancelled while it starts, the start is let
    finish (for at most ``CLIENT_GRACE_S``) before the cancellation goes on, so that
    the caller's stop closes every connection: aiokafka's bootstrap cancelled halfway
    leaves its own open, logged as "Unclosed AIOKafkaConnection" when collected
    (aio-libs/aiokafka#715).
    """
    await _finished_before_cancelled(client.start())


async def stop_client(client: Any) -> None:
    """Stop an aiokafka consumer or producer, also one whose broker is gone.

    Cancelled while it stops, the stop is let finish (for at most ``CLIENT_GRACE_S``)
    before the cancellation goes on. aiokafka's stop must not see that cancellation: its
    fetcher awaits its own fetch task under ``suppress(CancelledError)``, which swallows
    the caller's cancellation too, and a task asked to stop would run on for good (a
    worker whose stop never ends).
    """
    await _finished_before_cancelled(_stop(client))


async def _finished_before_cancelled(work: Coroutine[Any, Any, None]) -> None:
    running = asyncio.ensure_future(work)
    try:
        await asyncio.shield(running)
    except asyncio.CancelledError:
        # Work that fails or runs out of grace is the caller's to clean up all the same.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(running, CLIENT_GRACE_S)
        raise


async def _stop(client: Any) -> None:
    # Closing, aiokafka's fetcher cancels its fetches and awaits them; one waiting out its
    # retry backoff after a failed fetch re-raises that CancelledError out of ``stop()``,
    # though nobody cancelled the stop, and leaves the client's connections open: here
    # such a stop finishes closing. Its grace running out still cancels it.
    try:
        await client.stop()
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is None or task.cancelling():
            raise
        fetcher = getattr(client, "_fetcher", None)
        pending = list(getattr(fetcher, "_pending_tasks", ()))
        for fetch in pending:
            fetch.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await client._client.close()


def explain(connection: Connection, error: BaseException) -> str:
    """One line: which setting to look at, and what the broker (or TLS) answered."""
    from aiokafka import errors

    where = f"{connection.bootstrap} ({connection.security_protocol})"
    answer = _answer(error)
    if isinstance(error, errors.SaslAuthenticationFailed):
        return (
            f"sasl_username/sasl_password: {where} refused the credentials of "
            f"{connection.sasl_username!r} ({connection.sasl_mechanism}): {answer}"
        )
    if isinstance(error, errors.UnsupportedSaslMechanismError | errors.IllegalSaslStateError):
        return f"sasl_mechanism: {where} does not accept {connection.sasl_mechanism}: {answer}"
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"ssl_cafile: the certificate of {where} is not trusted: {answer}"
    if isinstance(error, ssl.SSLError | ConnectionResetError) and connection.uses_tls:
        return f"security_protocol: TLS with {where} failed: {answer}"
    if isinstance(error, TimeoutError | asyncio.TimeoutError):
        return (
            f"broker_url: no answer from {where} within the connect timeout "
            "(is security_protocol the listener's?)"
        )
    if isinstance(error, errors.KafkaConnectionError) and connection.security_protocol in (
        "PLAINTEXT",
        "SASL_PLAINTEXT",
    ):
        return f"security_protocol: {where} closed the connection (a TLS listener?): {answer}"
    return f"broker_url: cannot reach {where}: {answer}"


def _answer(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    if "<AIOKafkaConnection" in text:  # aiokafka put the connection where the answer goes
        text = f"{getattr(error, 'message', text)}: {getattr(error, 'description', '')}"
    return text if len(text) < 300 else text[:297] + "..."


def registry_of(settings: Settings) -> SchemaRegistry | None:
    """The settings' schema registry client (None without ``schema_registry_url``)."""
    if settings.schema_registry_url is None:
        return None
    from confluent_kafka.schema_registry import AsyncSchemaRegistryClient

    from streams.wire.registry import SchemaRegistry, client_config

    password = settings.schema_registry_password
    files = [
        None if path is None else str(path)
        for path in (
            settings.schema_registry_cafile,
            settings.schema_registry_certfile,
            settings.schema_registry_keyfile,
        )
    ]
    config = client_config(
        settings.schema_registry_url,
        settings.schema_registry_username,
        None if password is None else password.get_secret_value(),
        *files,
    )
    return SchemaRegistry(AsyncSchemaRegistryClient(config))
