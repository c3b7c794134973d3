"""`wavematch export`: write wavematch's topics to an Avro object container file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from streams.cli import UsageError
from streams.commands.common import (
    add_connection_arguments,
    check_output_file,
    on_broker,
    settings_from,
)


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
    from schemas.topics import CONFIG, QUEUE, TOPICS
    from streams.audit.logfile import write_log
    from streams.audit.rederive import LogRecord
    from streams.audit.replay import JUDGED
    from streams.audit.topics import committed_offsets, read_topics
    from streams.commands.replay import PROCESSED_KEY
    from streams.connection import Connection

    check_output_file("--output", args.output)
    known = [topic.name for topic in TOPICS]
    for topic in args.topic or ():
        if topic not in known:
            raise UsageError(f"--topic: {topic!r} is not one of wavematch's ({', '.join(known)})")
    settings = settings_from(args)
    topics = tuple(args.topic or (QUEUE.name, *JUDGED, CONFIG.name))

    async def read(connection: Connection) -> tuple[dict[int, int], list[LogRecord]]:
        processed = await committed_offsets(connection, settings.queue_group, QUEUE.name)
        return processed, await read_topics(connection, topics)

    processed, records = on_broker(settings, read)
    metadata = {
        "wavematch.config_fingerprint": settings.config_fingerprint(),
        "wavematch.topics": ",".join(topics),
        PROCESSED_KEY: json.dumps({str(p): o for p, o in processed.items()}),
    }
    count = write_log(args.output, records, metadata)
    print(f"{count} records of {len(topics)} topics written to {args.output}")
    return 0
