"""`wavematch join`: queue a ticket (one player, or a party) from a terminal."""

from __future__ import annotations

import argparse

from streams.commands.publish import (
    add_event_arguments,
    new_ticket_id,
    now_ms,
    parse_player,
    publish,
    validated,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_event_arguments(parser)
    parser.add_argument(
        "--player",
        action="append",
        required=True,
        help="alice:bw=1500,sc2=1610 (repeat for a party)",
    )
    parser.add_argument("--party", help="party id")
    parser.add_argument("--veto", action="append", default=[], help="a map to avoid (repeatable)")


def run(args: argparse.Namespace) -> int:
    from schemas.models import TicketJoined

    players = [parse_player(text) | {"vetoed_maps": tuple(args.veto)} for text in args.player]
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
    publish(args, event)
    print(ticket_id)
    return 0
