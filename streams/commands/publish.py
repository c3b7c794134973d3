"""`wavematch join` and `wavematch leave`: publish a queue event from a terminal."""

from __future__ import annotations

import argparse
import time
import uuid
from typing import NamedTuple

from pydantic import ValidationError

from schemas.models import Record
from streams.cli import UsageError
from streams.commands.common import add_connection_arguments, on_broker, settings_from
from streams.connection import Connection
from streams.settings import Settings


def add_event_arguments(parser: argparse.ArgumentParser, ticket_help: str) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--queue", required=True)
    parser.add_argument("--region", required=True)
    parser.add_argument("--ticket", help=ticket_help)


def parse_player(text: str) -> dict[str, object]:
    """``alice:bw=1500,sc2=1610`` -> a Player's fields. Roles default to the rated ones."""
    name, _, ratings_text = text.partition(":")
    if not name or not ratings_text:
        raise UsageError(f"--player: {text!r} is not like alice:bw=1500,sc2=1610")
    ratings: dict[str, int] = {}
    for part in ratings_text.split(","):
        role, _, value = part.partition("=")
        try:
            ratings[role.strip()] = int(value)
        except ValueError:
            raise UsageError(f"--player: rating {part!r} of {name} is not role=integer") from None
    return {"player_id": name, "ratings": ratings}


def parse_player_json(text: str) -> dict[str, object]:
    """``{"player_id": "ann", "ratings": {"mmr": 1500}, "attributes": {...}}`` -> a
    Player's fields, as the wire spells them (the event's model validates them)."""
    import json

    try:
        player = json.loads(text)
    except ValueError as error:
        raise UsageError(f"--player-json: not JSON ({error})") from None
    if not isinstance(player, dict):
        raise UsageError("--player-json: a JSON object, as TicketJoined's players are")
    return player


class Sent(NamedTuple):
    """Where the broker put a published event."""

    partition: int
    offset: int

    def line(self, what: str) -> str:
        """The one line a command prints once ``what`` is on the broker."""
        return (
            f"{what}: sent to wavematch.queue.v1, partition {self.partition}, offset {self.offset}"
        )


async def send(connection: Connection, key: bytes, value: bytes) -> Sent:
    from aiokafka import AIOKafkaProducer

    from streams.connection import client_kwargs

    producer = AIOKafkaProducer(**client_kwargs(connection))
    await producer.start()
    try:
        sent = await producer.send_and_wait("wavematch.queue.v1", value, key=key)
        return Sent(sent.partition, sent.offset)
    finally:
        await producer.stop()


def publish(args: argparse.Namespace, model: Record, settings: Settings | None = None) -> Sent:
    from schemas.codec import encode
    from schemas.topics import queue_key

    settings = settings or settings_from(args)
    check_place(args.queue, args.region, settings)
    key, value = queue_key(args.queue, args.region), encode(model)
    return on_broker(settings, lambda connection: send(connection, key, value), timeout_s=15)


def check_place(queue: str, region: str, settings: Settings) -> None:
    """Refuse, before publishing, a queue or a region the settings do not run: the worker
    would only dead-letter the event, and a terminal would never see it."""
    regions = settings.regions_by_queue()
    if queue not in regions:
        raise UsageError(
            f"--queue: unknown queue {queue!r} (the settings have: {', '.join(regions)})"
        )
    if region not in regions[queue]:
        raise UsageError(
            f"--region: queue {queue!r} is not open in region {region!r} "
            f"(its regions: {', '.join(regions[queue])})"
        )


def validated(model_type: type[Record], **fields: object) -> Record:
    from schemas.errors import InvalidEvent

    try:
        return model_type(**fields)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UsageError(f"{where}: {first['msg'].removeprefix('Value error, ')}") from None
    except InvalidEvent as error:
        raise UsageError(str(error)) from None


def now_ms() -> int:
    return int(time.time() * 1000)


def new_ticket_id() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"
