"""Simulation: seeded arrival streams driven through the real queue fold and strategies.

:func:`simulate` runs every variant of every scenario on its scenario's arrival stream
and returns plain figures plus the raw records the report plots. Pure and deterministic:
same config and seed, same output; no clock, no global randomness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from matcher.sim.config import ConfigError, Scenario, SimConfig, config_from_mapping
from matcher.sim.engine import VariantRun, run_variant
from matcher.sim.metrics import run_figures
from matcher.sim.population import draw_sessions


@dataclass(frozen=True, slots=True)
class ScenarioRun:
    scenario: Scenario
    sessions: int
    runs: tuple[VariantRun, ...]


def simulate(
    config: SimConfig, on_time: Callable[[int], None] | None = None
) -> tuple[ScenarioRun, ...]:
    """Run every variant of every scenario of ``config``.

    ``on_time`` hears the simulated milliseconds advanced, summed over all runs, so a
    progress bar's total is :func:`total_ms`.

    >>> config = config_from_mapping({"seed": 1, "scenario": [{"name": "s", "queue": "3v3",
    ...     "team_size": 3, "duration_s": 600,
    ...     "region": [{"name": "eu", "sessions_per_hour": 900}],
    ...     "variant": [{"name": "v", "strategy": "rebalance"}]}]})
    >>> (result,) = simulate(config)
    >>> result.runs[0].variant, len(result.runs[0].waves), len(result.runs[0].matches) > 0
    ('v', 60, True)
    >>> figures(simulate(config), 1) == figures((result,), 1)
    True

    Notes: O(total events log events) plus every wave's strategy cost.
    """
    out = []
    for scenario in config.scenarios:
        sessions = draw_sessions(scenario, config.seed)
        runs = []
        for variant in scenario.variants:
            runs.append(run_variant(scenario, variant, sessions, config.seed, _delta(on_time)))
        out.append(ScenarioRun(scenario, len(sessions), tuple(runs)))
    return tuple(out)


def total_ms(config: SimConfig) -> int:
    """Simulated milliseconds over all runs: the progress bar's total.

    Notes: O(scenarios).
    """
    return sum(s.duration_s * 1000 * len(s.variants) for s in config.scenarios)


def figures(results: tuple[ScenarioRun, ...], seed: int) -> dict[str, Any]:
    """Every figure of a simulation as JSON-ready data."""
    return {
        "seed": seed,
        "scenarios": [
            {
                "name": r.scenario.name,
                "queue": r.scenario.queue,
                "kind": r.scenario.kind,
                "team_size": r.scenario.team_size,
                "duration_s": r.scenario.duration_s,
                "sessions": r.sessions,
                "variants": [run_figures(run) for run in r.runs],
            }
            for r in results
        ],
    }


def _delta(on_time: Callable[[int], None] | None) -> Callable[[int], None] | None:
    if on_time is None:
        return None
    last = [0]

    def advance(at_ms: int) -> None:
        if at_ms > last[0]:
            on_time(at_ms - last[0])
            last[0] = at_ms

    return advance


__all__ = [
    "ConfigError",
    "ScenarioRun",
    "SimConfig",
    "config_from_mapping",
    "figures",
    "simulate",
    "total_ms",
]
