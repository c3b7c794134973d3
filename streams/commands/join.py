"""`wavematch join`: queue a ticket (one player, or a party) from a terminal."""

from __future__ import annotations

import argparse
from typing import Any

from streams.cli import UsageError
from streams.commands.common import check_positive_seconds, on_broker, settings_from
from streams.commands.publish import (
    add_event_arguments,
    check_place,
    new_ticket_id,
    now_ms,
    parse_player,
    parse_player_json,
    publish,
    validated,
)
from streams.connection import Connection
from streams.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_event_arguments(parser, "ticket id (default: a new one; it is printed)")
    parser.add_argument(
        "--player",
        action="append",
        default=[],
        help="alice:bw=1500,sc2=1610 (repeat for a party)",
    )
    parser.add_argument(
        "--player-json",
        action="append",
        default=[],
        metavar="JSON",
        help="a player as TicketJoined spells one (schemas/README.md), for what --player "
        "cannot say: attributes, numbers, latency_ms, roles, blocked_players (repeatable)",
    )
    parser.add_argument("--party", help="party id")
    parser.add_argument("--veto", action="append", default=[], help="a map to avoid (repeatable)")
    parser.add_argument(
        "--wait",
        type=float,
        nargs="?",
        const=30.0,
        metavar="SECONDS",
        help="wait (default 30 s) for the worker's verdict: SEARCHING, or REJECTED and why "
        "(exit 1 unless SEARCHING)",
    )


def run(args: argparse.Namespace) -> int:
    from schemas.models import TicketJoined

    check_positive_seconds("--wait", args.wait)
    if args.ticket == "":  # else taken as not given, and a new id would be queued instead
        raise UsageError("--ticket: must not be empty")
    if not args.player and not args.player_json:
        raise UsageError("--player: give at least one player (or --player-json)")
    players = [parse_player(text) for text in args.player]
    players += [parse_player_json(text) for text in args.player_json]
    if args.veto:
        players = [player | {"vetoed_maps": tuple(args.veto)} for player in players]
    ticket_id = args.ticket or new_ticket_id()
    event = validated(
        TicketJoined,
        ticket_id=ticket_id,
        queue=args.queue,
        region=args.region,
        party_id=args.party,
        players=players,
        joined_at_ms=now_ms(),
    )
    settings = settings_from(args)
    check_admission(event, settings, _players_flag(args))
    if args.wait is None:
        publish(args, event, settings)
        print(ticket_id)
        return 0
    verdict = _publish_and_wait(args, event, settings)
    print(f"{ticket_id} {verdict}")
    return 0 if verdict.startswith("SEARCHING") else 1


def _players_flag(args: argparse.Namespace) -> str:
    """The option(s) the players were given with, for an error about them."""
    if args.player and args.player_json:
        return "--player/--player-json"
    return "--player" if args.player else "--player-json"


def check_admission(event: Any, settings: Settings, flag: str) -> None:
    """Refuse, before publishing, what the worker would reject at once: an unknown queue
    or region, a player without the queue's rating (the worker's own check); ``flag``
    names the option the players came from."""
    from matcher.queue.admission import admission_problem
    from streams.wire.inbound import ticket_from_wire

    check_place(event.queue, event.region, settings)
    problem = admission_problem(ticket_from_wire(event), settings.profiles()[event.queue])
    if problem:
        raise UsageError(f"{flag}: {problem}")


def _publish_and_wait(args: argparse.Namespace, event: Any, settings: Settings) -> str:
    from schemas.codec import encode
    from schemas.topics import queue_key

    key, value = queue_key(args.queue, args.region), encode(event)
    waited = on_broker(
        settings,
        lambda connection: _verdict(connection, key, value, event.ticket_id, settings, args.wait),
        timeout_s=args.wait + 15,
    )
    return waited or (
        f"NO VERDICT within {args.wait:g} s (no worker running, or the ticket id ended "
        "lately: a join of an id the worker still remembers is a no-op)"
    )


async def _verdict(
    connection: Connection,
    key: bytes,
    value: bytes,
    ticket_id: str,
    settings: Settings,
    wait_s: float,
) -> str | None:
    """Publish, then read the ticket's partitions of the status and cleanup topics from
    where they ended before the join, until the first record about this ticket."""
    import asyncio

    from aiokafka import AIOKafkaConsumer, TopicPartition

    from schemas.codec import decode
    from schemas.topics import murmur2_partition
    from streams.commands.publish import send
    from streams.connection import BrokerRefused, check_connection, client_kwargs, stop_client

    partition = murmur2_partition(ticket_id.encode(), settings.partitions)
    wanted = [TopicPartition(t, partition) for t in ("wavematch.status.v1", "wavematch.cleanup.v1")]
    consumer = AIOKafkaConsumer(**client_kwargs(connection), group_id=None)
    try:
        await consumer.start()
        consumer.assign(wanted)
        for tp, end in (await consumer.end_offsets(wanted)).items():
            consumer.seek(tp, end)
        await send(connection, key, value)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while (left := deadline - loop.time()) > 0:
            batch = await consumer.getmany(timeout_ms=int(min(left, 1.0) * 1000))
            # The join's own status comes before its wave's cleanup: read the status
            # partition first, so a ticket matched at once is not taken for an older one.
            older = None
            for tp in sorted(batch, key=lambda tp: tp != wanted[0]):
                for record in batch[tp]:
                    verdict = _said(decode(record.value or b""), ticket_id)
                    if verdict and not verdict.startswith("NOT JOINED"):
                        return verdict
                    older = older or verdict
            if older:
                return await _fresh_or(consumer, wanted[0], ticket_id, older)
        try:  # the client retries in silence: a broker gone looks like no worker
            await check_connection(connection, timeout_s=3.0)
        except BrokerRefused:
            where = connection.bootstrap
            return f"NO VERDICT within {wait_s:g} s (broker {where} unreachable)"
        return None
    finally:
        await stop_client(consumer)


async def _fresh_or(consumer: Any, status: Any, ticket_id: str, older: str) -> str:
    """``older`` (an earlier ticket of the id spoke first), unless this join's own status
    is on the status partition up to its end: a join matched in the wave right after it
    may have its cleanup fetched before its status."""
    from schemas.codec import decode

    end = (await consumer.end_offsets([status]))[status]
    while await consumer.position(status) < end:
        batch = await consumer.getmany(status, timeout_ms=1000)
        if not batch:
            break
        for record in batch.get(status, []):
            verdict = _said(decode(record.value or b""), ticket_id)
            if verdict and not verdict.startswith("NOT JOINED"):
                return verdict
    return older


def _said(event: Any, ticket_id: str) -> str | None:
    if getattr(event, "ticket_id", None) != ticket_id:
        return None
    if event.waves_waited:  # not this join's verdict, given before any wave: an older ticket's
        return (
            f"NOT JOINED: the id is in use by a ticket queued before in {event.queue}/"
            f"{event.region}, and a join of an id in use is a no-op (contract: idempotency)"
        )
    if type(event).__name__ == "TicketStatus":
        where = f"{event.queue}/{event.region}"
        return f"{event.stage or event.state} (place {event.position} in {where})"
    detail = f": {event.detail}" if event.detail else ""
    return f"{event.reason}{detail}"
