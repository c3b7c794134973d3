"""`wavematch simulate --log`: recorded joins and leaves through candidate queue settings.

The edge of the what-if (docs/adr/0104): read the queue log (an export, or the broker's
topics) with the readers `replay` uses, decode its records, build one
:class:`~matcher.sim.recorded.Candidate` per column from worker-settings TOML files
(the recorded configuration first, as the baseline), run them with the pure
:mod:`matcher.sim.recorded` and write the seeded simulator's report.
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from streams.cli import UsageError
from streams.commands.common import check_output_dir, log_records, settings_from

if TYPE_CHECKING:
    from matcher.sim import ScenarioRun
    from matcher.sim.config import Scenario
    from matcher.sim.engine import VariantRun
    from matcher.sim.recorded import Arrival, Candidate
    from streams.audit.rederive import LogRecord
    from streams.settings import Settings

#: The baseline column's name: the configuration the traffic was recorded under.
BASELINE = "recorded"


def run_log(args: argparse.Namespace) -> int:
    from matcher.sim.recorded import what_if_figures
    from schemas.topics import CONFIG, QUEUE
    from streams.report import write_report

    check_output_dir("--report", args.report)
    settings = base_settings(args)
    candidates = [(name, load_candidate(path)) for name, path in candidate_names(args.candidate)]
    records = log_records(args, settings, (QUEUE.name, CONFIG.name))
    arrivals = arrivals_of([r for r in records if r.topic == QUEUE.name])
    if not arrivals:
        where = f"--log: {args.log}" if args.log else f"broker_url: {settings.broker_url}"
        raise UsageError(f"{where}: no queue events to replay")
    if args.config is not None:
        baseline: Settings | None = settings
    else:
        baseline = recorded_settings(records, arrivals, settings)
    print(f"baseline: {baseline_line(args, baseline)}")
    columns = ([(BASELINE, baseline)] if baseline is not None else []) + candidates
    scenarios = what_if(columns, arrivals)
    data = what_if_figures(args.log.name if args.log else "broker", scenarios)
    written = write_report(_results(scenarios), data, args.report)
    print(summary(data))
    print(f"wrote {written[0]} ({len(written)} files)")
    return 0


def base_settings(args: argparse.Namespace) -> Settings:
    """The broker's settings, and with ``--config`` the baseline's (named if invalid)."""
    try:
        return settings_from(args)
    except UsageError as error:
        if args.config is None or str(error).startswith("--"):
            raise
        raise UsageError(f"--config {args.config}: {error}") from None


Scenarios = list[tuple["Scenario", dict[str, int], list["VariantRun"]]]


def what_if(
    columns: Sequence[tuple[str, Settings]], arrivals: dict[str, dict[str, list[Arrival]]]
) -> Scenarios:
    """Every recorded queue through every column, from the first recorded instant to the
    last (one clock for all queues)."""
    from matcher.sim.recorded import queue_counts, run_candidate, scenario_of

    instants = [a.at_ms for by_region in arrivals.values() for r in by_region.values() for a in r]
    start_ms, end_ms = min(instants), max(instants)
    duration_s = -(-(end_ms - start_ms) // 1000)
    scenarios: Scenarios = []
    for queue, by_region in sorted(arrivals.items()):
        built = [column(name, s, queue, recorded=name == BASELINE) for name, s in columns]
        runs = [run_candidate(c, by_region, start_ms, end_ms) for c in built]
        scenario = scenario_of(queue, built, sorted(by_region), duration_s)
        scenarios.append((scenario, queue_counts(by_region), runs))
    return scenarios


def check_combination(args: argparse.Namespace) -> None:
    """Refuse arguments that belong to the other mode, naming the argument."""
    if not args.candidate:
        raise UsageError(
            "--candidate: at least one worker-settings TOML is required with --log "
            "(the recorded configuration is the baseline column)"
        )


def candidate_names(paths: Sequence[Path]) -> list[tuple[str, Path]]:
    """Each candidate's column name: its file's stem, distinct and not the baseline's."""
    names = [path.stem for path in paths]
    for name, path in zip(names, paths, strict=True):
        if name == BASELINE:
            raise UsageError(f"--candidate {path}: {BASELINE!r} names the baseline; rename it")
        if names.count(name) > 1:
            raise UsageError(f"--candidate {path}: two candidates are named {name!r}; rename one")
    return list(zip(names, paths, strict=True))


def load_candidate(path: Path) -> Settings:
    """A worker-settings TOML, validated as the worker validates it (one line if not)."""
    from streams.settings import SettingsError, load_settings

    if not path.is_file():
        raise UsageError(f"--candidate {path}: not found")
    try:
        # Parsed here first: a file that is not TOML at all is refused in the candidate's
        # own words, before load_settings reports it as a broken settings file.
        tomllib.loads(path.read_text())
        return load_settings(path)
    except SettingsError as error:
        raise UsageError(f"--candidate {path}: {error}") from None
    except (ValueError, UnicodeDecodeError) as error:  # not TOML at all
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise UsageError(f"--candidate {path}: not a TOML settings file: {first}") from None


