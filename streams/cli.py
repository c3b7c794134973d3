"""The ``wavematch`` command: one sub-command per module in :mod:`streams.commands`.

Each command module exposes ``add_arguments(parser)`` and
``run(args) -> int``. Modules are imported only when their command runs, so the
offline commands never import Faust or Kafka clients.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

#: name -> (module, one-line help). Import stays lazy; help is listed here for that reason.
COMMANDS: dict[str, tuple[str, str]] = {
    "up": ("streams.commands.up", "start the embedded broker and a worker (Ctrl-C stops both)"),
    "worker": ("streams.commands.worker", "run a worker against an existing broker"),
    "join": ("streams.commands.join", "publish a TicketJoined"),
    "leave": ("streams.commands.leave", "publish a TicketLeft"),
    "accept": ("streams.commands.answer", "accept a proposed match for one player"),
    "decline": ("streams.commands.answer", "decline a proposed match for one player"),
    "placed": ("streams.commands.placed", "report a match's placement: STARTED or FAILED"),
    "tail": ("streams.commands.tail", "print decoded events of an output topic"),
    "status": ("streams.commands.status", "print queue depth per queue and region"),
    "replay": ("streams.commands.replay", "re-derive waves from the log and compare them"),
    "explain": (
        "streams.commands.explain",
        "why a match was made: its wave, window and alternatives",
    ),
    "topics": (
        "streams.commands.topics",
        "create, check or describe the topics against the settings",
    ),
    "export": ("streams.commands.export", "write the topics to an Avro container file"),
    "config": (
        "streams.commands.config",
        "publish a configuration file: the workers switch to it at each region's next tick",
    ),
    "wave": ("streams.commands.wave", "close one wave offline from a JSON snapshot"),
    "simulate": (
        "streams.commands.simulate",
        "simulate on seeded or recorded arrivals, write a report",
    ),
}


#: What ``wavematch --help`` says first: for its user, not this module's reader.
DESCRIPTION = (
    "wavematch: matchmaking waves folded from the queue events of a Kafka log. "
    "`wavematch up` runs the service on an embedded broker; the other commands "
    "publish, read, replay and explain its events."
)


class UsageError(Exception):
    """A user mistake: printed as one line, exit code 2."""


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wavematch",
        description=DESCRIPTION,
        epilog="`wavematch COMMAND --help` lists a command's options.",
    )
    parser.add_argument("--version", action=_Version, help="print the release and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        command_parser.set_defaults(_module=module_name, _parser=command_parser)
        if name == _requested_command(argv):
            importlib.import_module(module_name).add_arguments(command_parser)
    return parser


def _requested_command(argv: Sequence[str]) -> str | None:
    positional = [arg for arg in argv if not arg.startswith("-")]
    return positional[0] if positional else None


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args, unknown = build_parser(arguments).parse_known_args(arguments)
    if unknown:  # the command's usage, not the top level's: its options hold the mistake
        args._parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    module = importlib.import_module(args._module)
    try:
        code = int(module.run(args))
        sys.stdout.flush()  # a reader gone shows here, not in Python's own flush at exit
        return code
    except UsageError as error:
        print(f"wavematch {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python's flush at exit
        # from raising again on the closed stdout.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    # Run as `python -m streams.cli`, this module is __main__; commands raise the
    # UsageError of the importable streams.cli, so dispatch through that module.
    from streams.cli import main as _main

    raise SystemExit(_main())


class _Version(argparse.Action):
    """``--version``: the release, looked up only when asked (reading the installed
    package's metadata would slow every other command's start)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from streams import release

        print(f"wavematch {release()}")
        parser.exit()
