"""The simulation report's plots, as PNG bytes (matplotlib, Agg backend, no display)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # before pyplot: headless, deterministic raster output

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from matcher.sim import ScenarioRun
from matcher.sim.engine import VariantRun

#: Fixed metadata so the same figures give byte-identical PNGs (no creation date).
_PNG_METADATA = {"Software": None}


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, metadata=_PNG_METADATA)
    plt.close(figure)
    return buffer.getvalue()


def _waits(run: VariantRun) -> list[float]:
    return sorted(t.wait_ms / 1000 for t in run.tickets if t.outcome == "matched")


def wait_cdf(result: ScenarioRun) -> bytes:
    """Share of matched tickets that waited at most x seconds, one line per variant."""
    figure, axes = plt.subplots(figsize=(7, 4))
    for run in result.runs:
        waits = _waits(run)
        if waits:
            shares = [(i + 1) / len(waits) for i in range(len(waits))]
            axes.step(waits, shares, where="post", label=run.variant)
    axes.set(
        xlabel="wait until matched (s)",
        ylabel="share of matched tickets",
        title=f"{result.scenario.name}: wait CDF",
        ylim=(0, 1.01),
    )
    axes.grid(alpha=0.3)
    if axes.get_legend_handles_labels()[0]:  # none when no variant matched a ticket
        axes.legend(loc="lower right", fontsize="small")
    return _png(figure)


def quality_histogram(result: ScenarioRun) -> bytes:
    """Histogram of each match's rating difference between teams, per variant."""
    figure, axes = plt.subplots(figsize=(7, 4))
    diffs = [[m.rating_diff for m in run.matches] for run in result.runs]
    top = max((max(d) for d in diffs if d), default=1.0)
    bins = [top * i / 30 for i in range(31)]
    for run, values in zip(result.runs, diffs, strict=True):
        if values:
            axes.hist(values, bins=bins, histtype="step", linewidth=1.5, label=run.variant)
    axes.set(
        xlabel="rating difference between team means",
        ylabel="matches",
        title=f"{result.scenario.name}: match quality",
    )
    axes.grid(alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize="small")
    return _png(figure)


def wait_vs_quality(result: ScenarioRun) -> bytes:
    """Per variant: each match's mean ticket wait against its rating difference."""
    count = len(result.runs)
    figure, grid = plt.subplots(
        1, count, figsize=(3.6 * count, 3.6), sharex=True, sharey=True, squeeze=False
    )
    for axes, run in zip(grid[0], result.runs, strict=True):
        axes.scatter(
            [m.mean_wait_ms / 1000 for m in run.matches],
            [m.rating_diff for m in run.matches],
            s=4,
            alpha=0.4,
        )
        axes.set(title=run.variant, xlabel="mean wait of its tickets (s)")
        axes.grid(alpha=0.3)
    grid[0][0].set_ylabel("rating difference")
    figure.suptitle(f"{result.scenario.name}: wait vs quality per match")
    figure.tight_layout()
    return _png(figure)


def queue_length(result: ScenarioRun) -> bytes:
    """Players in each wave's snapshot over time: one panel per region, a line per variant."""
    regions = [r.name for r in result.scenario.regions]
    figure, grid = plt.subplots(
        len(regions), 1, figsize=(7, 2.4 * len(regions)), sharex=True, squeeze=False
    )
    for axes, region in zip(grid[:, 0], regions, strict=True):
        for run in result.runs:
            waves = [w for w in run.waves if w.region == region]
            axes.plot(
                [w.at_ms / 60_000 for w in waves],
                [w.players_queued for w in waves],
                linewidth=1,
                label=run.variant,
            )
        axes.set(ylabel=f"{region}: players")
        axes.grid(alpha=0.3)
    grid[0][0].legend(fontsize="small", loc="upper left")
    grid[-1][0].set_xlabel("simulated time (min)")
    figure.suptitle(f"{result.scenario.name}: queue length at each wave")
    figure.tight_layout()
    return _png(figure)


PLOTS: Sequence[tuple[str, str, object]] = (
    ("wait_cdf", "Wait CDF", wait_cdf),
    ("quality", "Match quality histogram", quality_histogram),
    ("wait_vs_quality", "Wait vs quality", wait_vs_quality),
    ("queue_length", "Queue length over time", queue_length),
)
