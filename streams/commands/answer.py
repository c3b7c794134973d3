"""`wavematch accept` / `wavematch decline`: answer a ready check for one player."""

from __future__ import annotations

import argparse

from streams.cli import UsageError
from streams.commands.common import add_connection_arguments
from streams.commands.publish import now_ms, publish, validated


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--queue", required=True)
    parser.add_argument("--region", required=True)
    parser.add_argument("--match", required=True, help="the id of the proposed match")
    parser.add_argument("--player", required=True, help="the player who answers")


def run(args: argparse.Namespace) -> int:
    from schemas.models import ReadyCheckAnswered

    if args.command not in ("accept", "decline"):
        raise UsageError(f"{args.command}: answers are accept or decline")
    event = validated(
        ReadyCheckAnswered,
        match_id=args.match,
        queue=args.queue,
        region=args.region,
        player_id=args.player,
        accepted=args.command == "accept",
        answered_at_ms=now_ms(),
    )
    verb = "accepts" if args.command == "accept" else "declines"
    print(publish(args, event).line(f"{args.player} {verb} match {args.match}"))
    return 0
