"""`wavematch config publish FILE`: check a configuration file and publish it to the
config topic, for the running workers to switch to at each region's next tick
(docs/adr/0160). Nothing is published when the file is bad or cannot replace the
configuration in force; the reason is one line.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from streams.cli import UsageError
from streams.commands.common import add_connection_arguments, on_broker, settings_from

if TYPE_CHECKING:
    from streams.connection import Connection
    from streams.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    publish = actions.add_parser(
        "publish",
        help="check FILE and publish it: each region switches to it at its next tick",
        description="check FILE and publish it: each region switches to it at its next tick",
    )
    publish.add_argument("file", type=Path, metavar="FILE", help="TOML settings file")
    add_connection_arguments(publish)


def run(args: argparse.Namespace) -> int:
    from schemas.codec import encode
    from streams.settings import SettingsError, load_settings
    from streams.worker.config_log import PUBLISHED_KEY
    from streams.worker.config_record import config_published

    settings = settings_from(args)
    try:
        new = load_settings(args.file)
    except SettingsError as error:
        said = str(error)  # named once: a missing or unreadable file's error names it
        raise UsageError(said if str(args.file) in said else f"{args.file}: {said}") from None
    running = on_broker(settings, lambda connection: _in_force(connection, new))
    if running is not None:
        problem = _frame_problem(running, new)
        if problem:
            raise UsageError(f"{args.file}: {problem}")
    import time

    record = config_published(new, int(time.time() * 1000))
    value = encode(record)
    keys = (record.config_fingerprint.encode(), PUBLISHED_KEY)
    on_broker(settings, lambda connection: _send(connection, keys, value), timeout_s=15)
    print(
        f"published configuration {record.config_fingerprint}: "
        "in force from each region's next tick"
    )
    return 0


def _frame_problem(running: Settings, new: Settings) -> str | None:
    from streams.worker.config_log import frame_problem

    return frame_problem(running, new)


async def _in_force(connection: Connection, new: Settings) -> Settings | None:
    """The configuration in force on the topic: the last published one, else the latest
    a worker started with; None when the topic holds none (no worker ran yet)."""
    from schemas.codec import decode
    from schemas.errors import InvalidEvent
    from schemas.models import ConfigPublished
    from schemas.topics import CONFIG
    from streams.audit.topics import read_topics
    from streams.worker.config_log import PUBLISHED_KEY, frame_problem
    from streams.worker.config_record import settings_in

    published: list[ConfigPublished] = []
    keyed: list[ConfigPublished] = []
    for record in await read_topics(connection, (CONFIG.name,)):
        try:
            config = decode(record.value or b"")
        except InvalidEvent:
            continue
        if not isinstance(config, ConfigPublished):
            continue
        if record.key == PUBLISHED_KEY:
            published.append(config)  # one partition: read in order
        else:
            keyed.append(config)
    # A worker's own record, not the copy `config publish` keys by its fingerprint too.
    copies = {(c.config_fingerprint, c.published_at_ms) for c in published}
    workers = [c for c in keyed if (c.config_fingerprint, c.published_at_ms) not in copies]
    started = max(workers or keyed, key=lambda c: c.published_at_ms, default=None)
    own = settings_in(started, new) if started is not None else None
    in_force = own
    for config in published:
        settings = settings_in(config, new)
        # The workers refuse a record that cannot replace their own at a tick (ADR 0160):
        # it never came in force, and a file is not judged against it.
        if settings is None or (own is not None and frame_problem(own, settings)):
            continue
        in_force = settings
    return in_force


async def _send(connection: Connection, keys: tuple[bytes, ...], value: bytes) -> None:
    from aiokafka import AIOKafkaProducer

    from schemas.topics import CONFIG
    from streams.connection import client_kwargs

    producer = AIOKafkaProducer(**client_kwargs(connection), acks="all")
    await producer.start()
    try:
        for key in keys:
            await producer.send_and_wait(CONFIG.name, value, key=key)
    finally:
        await producer.stop()
