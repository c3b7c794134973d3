"""`wavematch placed`: report a created match's placement (STARTED or FAILED)."""

from __future__ import annotations

import argparse

from streams.commands.common import add_connection_arguments
from streams.commands.publish import now_ms, publish, validated


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--queue", required=True)
    parser.add_argument("--region", required=True)
    parser.add_argument("--match", required=True, help="the id of the created match")
    parser.add_argument("outcome", choices=("STARTED", "FAILED"))
    parser.add_argument("--detail", help="why the placement failed (one line)")


def run(args: argparse.Namespace) -> int:
    from schemas.models import PlacementReported

    event = validated(
        PlacementReported,
        match_id=args.match,
        queue=args.queue,
        region=args.region,
        outcome=args.outcome,
        detail=args.detail,
        reported_at_ms=now_ms(),
    )
    return publish(args, event)
