"""`wavematch worker`: run one worker against a broker (Apache Kafka, or `wavematch up`'s)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from streams.cli import UsageError
from streams.commands.common import (
    add_connection_arguments,
    built_in_queue_notice,
    check_port_free,
    check_registry,
    on_broker,
    settings_from,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--web-port", type=int, help="HTTP port for /metrics, /queues, /health")
    parser.add_argument("--without-web", action="store_true", help="no HTTP endpoints")
    parser.add_argument("--loglevel", choices=("debug", "info", "warn", "error"))
    parser.add_argument(
        "--data-dir", type=Path, help="Faust's local data goes here ($WAVEMATCH_DATA_DIR)"
    )


def check_strategies(settings: object) -> None:
    """Load every configured strategy now: a broken one fails the start, not a wave."""
    from matcher.strategies import load_strategies

    for index, queue in enumerate(settings.queues):  # type: ignore[attr-defined]
        try:
            load_strategies([queue.strategy])
        except Exception as error:
            raise UsageError(
                f"queues.{index}.strategy: cannot load {queue.strategy!r}: {error}"
            ) from None


def run(args: argparse.Namespace) -> int:
    from streams.allocator import keep_freed_memory

    keep_freed_memory()  # before any wave: a process setting (docs/adr/0085)
    overrides: dict[str, Any] = {}
    if args.web_port is not None:
        overrides["web_port"] = args.web_port
    if args.without_web:
        overrides["web_enabled"] = False
    if args.loglevel:
        overrides["log_level"] = args.loglevel
    if args.data_dir is not None:
        overrides["data_dir"] = args.data_dir
    settings = settings_from(args, **overrides)
    check_strategies(settings)
    notice = built_in_queue_notice(args, settings)
    if notice:
        print(f"wavematch worker: {notice}", file=sys.stderr, flush=True)
    problem = settings.web_access_problem()
    if problem is not None:
        raise UsageError(problem)
    if settings.web_enabled and settings.web_port:
        field = "--web-port" if args.web_port is not None else "web_port"
        check_port_free(settings.web_host, settings.web_port, field)
    check_registry(settings)

    from streams.console.views import add_console
    from streams.topics import TopicMismatch, ensure_topics
    from streams.worker.app import create_app
    from streams.worker.stop_deadline import Worker

    try:
        on_broker(settings, lambda connection: ensure_topics(settings), timeout_s=30)
    except TopicMismatch as error:
        raise UsageError(str(error)) from None
    try:
        settings.faust_data_dir.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(
            f"data_dir: cannot create {settings.faust_data_dir.parent}: {error.strerror}"
        ) from None
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    app = create_app(settings, views=(add_console,))
    logging.getLogger("streams").setLevel(settings.log_level.upper().replace("WARN", "WARNING"))
    worker = Worker(app, loop=loop, loglevel=settings.log_level, quiet=True, redirect_stdouts=False)
    if not worker.stdout.isatty():  # Faust's start-up spinner writes cursor codes to a file
        worker.spinner = None
    worker.execute_from_commandline()
    return 0
