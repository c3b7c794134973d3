"""`wavematch replay`: re-derive every wave from the queue log and compare with what was published.

Exit status: 0 every wave identical; 1 a difference; 3 no difference, but some waves were
closed under another configuration (settings, or a release whose strategies decide
differently: ADR 0009) and could not be judged (replay with that config and release).
A region with such a wave, re-derived or published, is left out whole from there on: its
records are never counted as differences. Without ``--config``, the configuration comes
from the log: the earliest published wave's, when its ConfigPublished record is in it
(docs/adr/0075), and each region switches to the configuration its ticks carry, from the
same records (docs/adr/0160). With ``--config``, that configuration alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from streams.cli import UsageError
from streams.commands.common import (
    add_connection_arguments,
    add_registry_argument,
    log_records,
    on_broker,
    settings_from,
)

if TYPE_CHECKING:
    from streams.audit.compare import Verdict
    from streams.audit.rederive import LogRecord
    from streams.audit.replay import ReplayReport
    from streams.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    add_registry_argument(parser)
    parser.add_argument("--log", type=Path, help="replay an exported file offline (no broker)")
    parser.add_argument(
        "--queue", help="judge only this queue's decisions (the whole log is re-derived)"
    )
    parser.add_argument(
        "--region", help="judge only this region's decisions (the whole log is re-derived)"
    )
    parser.add_argument("--from-wave", type=int, help="judge waves with this id or later")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from schemas.topics import CONFIG, QUEUE
    from streams.audit.progress import Progress
    from streams.audit.replay import JUDGED, Scope, replay

    settings = settings_from(args)
    topics = (QUEUE.name, *JUDGED, CONFIG.name)
    if args.log:  # the file proved an export (or refused in one line) before its metadata
        records = log_records(args, settings, topics)
        processed = processed_offsets(args, settings)
    else:
        # The committed offsets first, as `export` does: every output of a record below
        # them was flushed before the commit, so the topics read afterwards hold it. Read
        # the other way round, a wave committed between the two reads would count as
        # unpublished.
        processed = processed_offsets(args, settings)
        records = log_records(args, settings, topics)
    _check_scope_in_log(args, records)
    if args.config is None:
        settings = configuration_in_log(settings, records)
    queue_total = sum(1 for r in records if r.topic == QUEUE.name)
    progress = Progress(queue_total, "replaying", enabled=not args.quiet and sys.stderr.isatty())
    scope = Scope(args.queue, args.region, args.from_wave)
    # A named configuration is judged alone; else each tick's, from the log (ADR 0160).
    report = replay(settings, records, scope, progress.step, processed, args.config is None)
    progress.close()
    print(render(report))
    if not report.ok:
        return 1
    return 3 if report.other_config or not report.waves_checked else 0


def _check_scope_in_log(args: argparse.Namespace, records: list[LogRecord]) -> None:
    """Refuse a --queue, --region or --from-wave that selects no published wave: a typo
    would otherwise compare nothing and still say IDENTICAL."""
    from schemas.topics import WAVES

    places = [
        r.key.decode("utf-8", "replace").partition("/")
        for r in records
        if r.topic == WAVES.name and r.key
    ]
    for flag, wanted, given in (
        ("--queue", args.queue, {queue for queue, _, _ in places}),
        ("--region", args.region, {region for _, _, region in places}),
    ):
        if wanted is not None and wanted not in given:
            known = ", ".join(sorted(given)) or "none"
            raise UsageError(f"{flag}: no wave of {wanted!r} in this log (it has: {known})")
    if args.from_wave is not None:
        from schemas.codec import decode
        from schemas.errors import InvalidEvent
        from streams.audit.replay import wave_number

        last = -1  # as Scope numbers the waves it keeps
        for record in records:
            if record.topic != WAVES.name:
                continue
            try:
                wave_id = getattr(decode(record.value or b""), "wave_id", "")
            except InvalidEvent:
                continue
            last = max(last, wave_number(wave_id))
        if args.from_wave > last:
            last_said = f"the last is {last}" if last >= 0 else "it has none"
            raise UsageError(
                f"--from-wave: no wave {args.from_wave} or later in this log ({last_said})"
            )


def configuration_in_log(
    settings: Settings, records: list[LogRecord], out: TextIO | None = None
) -> Settings:
    """The configuration the published waves were closed under, from the log's
    ConfigPublished records (docs/adr/0075), when none carries ``settings``' fingerprint
    and this release reproduces the earliest wave's; else ``settings``. Which one is
    said on ``out`` (None: standard output). The later waves' configurations, switched
    to at a tick (docs/adr/0160), come from the same records as the replay folds."""
    from schemas.codec import decode
    from schemas.errors import InvalidEvent
    from schemas.models import WaveClosed
    from schemas.topics import CONFIG, WAVES
    from streams.audit.replay import is_fingerprint
    from streams.worker.config_record import configs_in, settings_of

    earliest: dict[str, int] = {}
    for record in records:
        if record.topic == WAVES.name:
            try:
                wave = decode(record.value or b"")
            except InvalidEvent:
                continue
            # A corrupted fingerprint names no configuration: never the one to replay under.
            if isinstance(wave, WaveClosed) and is_fingerprint(wave.config_fingerprint):
                at = int(wave.wave_id) if wave.wave_id.isdigit() else 0
                fingerprint = wave.config_fingerprint
                earliest[fingerprint] = min(at, earliest.get(fingerprint, at))
    if not earliest or settings.config_fingerprint() in earliest:
        return settings
    # The first waves' configuration is the one the workers started under: a region's
    # records before its first tick were folded under it.
    fingerprint = min(earliest, key=lambda f: (earliest[f], f))
    found = configs_in([r.value for r in records if r.topic == CONFIG.name]).get(fingerprint)
    if found is None:
        return settings
    rebuilt = settings_of(found, settings)
    if rebuilt is None:
        return settings
    print(
        f"configuration        from the log: {fingerprint} (published by release {found.release})",
        file=out,
    )
    return rebuilt


def processed_offsets(args: argparse.Namespace, settings) -> dict[int, int] | None:  # type: ignore[no-untyped-def]
    """How far the workers got: from the export's metadata, or the group's committed offsets."""
    import json

    from schemas.topics import QUEUE
    from streams.audit.logfile import read_metadata
    from streams.audit.topics import committed_offsets

    if args.log:
        recorded = read_metadata(args.log).get(PROCESSED_KEY)
        return {int(p): int(o) for p, o in json.loads(recorded).items()} if recorded else None
    group = settings.queue_group
    return on_broker(settings, lambda connection: committed_offsets(connection, group, QUEUE.name))


#: Export metadata: the workers' committed offsets per queue partition at export time.
PROCESSED_KEY = "wavematch.processed_offsets"


def render(report) -> str:  # type: ignore[no-untyped-def]
    verdict = report.verdict
    lines = [
        f"config fingerprint   {report.fingerprint}",
        f"waves checked        {report.waves_checked}",
        f"matches identical    {tally(verdict, 'wavematch.matches.v1')}",
        f"dequeues identical   {tally(verdict, 'wavematch.cleanup.v1')}",
        f"wave summaries       {tally(verdict, 'wavematch.waves.v1')}",
    ]
    if verdict.checked["wavematch.queue.v1"] or unexpected(verdict, "wavematch.queue.v1"):
        lines.append(f"claim records        {tally(verdict, 'wavematch.queue.v1')}")
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
    for fingerprint, waves in sorted(report.switched.items()):
        lines.append(
            f"switched to          config {fingerprint} by the ticks of {waves} waves "
            "(from the log's config records): compared under it"
        )
    for fingerprint, waves in sorted(report.other_config.items()):
        lines.append(
            f"other configuration  {waves} waves were closed under config {fingerprint}, "
            "not this one: not compared (replay with that config and release to check them)"
        )
    if report.skipped_regions:
        lines.append(
            f"regions not compared {', '.join(report.skipped_regions)}: each closed a wave "
            "under another configuration, so none of its waves is judged"
        )
    if report.foreign_copies:
        shown = ", ".join(report.foreign_copies[:3]) + (
            ", ..." if len(report.foreign_copies) > 3 else ""
        )
        lines.append(
            f"platform copies      {len(report.foreign_copies)} joins whose searches name "
            f"another place first, which no home wrote ({shown}): folded as input, not a "
            "difference; a platform's join names its own key first (schemas/README.md)"
        )
    lines.extend(_fingerprint_lines(report))
    lines.extend(f"DIFFERENCE           {line}" for line in report.differences)
    if not report.ok:
        outcome = (
            f"DIFFERENT ({len(verdict.missing)} re-derived records not published, "
            f"{len(verdict.unexpected)} published records not re-derived)"
        )
    elif report.other_config:
        skipped = sum(report.other_config.values())
        compared = (
            f"; the {report.waves_checked} compared identical" if report.waves_checked else ""
        )
        outcome = f"NOT COMPARED ({skipped} waves under another configuration{compared})"
    elif not report.waves_checked:  # an empty export, or workers that closed no wave yet
        outcome = "NOT COMPARED (no published wave to compare)"
    else:
        outcome = "IDENTICAL"
    lines.append(f"verdict              {outcome}")
    return "\n".join(lines)


def tally(verdict: Verdict, topic: str) -> str:
    """A topic's "N of M" re-derived records published identical, and the published
    records no re-derivation explains: "M of M" alone would read as all good."""
    counted = f"{verdict.identical[topic]} of {verdict.checked[topic]}"
    extra = unexpected(verdict, topic)
    if not extra:
        return counted
    return f"{counted} re-derived identical, {extra} published records not re-derived"


def unexpected(verdict: Verdict, topic: str) -> int:
    """How many distinct records published on ``topic`` were not re-derived."""
    return sum(1 for item in verdict.unexpected if item[0] == topic)


def _fingerprint_lines(report: ReplayReport) -> list[str]:
    """One line per fingerprint published records carry that no configuration in the
    log has: otherwise such a record is only told as another configuration's waves, or
    not at all when its region is set aside or it is out of scope."""
    from streams.audit.replay import is_fingerprint

    lines = []
    for fingerprint, count in sorted(report.unknown_fingerprints.items()):
        if is_fingerprint(fingerprint):
            said = (
                f"config {fingerprint}, which no configuration in the log has (no config "
                "record, nor the one replayed under): corrupted, or its record is missing"
            )
        else:
            said = f"{fingerprint[:40]!r}, not a fingerprint (16 hex digits): corrupted"
        lines.append(f"unknown fingerprint  {count} published records carry {said}")
    return lines
