"""What several commands share: where the broker is, and reading the settings."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from streams.cli import UsageError
from streams.settings import Settings, SettingsError, load_settings

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
    import asyncio

    from streams.audit.logfile import read_log
    from streams.audit.topics import read_topics

    if getattr(args, "log", None):
        if not args.log.is_file():
            raise UsageError(f"--log: {args.log} not found")
        try:
            return [r for r in read_log(args.log) if r.topic in topics]
        except (ValueError, OSError) as error:
            raise UsageError(f"--log: {args.log} is not an exported log: {error}") from None
    try:
        return asyncio.run(read_topics(settings.broker_host_port, topics))
    except OSError as error:
        raise UsageError(f"--broker: cannot reach {settings.broker_url}: {error}") from None
