"""The timing scripts' allocator: the worker's setting (streams/allocator.py, ADR 0072)
unless ``--glibc-defaults`` asks for the C library's own."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streams.allocator import keep_freed_memory


def add_allocator_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--glibc-defaults",
        action="store_true",
        help="time with the C library's malloc thresholds, not the worker's (ADR 0072)",
    )


def apply_allocator(args: argparse.Namespace) -> str:
    """Set the process's allocator as asked; return a line saying which it runs with."""
    if args.glibc_defaults:
        return "Allocator: the C library's defaults (--glibc-defaults)."
    if keep_freed_memory():
        return "Allocator: freed memory kept, as in a wavematch worker (ADR 0072)."
    return "Allocator: the C library's defaults (it has no glibc mallopt)."
