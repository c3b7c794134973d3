"""`wavematch tail`: decode and print an output topic, one JSON object per line."""

from __future__ import annotations

import argparse
import base64
import difflib
import json
import math
import sys
from collections.abc import Callable
from typing import Any

from schemas.codec import REGISTRY_MAGIC
from streams.cli import UsageError
from streams.commands.common import (
    add_connection_arguments,
    add_registry_argument,
    check_positive_seconds,
    on_broker,
    settings_from,
)
from streams.connection import Connection, registry_of
from streams.wire.registry import SchemaRegistry, no_registry

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
    add_registry_argument(parser)
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--from-beginning", action="store_true", help="every event kept")
    start.add_argument(
        "--last",
        type=int,
        default=10,
        help="start with the last N events of each partition (default 10; 0: only new ones)",
    )
    parser.add_argument(
        "--count", "--limit", dest="count", type=int, help="stop after this many events"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        help="stop after this many seconds (exit 1 if --count events were not printed)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        help="stop when no event (none matching --where, when given) arrived for this many seconds",
    )
    parser.add_argument(
        "--field", help="print only this field of each event (e.g. match_id), for scripts"
    )
    parser.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="only events whose FIELD is VALUE, e.g. type=MatchProposed (repeatable)",
    )


def run(args: argparse.Namespace) -> int:
    if args.last < 0:
        raise UsageError(f"--last: {args.last} is negative")
    if args.count is not None and args.count < 1:
        raise UsageError(f"--count: {args.count} events: give 1 or more")
    check_positive_seconds("--timeout", args.timeout)
    check_positive_seconds("--idle-timeout", args.idle_timeout)
    for condition in args.where:
        if "=" not in condition:
            raise UsageError(f"--where: {condition!r} is not like FIELD=VALUE")
    fields = fields_of(TOPICS[args.topic])
    named = [("--field", args.field)] if args.field is not None else []
    named += [("--where", condition.partition("=")[0]) for condition in args.where]
    for flag, name in named:
        if name not in fields:  # a typo would print nothing, or null, and never say why
            close = difflib.get_close_matches(name, sorted(fields), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UsageError(f"{flag}: no event of topic {args.topic} has a field {name!r}{hint}")
    settings = settings_from(args)
    registry = registry_of(settings)
    seen = on_broker(
        settings, lambda connection: _tail(connection, TOPICS[args.topic], args, registry)
    )
    if args.timeout is not None and args.count is not None and seen < args.count:
        print(
            f"wavematch tail: {seen} of {args.count} events within {args.timeout:g} s",
            file=sys.stderr,
        )
        return 1
    return 0


def fields_of(topic: str) -> frozenset[str]:
    """The top-level fields of the events ``topic`` carries, and ``type``, as printed."""
    from schemas.topics import TOPICS as CONTRACT

    (found,) = [t for t in CONTRACT if t.name == topic]
    return frozenset({"type", "undecodable"}).union(*(model.model_fields for model in found.values))


def printable(
    value: bytes | None, unframe: Callable[[bytes], bytes] = no_registry
) -> dict[str, Any]:
    """The event in ``value`` as JSON; ``unframe`` reads a registry-framed one (its id
    resolved first)."""
    from schemas.codec import decode, decode_queue_event
    from schemas.errors import InvalidEvent

    try:
        if value and value[:1] == REGISTRY_MAGIC:
            value = unframe(value)
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


async def _tail(
    connection: Connection,
    topic: str,
    args: argparse.Namespace,
    registry: SchemaRegistry | None = None,
) -> int:
    import asyncio

    from aiokafka import AIOKafkaConsumer

    from streams.connection import client_kwargs, stop_client
    from streams.worker.catchup import READ_COMMITTED

    consumer = AIOKafkaConsumer(
        topic,
        **client_kwargs(connection),
        group_id=None,
        enable_auto_commit=False,
        isolation_level=READ_COMMITTED,
    )
    seen = 0
    try:
        await consumer.start()
        partitions = await _assigned(consumer, topic)
        starts = await consumer.beginning_offsets(partitions)
        if not args.from_beginning:
            ends = await consumer.end_offsets(partitions)
            starts = {tp: max(starts[tp], ends[tp] - args.last) for tp in partitions}
        for tp, offset in starts.items():
            consumer.seek(tp, offset)
        loop = asyncio.get_running_loop()
        deadline = None if args.timeout is None else loop.time() + args.timeout
        heard = loop.time()
        watch = BrokerWatch(connection, loop.time())
        while args.count is None or seen < args.count:
            ends = [deadline or math.inf, heard + (args.idle_timeout or math.inf)]
            wait_s = min(ends) - loop.time()
            if wait_s <= 0:
                return seen
            batch = await consumer.getmany(timeout_ms=int(min(wait_s, 1.0) * 1000))
            await watch.after(bool(batch), loop.time())
            if registry is not None:
                await registry.resolve(r.value for records in batch.values() for r in records)
            unframe = no_registry if registry is None else registry.unframe
            for records in batch.values():
                for record in records:
                    if args.count is not None and seen >= args.count:
                        return seen
                    event = printable(record.value, unframe)
                    if not _matches(event, args.where):
                        continue
                    print(_shown(event, args.field), flush=True)
                    seen += 1
                    heard = loop.time()  # the idle time counts the events shown, not all
        return seen
    except BrokenPipeError:
        sys.stderr.close()
        return seen
    finally:
        await stop_client(consumer)


class BrokerWatch:
    """While a follow hears nothing, asks the broker now and then whether it is still
    there: the client retries in silence, and a gone broker would look like a quiet
    topic. An outage is one line on stderr, a reminder a minute, and one when it ends."""

    #: Seconds of silence between two probes, and between two reminders.
    PROBE_EVERY_S = 10.0
    REMIND_EVERY_S = 60.0

    def __init__(self, connection: Connection, now: float) -> None:
        self._connection = connection
        self._probed = now
        self._down_since: float | None = None
        self._reminded = now

    async def after(self, heard: bool, now: float) -> None:
        """Called after each poll; ``heard``: it brought records."""
        from streams.connection import BrokerRefused, check_connection

        if heard:
            self._probed = now
        if now - self._probed < self.PROBE_EVERY_S:
            return
        self._probed = now
        try:
            await check_connection(self._connection, timeout_s=3.0)
        except BrokerRefused:
            if self._down_since is None:
                self._down_since = self._reminded = now
                where = self._connection.bootstrap
                _say(f"broker {where} unreachable; waiting for it (Ctrl-C stops)")
            elif now - self._reminded >= self.REMIND_EVERY_S:
                self._reminded = now
                _say(f"broker still unreachable after {now - self._down_since:.0f} s")
            return
        if self._down_since is not None:
            _say(f"broker reachable again after {now - self._down_since:.0f} s")
            self._down_since = None


def _say(line: str) -> None:
    print(f"wavematch tail: {line}", file=sys.stderr, flush=True)


def _matches(event: dict[str, Any], where: list[str]) -> bool:
    for condition in where:
        field, _, value = condition.partition("=")
        have = event.get(field)
        if (have if isinstance(have, str) else json.dumps(have)) != value:
            return False
    return True


def _shown(event: dict[str, Any], field: str | None) -> str:
    if field is None:
        return json.dumps(event)
    value = event.get(field)
    return value if isinstance(value, str) else json.dumps(value)


async def _assigned(consumer: Any, topic: str) -> list[Any]:
    """Every partition of ``topic``, once the consumer (no group: all of them) has them."""
    import asyncio

    for _ in range(100):
        assigned = sorted(consumer.assignment(), key=lambda tp: tp.partition)
        if assigned:
            return assigned
        await asyncio.sleep(0.1)
    raise UsageError(f"topic {topic}: not on the broker (run `wavematch topics create`)")