def arrivals_of(records: Sequence[LogRecord]) -> dict[str, dict[str, list[Arrival]]]:
    """The joins, leaves and ticks of the queue log, per queue and region in log order.

    A record's arrival is its broker timestamp (its event's own instant in files exported
    before timestamps were kept). Records the worker could not decode, and lifecycle
    records, are left out (docs/adr/0104).
    """
    from matcher.queue.events import TicketJoined, TicketLeft, WaveTick
    from matcher.sim.recorded import Arrival
    from schemas.codec import decode_queue_event
    from schemas.errors import InvalidEvent
    from streams.wire.inbound import to_domain

    out: dict[str, dict[str, list[Arrival]]] = {}
    for record in sorted(records, key=lambda r: (r.partition, r.offset)):
        try:
            decoded = decode_queue_event(record.value or b"")
        except InvalidEvent:
            continue
        event = to_domain(decoded)
        if not isinstance(event, (TicketJoined, TicketLeft, WaveTick)):
            continue
        at_ms = record.timestamp
        if at_ms is None or at_ms < 0:
            at_ms = _instant(event)
        by_region = out.setdefault(event.queue, {})
        by_region.setdefault(event.region, []).append(Arrival(at_ms, event))
    return out


def _instant(event: object) -> int:
    from matcher.queue.events import TicketJoined, TicketLeft, WaveTick

    if isinstance(event, TicketJoined):
        return event.ticket.joined_at_ms
    if isinstance(event, TicketLeft):
        return event.left_at_ms
    assert isinstance(event, WaveTick)
    return event.tick_at_ms


def recorded_settings(
    records: Sequence[LogRecord],
    arrivals: dict[str, dict[str, list[Arrival]]],
    base: Settings,
) -> Settings | None:
    """The configuration the recorded ticks carry (its ConfigPublished, docs/adr/0075),
    when they carry exactly one that the log holds; else None (no baseline column)."""
    from matcher.queue.events import WaveTick
    from schemas.topics import CONFIG
    from streams.worker.config_record import configs_in, settings_in

    fingerprints = {
        a.event.config_fingerprint
        for by_region in arrivals.values()
        for region in by_region.values()
        for a in region
        if isinstance(a.event, WaveTick)
    }
    if len(fingerprints) != 1:
        return None
    found = configs_in([r.value for r in records if r.topic == CONFIG.name])
    record = found.get(next(iter(fingerprints)))
    return None if record is None else settings_in(record, base)


def baseline_line(args: argparse.Namespace, baseline: Settings | None) -> str:
    if baseline is None:
        return (
            "none (the recorded ticks do not carry one configuration the log holds; "
            "give it with --config)"
        )
    if args.config is not None:
        return f"{args.config} with the recorded ticks (column {BASELINE!r})"
    return (
        f"the recorded configuration {baseline.config_fingerprint()} from the log, "
        f"with the recorded ticks (column {BASELINE!r})"
    )


def column(name: str, settings: Settings, queue: str, recorded: bool) -> Candidate:
    """``queue`` under ``settings``: its profile, its regions' wave timers, the fold's rules.

    Lifecycle settings (ready checks, placement reports) and claims are left out: their
    events are the platform's answers, which a candidate's different matches would not
    have had (docs/adr/0104).
    """
    from matcher.queue.cadence import CadencePolicy
    from matcher.sim.recorded import Candidate, Timer
    from streams.worker.ticker import tick_offsets

    profile = settings.profiles().get(queue)
    if profile is None:
        return Candidate(name, queue, None, {}, settings.rules_of(queue))
    queue_settings = settings.queue(queue)
    cadence = settings.cadences().get(queue) or CadencePolicy(
        interval_ms=queue_settings.wave_interval_ms
    )
    offsets = tick_offsets(settings)
    timers = {
        region: Timer(recorded, cadence, offsets.get((queue, region), 0))
        for region in queue_settings.regions
    }
    rules = settings.rules_of(queue)
    return Candidate(name, queue, profile, timers, rules, settings.config_fingerprint())


def summary(data: dict[str, object]) -> str:
    """One line per column: what a designer compares first."""
    lines = []
    for scenario in data["scenarios"]:  # type: ignore[attr-defined]
        recorded = scenario["recorded"]
        lines.append(
            f"queue {scenario['queue']}: {recorded['joins']} joins, {recorded['leaves']} "
            f"leaves, {scenario['duration_s']} s"
        )
        for variant in scenario["variants"]:
            overall = variant["overall"]
            wait = overall["wait_s"]
            lines.append(
                f"  {variant['variant']:<12} matches {overall['matches']:>5}  wait p50/p90/p99 "
                f"{_s(wait['p50'])}/{_s(wait['p90'])}/{_s(wait['p99'])} s  rating diff mean "
                f"{_s(overall['rating_diff']['mean'])}  expired {overall['tickets']['expired']}"
                f"  never matched {overall['players_never_matched']}  rule violations "
                f"{variant['rule_violations']}"
            )
    return "\n".join(lines)


def _s(value: object) -> str:
    return "-" if value is None else f"{value:.1f}"


def _results(scenarios: Scenarios) -> tuple[ScenarioRun, ...]:
    from matcher.sim import ScenarioRun

    return tuple(
        ScenarioRun(scenario, runs[0].sessions if runs else 0, tuple(runs))
        for scenario, _, runs in scenarios
    )
