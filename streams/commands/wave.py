"""`wavematch wave --strategy NAME --input wave.json [--output result.json]`: one wave, offline.

The input is the 1v1 format of issue 2 or the generic format (docs/wave-format.md);
the output follows the input's format. Any bad input is one line naming the field
and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from streams.cli import UsageError

NAME = "wave"
HELP = "close one wave offline from a JSON snapshot"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strategy", required=True, help="e.g. optimal, ladder-v2.1, rebalance")
    parser.add_argument("--input", required=True, type=Path, help="the wave, as JSON")
    parser.add_argument("--output", type=Path, help="write the result here (default: stdout)")


def run(args: argparse.Namespace) -> int:
    from matcher.strategies import UnknownStrategy, get_strategy, run_wave
    from streams.wave_input import WaveInputError, duel_output, generic_output, parse_wave

    try:
        get_strategy(args.strategy)
    except UnknownStrategy as error:
        raise UsageError(f"--strategy: {error.args[0]}") from None
    data = _read_json(args.input)
    try:
        snapshot, profile, is_duel = parse_wave(data, args.strategy)
        result = run_wave(snapshot, profile)  # as the worker does: on the rules' rating key
    except WaveInputError as error:
        raise UsageError(str(error)) from None
    except ValueError as error:  # options and profile checks of the strategies name the field
        raise UsageError(str(error).splitlines()[0]) from None
    output = duel_output(result) if is_duel else generic_output(result)
    text = json.dumps(output, indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text)
        except OSError as error:
            raise UsageError(f"--output: cannot write {args.output}: {error.strerror}") from None
    return 0


def _read_json(path: Path) -> object:
    try:
        text = path.read_text()
    except OSError as error:
        raise UsageError(f"--input: cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"--input: {path} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(
            f"--input: invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None
