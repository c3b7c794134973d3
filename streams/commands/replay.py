"""`wavematch replay`: re-derive every wave from the queue log and compare with what was published.

Exit status: 0 every wave identical; 1 a difference; 3 no difference, but some waves were
closed under another configuration (settings, or a release whose strategies decide
differently: ADR 0009) and could not be judged (replay with that config and release).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from streams.commands.common import add_connection_arguments, log_records, settings_from


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--log", type=Path, help="replay an exported file offline (no broker)")
    parser.add_argument("--queue", help="only this queue")
    parser.add_argument("--region", help="only this region")
    parser.add_argument("--from-wave", type=int, help="judge waves with this id or later")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from schemas.topics import QUEUE
    from streams.audit.progress import Progress
    from streams.audit.replay import JUDGED, Scope, replay

    settings = settings_from(args)
    records = log_records(args, settings, (QUEUE.name, *JUDGED))
    queue_total = sum(1 for r in records if r.topic == "wavematch.queue.v1")
    progress = Progress(queue_total, "replaying", enabled=not args.quiet and sys.stderr.isatty())
    processed = processed_offsets(args, settings)
    report = replay(
        settings, records, Scope(args.queue, args.region, args.from_wave), progress.step, processed
    )
    progress.close()
    print(render(report))
    if not report.ok:
        return 1
    return 3 if report.other_config else 0


def processed_offsets(args: argparse.Namespace, settings) -> dict[int, int] | None:  # type: ignore[no-untyped-def]
    """How far the workers got: from the export's metadata, or the group's committed offsets."""
    import asyncio
    import json

    from schemas.topics import QUEUE
    from streams.audit.logfile import read_metadata
    from streams.audit.topics import committed_offsets

    if args.log:
        recorded = read_metadata(args.log).get(PROCESSED_KEY)
        return {int(p): int(o) for p, o in json.loads(recorded).items()} if recorded else None
    group = settings.queue_group
    return asyncio.run(committed_offsets(settings.broker_host_port, group, QUEUE.name))


#: Export metadata: the workers' committed offsets per queue partition at export time.
PROCESSED_KEY = "wavematch.processed_offsets"


def render(report) -> str:  # type: ignore[no-untyped-def]
    verdict = report.verdict
    lines = [
        f"config fingerprint   {report.fingerprint}",
        f"waves checked        {report.waves_checked}",
        f"matches identical    {verdict.identical['wavematch.matches.v1']} of "
        f"{verdict.checked['wavematch.matches.v1']}",
        f"dequeues identical   {verdict.identical['wavematch.cleanup.v1']} of "
        f"{verdict.checked['wavematch.cleanup.v1']}",
        f"wave summaries       {verdict.identical['wavematch.waves.v1']} of "
        f"{verdict.checked['wavematch.waves.v1']}",
    ]
    if verdict.checked["wavematch.queue.v1"]:
        lines.append(
            f"claim records        {verdict.identical['wavematch.queue.v1']} of "
            f"{verdict.checked['wavematch.queue.v1']}"
        )
    duplicates = sum(verdict.duplicates.values())
    if duplicates:
        lines.append(
            f"duplicates           {duplicates} identical re-deliveries (at-least-once; "
            "same ids, not a difference)"
        )
    pending = sum(verdict.pending.values())
    if pending:
        lines.append(
            f"pending              {pending} re-derived records from input the workers "
            "have not committed yet (not published yet: not a difference)"
        )
    for fingerprint, waves in sorted(report.other_config.items()):
        lines.append(
            f"other configuration  {waves} waves were closed under config {fingerprint}, "
            "not this one: not compared (replay with that config and release to check them)"
        )
    lines.extend(f"DIFFERENCE           {line}" for line in report.differences)
    lines.append(
        "verdict              "
        + (
            "IDENTICAL"
            if report.ok
            else f"DIFFERENT ({len(verdict.missing)} re-derived records not published, "
            f"{len(verdict.unexpected)} published records not re-derived)"
        )
    )
    return "\n".join(lines)
