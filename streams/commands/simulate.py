"""`wavematch simulate`: run a seeded simulation offline and write its HTML/PNG/JSON report."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from streams.cli import UsageError
from streams.commands.common import add_registry_argument, check_output_dir

NAME = "simulate"
HELP = "simulate strategies on seeded or recorded arrivals and write a report"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        help="seeded mode: the simulation TOML (see docs/sim/standard.toml); with --log or "
        "--candidate: the worker settings the traffic was recorded under (the baseline "
        "column; default: the log's ConfigPublished record)",
    )
    parser.add_argument("--report", type=Path, required=True, help="directory for the report")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--log",
        type=Path,
        help="what-if on recorded traffic: an exported log (`wavematch export`); without "
        "it, --candidate reads the broker's topics",
    )
    parser.add_argument(
        "--candidate",
        type=Path,
        action="append",
        default=[],
        help="worker-settings TOML to run the recorded joins and leaves through "
        "(repeatable: one report column each; docs/rules.md)",
    )
    parser.add_argument(
        "--broker", help="with --candidate and no --log: the broker to read the topics from"
    )
    add_registry_argument(parser)  # a what-if on a registry-framed log


def run(args: argparse.Namespace) -> int:
    if args.schema_registry is not None and args.log is None and not args.candidate:
        raise UsageError(
            "--schema-registry: reads a recorded log; use it with --log or --candidate"
        )
    if args.log is not None or args.candidate:
        from streams.commands.simulate_log import check_combination, run_log

        check_combination(args)
        return run_log(args)
    if args.broker is not None:
        raise UsageError("--broker: only with --candidate (recorded traffic from the broker)")
    if args.config is None:
        raise UsageError(
            "--config: a simulation TOML is required (or --log/--candidate for a what-if "
            "on recorded traffic)"
        )
    return run_seeded(args)


def run_seeded(args: argparse.Namespace) -> int:
    from matcher.sim import figures, simulate, total_ms
    from streams.audit.progress import Progress
    from streams.report import write_report

    config = load_config(args.config)
    check_output_dir("--report", args.report)
    progress = Progress(
        total_ms(config) // 1000, "simulating (simulated s)", enabled=not args.quiet
    )
    carried = [0]

    def advance(delta_ms: int) -> None:
        carried[0] += delta_ms
        seconds, carried[0] = divmod(carried[0], 1000)
        if seconds:
            progress.step(amount=seconds)

    try:
        results = simulate(config, advance)
    except ValueError as error:  # a strategy rejecting its options names the field
        raise UsageError(f"strategy options: {error}") from None
    finally:
        progress.close()
    data = figures(results, config.seed)
    written = write_report(results, data, args.report)
    print(f"wrote {written[0]} ({len(written)} files)")
    return 0


def load_config(path: Path):  # type: ignore[no-untyped-def]
    """Read and validate the TOML file; every problem is a one-line UsageError."""
    from matcher.sim import ConfigError, config_from_mapping

    if not path.is_file():
        raise UsageError(f"--config: {path} not found")
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"--config: {path} is not valid TOML: {error}") from None
    try:
        config = config_from_mapping(data)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    check_strategies(config)
    return config


def check_strategies(config) -> None:  # type: ignore[no-untyped-def]
    """Every variant's strategy exists and accepts its options, before anything runs."""
    from matcher.sim.engine import variant_profile
    from matcher.strategies import UnknownStrategy, check_profile, check_rules, get_strategy

    for i, scenario in enumerate(config.scenarios):
        for j, variant in enumerate(scenario.variants):
            where = f"scenario[{i}].variant[{j}]"
            try:
                get_strategy(variant.strategy)
            except UnknownStrategy as error:
                raise UsageError(f"{where}.strategy: {error.args[0]}") from None
            except (ImportError, AttributeError) as error:
                raise UsageError(
                    f"{where}.strategy: {variant.strategy!r} is not available "
                    f"in this build ({error})"
                ) from None
            try:
                profile = variant_profile(scenario, variant)
                check_profile(profile)
                check_rules(profile)
            except ValueError as error:
                raise UsageError(f"{where}: {error}") from None
