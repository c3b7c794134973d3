"""Measure adaptive brackets against the percentile window (docs/adr/0178): the refusal's data.

Two prototypes of "windows that follow the population", kept here and not in the product,
run as variants of docs/sim/ideas-windows.toml on the same arrivals as today's default and
``window_percentile``:

* ``knn-K``: a player's window is the distance to its K-th nearest rating of the wave's
  pool (widened with the wait by the tier's ``max_diff(wait) / base``, the percentile
  window's factor); a pair's window is the larger of its two (``window_rule = longer``).
* ``brackets-B``: the pool cut at its B-quantiles, recomputed per wave; a pair plays within
  one bracket, one bracket further apart each time the tier's window has grown by its base.

Both are ``optimal`` (the small tier's proved optimum: the scenario's waves stay far below
``optimal_exact_limit``) on a different pair filter. Prints one line per variant and region:
matched tickets, wait p50/p90 (s), rating difference mean/p50/p90.

Run: ``.venv/bin/python scripts/measure_adaptive_brackets.py [--duration-s SECONDS]`` (about a
minute, one core; ``--duration-s`` simulates that many seconds instead of the scenario's own).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from matcher.core import QueueProfile, WaveResult, WaveSnapshot
from matcher.duel.graph import DuelArrays, Ints
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPair, DuelPlayer, Window, parse_config
from matcher.duel.optimal import wave_arrays
from matcher.duel.percentile import RankWindow, rating_pool
from matcher.duel.result import build_result, duel_players
from matcher.duel.small import exact_pairs
from matcher.duel.windows import pressure, tier_window
from matcher.sim import ConfigError, config_from_mapping, figures, simulate
from matcher.strategies import register_strategy

SCENARIO = Path(__file__).resolve().parent.parent / "docs" / "sim" / "ideas-windows.toml"
Widths = Callable[[list[DuelPlayer], DuelArrays, Window], dict[str, Any]]


class Brackets(RankWindow):
    """Brackets as a rank window: ``pool`` holds the bracket edges, ``between`` is how many
    brackets apart two ratings are, ``reach`` how many a player may cross."""

    def between(self, x: Ints, y: Ints) -> Ints:
        apart: Ints = np.abs(
            np.searchsorted(self.pool, x, "right") - np.searchsorted(self.pool, y, "right")
        )
        return apart


def widened(players: list[DuelPlayer], window: Window) -> Any:
    waits = np.array([p.wait_cycles for p in players], dtype=np.float64)
    return (window.base + window.growth * waits) / window.base


def knn(k: int) -> Widths:
    def widths(players: list[DuelPlayer], arrays: DuelArrays, window: Window) -> dict[str, Any]:
        pool = rating_pool(players)
        radius = np.zeros(len(players))
        for ratings in (arrays.bw, arrays.sc2):
            # The K-th nearest other rating: the K+1-th nearest pool entry (its own first).
            gaps = np.sort(np.abs(ratings[:, None] - pool[None, :]), axis=1)
            kth = gaps[:, min(k, len(pool) - 1)] if len(pool) else np.zeros(len(players))
            radius = np.where(ratings >= 0, np.maximum(radius, kth), radius)
        points = np.floor(radius * widened(players, window) + 1e-9).astype(np.int64)
        return {"radius": points}

    return widths


def brackets(count: int) -> Widths:
    def widths(players: list[DuelPlayer], arrays: DuelArrays, window: Window) -> dict[str, Any]:
        pool = rating_pool(players)
        edges = pool[(np.arange(1, count) * len(pool)) // count] if len(pool) else pool
        crossed = np.floor(widened(players, window) - 1 + 1e-9).astype(np.int64)
        span = int(pool[-1] - pool[0]) if len(pool) else 0
        radius = np.full(len(players), span, dtype=np.int64)
        return {"rank": Brackets(edges, crossed), "radius": radius}

    return widths


def prototype(name: str, widths: Widths) -> None:
    def strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
        config = parse_config(profile.options, OPTIMAL_DEFAULTS)
        players, _ = duel_players(snapshot, profile.ruleset.rating)
        window = tier_window(pressure(len(players), snapshot.active_population, config), config)
        arrays = wave_arrays(players, profile.maps, window, config)
        assert arrays.size <= config.optimal_exact_limit
        arrays = dataclasses.replace(arrays, **widths(players, arrays, window))
        made = [DuelPair(players[a], players[b]) for a, b in exact_pairs(arrays)]
        return build_result(name, snapshot, profile, made)

    register_strategy(name, strategy)


def positive_seconds(text: str) -> int:
    seconds = int(text)
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--duration-s",
        type=positive_seconds,
        metavar="SECONDS",
        help="simulated seconds (default: the scenario file's duration_s)",
    )
    args = parser.parse_args()
    data = tomllib.loads(SCENARIO.read_text())
    scenario = data["scenario"][0]
    if args.duration_s is not None:
        scenario["duration_s"] = args.duration_s
    # More percentiles than the scenario's, to draw the option's wait/quality frontier.
    for percent in (2.5, 4, 7, 15, 20, 25, 30):
        options = {"window_percentile": percent}
        name = f"percentile {percent:g}"
        scenario["variant"].append({"name": name, "strategy": "optimal", "options": options})
    for k in (2, 4, 8):
        prototype(f"knn-{k}", knn(k))
        scenario["variant"].append({"name": f"knn-{k}", "strategy": f"knn-{k}"})
    for count in (2, 4, 8):
        prototype(f"brackets-{count}", brackets(count))
        scenario["variant"].append({"name": f"brackets-{count}", "strategy": f"brackets-{count}"})
    for variant in scenario["variant"]:
        variant.setdefault("wave_interval_ms", 10000)
    try:
        config = config_from_mapping(data)
    except ConfigError as error:  # the simulator's own bounds, e.g. on duration_s
        parser.error(str(error))
    found = figures(simulate(config), config.seed)
    for run in found["scenarios"][0]["variants"]:
        for region, f in [("all", run["overall"]), *run["regions"].items()]:
            wait, diff = f["wait_s"], f["rating_diff"]
            print(
                f"{run['variant']:24s} {region:4s} matched {f['tickets']['matched']:5d} "
                f"wait p50 {wait['p50']:5.1f} p90 {wait['p90']:5.1f}  "
                f"diff mean {diff['mean']:6.1f} p50 {diff['p50']:4.0f} p90 {diff['p90']:4.0f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
