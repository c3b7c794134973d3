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

#: The name of a `wavematch up` started without --name.
DEFAULT_INSTANCE = "default"


def state_dir() -> Path:
    """Where `wavematch up` writes one state file per running instance."""
    return Path(os.environ.get("WAVEMATCH_STATE_DIR") or Path.home() / ".wavematch")


def up_state_file(name: str = DEFAULT_INSTANCE) -> Path:
    """The file an instance writes so other terminals' commands find its broker and ports."""
    return state_dir() / ("up.json" if name == DEFAULT_INSTANCE else f"up-{name}.json")


def add_connection_arguments(
    parser: argparse.ArgumentParser, instance: bool = True, broker: bool = True
) -> None:
    """``broker`` False: the command runs its own broker, and --broker is refused in one
    line rather than listed."""
    parser.add_argument(
        "--broker",
        help="broker URL: kafka://host:port or tansu://host:port "
        "(default: $WAVEMATCH_BROKER_URL, else the running `wavematch up`)"
        if broker
        else argparse.SUPPRESS,
    )
    parser.add_argument("--config", type=Path, help="TOML settings file ($WAVEMATCH_CONFIG_FILE)")
    if instance:
        add_instance_argument(parser)


def add_instance_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--instance",
        help="which running `wavematch up` to talk to, by its --name "
        "(needed only when several are running)",
    )


def add_registry_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--schema-registry",
        metavar="URL",
        help="schema registry that reads registry-framed records "
        "(default: $WAVEMATCH_SCHEMA_REGISTRY_URL or the settings' schema_registry_url)",
    )


def _state_of(path: Path) -> dict[str, Any] | None:
    try:
        state: dict[str, Any] = json.loads(path.read_text())
        os.kill(int(state["pid"]), 0)
    except (OSError, ValueError, KeyError):
        return None
    return state


def running_ups() -> dict[str, dict[str, Any]]:
    """The live `wavematch up` instances by name (stale files of dead ones are ignored)."""
    found = {}
    for path in sorted(state_dir().glob("up*.json")):
        state = _state_of(path)
        if state is not None:
            found[str(state.get("name", DEFAULT_INSTANCE))] = state
    return found


def running_up(name: str | None = None) -> dict[str, Any] | None:
    """What the `wavematch up` named ``name`` wrote, or the only one running, or None.

    Several running and no name is a UsageError listing them: a command must never go
    to another instance's broker by chance.
    """
    if name is not None:
        state = _state_of(up_state_file(name))
        if state is None:
            raise UsageError(f"--instance: no `wavematch up --name {name}` is running")
        return state
    ups = running_ups()
    if len(ups) > 1:
        raise UsageError(
            f"--instance: {len(ups)} `wavematch up` are running ({', '.join(sorted(ups))}); "
            "choose one with --instance NAME"
        )
    return next(iter(ups.values()), None)


def settings_from(args: argparse.Namespace, *, find_up: bool = True, **overrides: Any) -> Settings:
    """The settings of ``--config`` and the environment; the broker of ``--broker``, else
    the one the settings name (``$WAVEMATCH_BROKER_URL``, the file's ``broker_url``), else
    (``find_up``) the running `wavematch up`'s: a file read for production never sends to a
    local trial broker."""
    broker = getattr(args, "broker", None)
    config = getattr(args, "config", None)
    if broker is not None:
        if "://" not in broker:
            raise UsageError(f"--broker: {broker!r} is not a URL like kafka://host:port")
        overrides["broker_url"] = broker
    if getattr(args, "schema_registry", None) is not None:
        overrides["schema_registry_url"] = args.schema_registry
    settings = _loaded(config, overrides)
    if broker is None and find_up and "broker_url" not in settings.model_fields_set:
        up = running_up(getattr(args, "instance", None))
        if up is not None:
            overrides["broker_url"] = up["broker_url"]
            # Its queues too, so a join is checked against what its workers run.
            if config is None and up.get("config") and "WAVEMATCH_CONFIG_FILE" not in os.environ:
                config = Path(up["config"])
            settings = _loaded(config, overrides)
    return settings


