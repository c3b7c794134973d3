"""`wavematch simulate`: run a seeded simulation offline and write its HTML/PNG/JSON report."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from streams.cli import UsageError

NAME = "simulate"
HELP = "simulate strategies on a seeded arrival stream and write a report"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        required=True,
        help="simulation TOML file (see docs/sim/standard.toml)",
    )
    parser.add_argument("--report", type=Path, required=True, help="directory for the report")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from matcher.sim import figures, simulate, total_ms
    from streams.audit.progress import Progress
    from streams.report import write_report

    config = load_config(args.config)
    if args.report.exists() and not args.report.is_dir():
        raise UsageError(f"--report: {args.report} exists and is not a directory")
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
                check_profile(variant_profile(scenario, variant))
                check_rules(variant_profile(scenario, variant))
            except ValueError as error:
                raise UsageError(f"{where}: {error}") from None
