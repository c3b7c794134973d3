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
    parser.add_argument(
        "--connect",
        metavar="ADDRESS:PORT",
        help="STARTED: where the players connect, sent in their MATCHED TicketStatus",
    )
    parser.add_argument(
        "--token-file",
        help="STARTED with --connect: a file holding the join token the server asks for "
        "(a file, not an argument: a command line is visible to every local user)",
    )


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
        connection=_connection(args),
    )
    print(publish(args, event).line(f"match {args.match} placement {args.outcome}"))
    return 0


def _connection(args: argparse.Namespace) -> dict[str, object] | None:
    from pathlib import Path

    from streams.cli import UsageError

    if args.connect is None:
        if args.token_file is not None:
            raise UsageError("--token-file: only with --connect")
        return None
    address, _, port = args.connect.rpartition(":")
    if not address or not port.isdigit():
        raise UsageError(f"--connect: {args.connect!r} is not like ADDRESS:PORT")
    token = None
    if args.token_file is not None:
        try:
            token = Path(args.token_file).read_text().strip()
        except OSError as error:
            raise UsageError(
                f"--token-file: cannot read {args.token_file}: {error.strerror}"
            ) from None
    return {"address": address, "port": int(port), "token": token}
