"""What several commands share: where the broker is, reading the settings, talking to it."""

from __future__ import annotations

import argparse
import json
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from streams.cli import UsageError
from streams.settings import Settings, SettingsError, load_settings

T = TypeVar("T")

#: Written by `wavematch up` so other terminals' commands find its broker and web port.
UP_STATE_FILE = Path(os.environ.get("WAVEMATCH_STATE_DIR", Path.home() / ".wavematch")) / "up.json"


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--broker",
        help="broker URL: kafka://host:port or tansu://host:port "
        "(default: $WAVEMATCH_BROKER_URL, else the running `wavematch up`)",
    )
    parser.add_argument("--config", type=Path, help="TOML settings file ($WAVEMATCH_CONFIG_FILE)")


def running_up() -> dict[str, Any] | None:
    """What `wavematch up` wrote, if that process is still alive."""
    try:
        state: dict[str, Any] = json.loads(UP_STATE_FILE.read_text())
        os.kill(int(state["pid"]), 0)
    except (OSError, ValueError, KeyError):
        return None
    return state


def settings_from(args: argparse.Namespace, **overrides: Any) -> Settings:
    broker = getattr(args, "broker", None)
    if broker is None and "WAVEMATCH_BROKER_URL" not in os.environ:
        up = running_up()
        if up is not None:
            broker = up["broker_url"]
    if broker is not None:
        if "://" not in broker:
            raise UsageError(f"--broker: {broker!r} is not a URL like kafka://host:port")
        overrides["broker_url"] = broker
    try:
        return load_settings(getattr(args, "config", None), **overrides)
    except SettingsError as error:
        raise UsageError(str(error)) from None


def log_records(args: argparse.Namespace, settings: Settings, topics: tuple[str, ...]) -> list[Any]:
    """The records of ``topics``: from ``--log FILE`` (an export) or else from the broker."""
    from streams.audit.logfile import read_log
    from streams.audit.topics import read_topics

    if getattr(args, "log", None):
        if not args.log.is_file():
            raise UsageError(f"--log: {args.log} not found")
        try:
            return [r for r in read_log(args.log) if r.topic in topics]
        except (ValueError, OSError) as error:
            raise UsageError(f"--log: {args.log} is not an exported log: {error}") from None
    return on_broker(settings, lambda connection: read_topics(connection, topics))


def on_broker(
    settings: Settings, work: Callable[[Any], Awaitable[T]], timeout_s: float | None = None
) -> T:
    """Run ``work(connection)`` after one probe connection proved the broker accepts us.

    A refused connection (wrong password, untrusted CA, wrong mechanism or protocol, no
    broker) is a UsageError of one line naming the setting, within the probe's timeout,
    instead of aiokafka's retries. ``timeout_s`` bounds ``work`` too.
    """
    import asyncio

    from aiokafka.errors import KafkaError

    from streams.connection import BrokerRefused, check_connection, connection_of

    connection = connection_of(settings)

    async def probed() -> T:
        await check_connection(connection)
        return await asyncio.wait_for(work(connection), timeout_s)

    # aiokafka logs why a connection failed and raises less; keep its last word for the
    # one line (and off the terminal, where it would print once per retry).
    last = _LastWarning()
    aiokafka_log = logging.getLogger("aiokafka")
    aiokafka_log.addHandler(last)
    try:
        return asyncio.run(probed())
    except BrokerRefused as refused:
        raise UsageError(str(refused)) from None
    except (KafkaError, TimeoutError, OSError) as error:
        if isinstance(error, TimeoutError) and not str(error):
            error = TimeoutError(f"no answer within {timeout_s:.0f} s" if timeout_s else "")
        said = f"; the client said: {last.message}" if last.message else ""
        raise UsageError(f"broker_url: {settings.broker_url}: {error}{said}") from None
    finally:
        aiokafka_log.removeHandler(last)


class _LastWarning(logging.Handler):
    """What aiokafka logged last with an exception as its cause, else its last warning."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._said: dict[bool, str] = {}

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        with_cause = any(isinstance(arg, BaseException) for arg in args)
        self._said[with_cause] = " ".join(record.getMessage().split())

    @property
    def message(self) -> str | None:
        return self._said.get(True) or self._said.get(False)
