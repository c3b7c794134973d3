"""`wavematch tail`: decode and print an output topic, one JSON object per line."""

from __future__ import annotations

import argparse
import base64
import json
import sys
from typing import Any

from streams.commands.common import add_connection_arguments, on_broker, settings_from
from streams.connection import Connection

TOPICS = {
    "matches": "wavematch.matches.v1",
    "cleanup": "wavematch.cleanup.v1",
    "status": "wavematch.status.v1",
    "waves": "wavematch.waves.v1",
    "deadletter": "wavematch.deadletter.v1",
    "queue": "wavematch.queue.v1",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("topic", choices=sorted(TOPICS))
    add_connection_arguments(parser)
    parser.add_argument("--from-beginning", action="store_true", help="not only new events")
    parser.add_argument("--limit", type=int, help="stop after this many events")
    parser.add_argument(
        "--idle-timeout", type=float, help="stop when no event arrived for this many seconds"
    )


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    on_broker(settings, lambda connection: _tail(connection, TOPICS[args.topic], args))
    return 0


def printable(value: bytes | None) -> dict[str, Any]:
    from schemas.codec import decode, decode_queue_event
    from schemas.errors import InvalidEvent

    try:
        event = decode(value or b"")
    except InvalidEvent:
        try:
            event = decode_queue_event(value or b"")
        except InvalidEvent as error:
            return {"undecodable": str(error)}
    body = event.model_dump(mode="json")
    if "original" in body and isinstance(event.model_dump().get("original"), bytes):
        body["original"] = base64.b64encode(event.model_dump()["original"]).decode()
    return {"type": type(event).__name__, **body}


async def _tail(connection: Connection, topic: str, args: argparse.Namespace) -> None:
    from aiokafka import AIOKafkaConsumer

    from streams.connection import client_kwargs

    consumer = AIOKafkaConsumer(
        topic,
        **client_kwargs(connection),
        group_id=None,
        enable_auto_commit=False,
        auto_offset_reset="earliest" if args.from_beginning else "latest",
    )
    await consumer.start()
    seen = 0
    try:
        while args.limit is None or seen < args.limit:
            batch = await consumer.getmany(timeout_ms=int((args.idle_timeout or 3600) * 1000))
            if not batch:
                return
            for records in batch.values():
                for record in records:
                    print(json.dumps(printable(record.value)), flush=True)
                    seen += 1
    except BrokenPipeError:
        sys.stderr.close()
    finally:
        await consumer.stop()