def built_in_queue_notice(args: argparse.Namespace, settings: Settings) -> str | None:
    """One line when a configuration file names no ``[[queues]]`` and the built-in demo
    queue runs in their place: a production file missing them would otherwise run the
    demo in silence, and reject every join of the queues it meant."""
    config = getattr(args, "config", None) or os.environ.get("WAVEMATCH_CONFIG_FILE")
    if not config or "queues" in settings.model_fields_set:
        return None
    shown = ", ".join(f"{q.name} ({q.strategy}; {', '.join(q.regions)})" for q in settings.queues)
    return f"{config} names no [[queues]]: the built-in queue {shown} runs in their place"


def _loaded(config: Path | None, overrides: dict[str, Any]) -> Settings:
    try:
        return load_settings(config, **overrides)
    except SettingsError as error:
        raise UsageError(str(error)) from None


def _default_broker_hint(settings: Settings) -> str:
    """Why a broker nobody named was tried: the settings' default, found when neither
    --broker, $WAVEMATCH_BROKER_URL, the config's broker_url nor a `wavematch up` gave one."""
    if "broker_url" in settings.model_fields_set:
        return ""
    return (
        " (the default: no --broker, $WAVEMATCH_BROKER_URL or broker_url in the config, "
        "and no `wavematch up` running)"
    )


def log_records(args: argparse.Namespace, settings: Settings, topics: tuple[str, ...]) -> list[Any]:
    """The records of ``topics``: from ``--log FILE`` (an export) or else from the broker,
    registry-framed values read through the settings' schema registry (docs/adr/0167)."""
    from streams.audit.logfile import read_log
    from streams.audit.topics import read_topics

    if getattr(args, "log", None):
        if args.log.is_dir():
            raise UsageError(f"--log: {args.log} is a directory, not an exported log file")
        if not args.log.is_file():
            raise UsageError(f"--log: {args.log} not found")
        try:
            records = [r for r in read_log(args.log) if r.topic in topics]
        except (ValueError, OSError) as error:
            raise UsageError(f"--log: {args.log} is not an exported log: {error}") from None
    else:
        records = on_broker(settings, lambda connection: read_topics(connection, topics))
    return _unframed(records, settings)


def _unframed(records: list[Any], settings: Settings) -> list[Any]:
    from streams.audit.unframe import UnreadableLog, is_framed, unframed
    from streams.connection import registry_of

    if not any(is_framed(r.value) for r in records):
        return records
    try:
        return unframed(records, registry_of(settings))
    except UnreadableLog as error:
        raise UsageError(str(error)) from None


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
        raise UsageError(f"{refused}{_default_broker_hint(settings)}") from None
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


def check_output_file(flag: str, path: Path) -> None:
    """Refuse, before any work, a file that cannot be written where ``path`` says."""
    if path.is_dir():
        raise UsageError(f"{flag}: {path} is a directory, not a file")
    if not path.parent.is_dir():
        raise UsageError(f"{flag}: cannot write {path}: {path.parent} is not a directory")


def check_output_dir(flag: str, path: Path) -> None:
    """Refuse, before any work, a directory ``path`` that cannot be written or created
    (nothing is created: a refused run leaves no trace)."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{flag}: {path} exists and is not a directory")
    nearest = path
    while not nearest.exists():
        nearest = nearest.parent
    if not nearest.is_dir():
        raise UsageError(f"{flag}: cannot create {path}: {nearest} is not a directory")
    if not os.access(nearest, os.W_OK):
        raise UsageError(f"{flag}: cannot write in {nearest}")


def check_positive_seconds(flag: str, seconds: float | None) -> None:
    """Refuse a duration flag given as zero, negative or NaN (unset: None, allowed)."""
    if seconds is not None and not seconds > 0:  # NaN compares false too
        raise UsageError(f"{flag}: {seconds:g} s: give a positive number of seconds")


def check_port_free(host: str, port: int, field: str) -> None:
    """Refuse a busy HTTP port before anything starts, not in a traceback after the banner."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As the web server binds: a port in TIME_WAIT is free, a listening one is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise UsageError(f"{field}: {host}:{port} is not free: {error.strerror}") from None


def check_registry(settings: Settings) -> None:
    """Register the output schemas now, when a registry is set: one it refuses, or one that
    does not answer, stops the start in one line instead of crashing the started worker
    (which would print Faust's crash report and traceback). Registering is idempotent: the
    worker registers the same schemas again as it starts and gets the same ids."""
    import asyncio

    from streams.connection import registry_of
    from streams.wire.registry import RegistryError

    registry = registry_of(settings)
    if registry is None:
        return
    try:
        asyncio.run(registry.register_outputs())
    except RegistryError as error:
        raise UsageError(str(error)) from None
