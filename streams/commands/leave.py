"""`wavematch leave`: take a ticket out of its queue from a terminal."""

from __future__ import annotations

import argparse

from streams.cli import UsageError
from streams.commands.publish import add_event_arguments, now_ms, publish, validated


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_event_arguments(parser, "the id of the ticket to take out (required)")
    parser.add_argument("--reason", default="REQUESTED", choices=("REQUESTED", "DISCONNECTED"))


def run(args: argparse.Namespace) -> int:
    from schemas.models import TicketLeft

    if not args.ticket:
        raise UsageError("--ticket: required to leave")
    event = validated(
        TicketLeft,
        ticket_id=args.ticket,
        queue=args.queue,
        region=args.region,
        reason=args.reason,
        left_at_ms=now_ms(),
    )
    print(publish(args, event).line(f"ticket {args.ticket} leaves {args.queue}/{args.region}"))
    return 0
