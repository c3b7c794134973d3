"""`wavematch export`: write wavematch's topics to an Avro object container file."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from streams.cli import UsageError
from streams.commands.common import add_connection_arguments, settings_from


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--output", type=Path, required=True, help="file to write (.avro)")
    parser.add_argument(
        "--topic",
        action="append",
        help="topic to export (default: the queue topic, the judged outputs and the "
        "configurations behind their fingerprints)",
    )


def run(args: argparse.Namespace) -> int:
    from schemas.topics import CONFIG, QUEUE
    from streams.audit.logfile import write_log
    from streams.audit.replay import JUDGED
    from streams.audit.topics import committed_offsets, read_topics
    from streams.commands.replay import PROCESSED_KEY

    settings = settings_from(args)
    topics = tuple(args.topic or (QUEUE.name, *JUDGED, CONFIG.name))
    try:
        processed = asyncio.run(
            committed_offsets(settings.broker_host_port, settings.queue_group, QUEUE.name)
        )
        records = asyncio.run(read_topics(settings.broker_host_port, topics))
    except OSError as error:
        raise UsageError(f"--broker: cannot reach {settings.broker_url}: {error}") from None
    metadata = {
        "wavematch.config_fingerprint": settings.config_fingerprint(),
        "wavematch.topics": ",".join(topics),
        PROCESSED_KEY: json.dumps({str(p): o for p, o in processed.items()}),
    }
    count = write_log(args.output, records, metadata)
    print(f"{count} records of {len(topics)} topics written to {args.output}")
    return 0
