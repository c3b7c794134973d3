"""The simulation report: a self-contained HTML page, its PNG plots and a JSON of every figure.

``report.html`` embeds each plot as a base64 data URI (it opens anywhere, alone); the
same PNGs are written beside it (for the README and for diffing), with ``figures.json``.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from matcher.sim import ScenarioRun

HTML_NAME, JSON_NAME = "report.html", "figures.json"


def write_report(
    results: tuple[ScenarioRun, ...], figures: dict[str, Any], out_dir: Path
) -> list[Path]:
    """Write the report into ``out_dir`` (created if needed); return the files written."""
    from streams.report.plots import PLOTS

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    sections = []
    for result, scenario_figures in zip(results, figures["scenarios"], strict=True):
        images = []
        for key, title, draw in PLOTS:
            png = draw(result)  # type: ignore[operator]
            path = out_dir / f"{_slug(result.scenario.name)}-{key}.png"
            path.write_bytes(png)
            written.append(path)
            images.append((key, title, png))
        sections.append(_section(scenario_figures, images))
    json_path = out_dir / JSON_NAME
    json_path.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    html_path = out_dir / HTML_NAME
    html_path.write_text(_page(figures, sections))
    return [html_path, json_path, *written]


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def _fmt(value: object, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else html.escape(str(value))


#: Columns of the per-variant table: header, and how to read it from a figures block.
COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], object]], ...] = (
    ("matched tickets", lambda f: f["tickets"]["matched"]),
    ("left", lambda f: f["tickets"]["left"]),
    ("expired", lambda f: f["tickets"]["expired"]),
    ("queued at end", lambda f: f["tickets"]["queued"]),
    ("players never matched", lambda f: f["players_never_matched"]),
    ("wait mean s", lambda f: f["wait_s"]["mean"]),
    ("wait p50 s", lambda f: f["wait_s"]["p50"]),
    ("wait p90 s", lambda f: f["wait_s"]["p90"]),
    ("wait p95 s", lambda f: f["wait_s"]["p95"]),
    ("wait p99 s", lambda f: f["wait_s"]["p99"]),
    ("wait max s", lambda f: f["wait_s"]["max"]),
    ("wait mean waves", lambda f: f["wait_waves"]["mean"]),
    ("wait p95 waves", lambda f: f["wait_waves"]["p95"]),
    ("matches", lambda f: f["matches"]),
    ("rating diff mean", lambda f: f["rating_diff"]["mean"]),
    ("rating diff p95", lambda f: f["rating_diff"]["p95"]),
    ("rating diff max", lambda f: f["rating_diff"]["max"]),
    ("repeat pairs %", lambda f: f["repeat_pairs_pct"]),
    ("team imbalance mean", lambda f: f["team_imbalance"]["mean"]),
    ("in-game spread mean", lambda f: f["in_game_spread"]["mean"]),
    ("queue mean players", lambda f: f["queue_players"]["mean"]),
    ("waves", lambda f: f["waves"]),
    ("mean interval s", lambda f: f["mean_interval_s"]),
    ("matches per wave", lambda f: f["matches_per_wave"]),
    ("estimate MAE s", lambda f: f["estimate_error"]["mae_s"]),
    ("estimate p90 s", lambda f: f["estimate_error"]["p90_s"]),
    ("estimate bias s", lambda f: f["estimate_error"]["bias_s"]),
)


#: Rows of a scenario whose players measured round trips to each other ([scenario.peers]).
PEER_COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], object]], ...] = (
    ("worst pair round trip p50 ms", lambda f: f["round_trip_ms"]["p50"]),
    ("worst pair round trip p90 ms", lambda f: f["round_trip_ms"]["p90"]),
    ("best host reach p50 ms", lambda f: f["host_reach_ms"]["p50"]),
    ("best host reach p90 ms", lambda f: f["host_reach_ms"]["p90"]),
    ("matches without a host", lambda f: f["matches_without_host"]),
)


#: Rows read from a variant's own block (all regions together), under the overall table.
CHECKS: tuple[tuple[str, Callable[[dict[str, Any]], object]], ...] = (
    ("rule violations (live checker)", lambda v: v["rule_violations"]),
    ("failed waves", lambda v: v["failed_waves"]),
)


def _table(
    rows: list[tuple[str, dict[str, Any]]], checks: list[dict[str, Any]] | None = None
) -> str:
    head = "".join(f"<th>{html.escape(name)}</th>" for name, _ in rows)
    peers = PEER_COLUMNS if rows and all("round_trip_ms" in b for _, b in rows) else ()
    lines = [(label, [read(block) for _, block in rows]) for label, read in (*COLUMNS, *peers)]
    if checks is not None:
        lines += [(label, [read(variant) for variant in checks]) for label, read in CHECKS]
    body = "".join(
        f"<tr><th>{html.escape(label)}</th>"
        + "".join(f"<td>{_fmt(value)}</td>" for value in values)
        + "</tr>"
        for label, values in lines
    )
    return f"<table><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>"


def _section(figures: dict[str, Any], images: list[tuple[str, str, bytes]]) -> str:
    name = html.escape(figures["name"])
    variants = figures["variants"]
    overall = _table(
        [(f"{v['variant']} ({v['strategy']})", v["overall"]) for v in variants], variants
    )
    regions = "".join(
        f"<h3>Region {html.escape(region)}</h3>"
        + _table([(v["variant"], v["regions"][region]) for v in variants if region in v["regions"]])
        for region in sorted({r for v in variants for r in v["regions"]})
    )
    plots = "".join(
        f'<figure id="{name}-{key}"><img alt="{html.escape(title)}" '
        f'src="data:image/png;base64,{base64.b64encode(png).decode()}">'
        f"<figcaption>{html.escape(title)}</figcaption></figure>"
        for key, title, png in images
    )
    recorded = figures.get("recorded")
    traffic = (
        f"{recorded['joins']} recorded joins, {recorded['leaves']} leaves"
        if recorded is not None
        else f"{figures['sessions']} sessions"
    )
    return (
        f"<section><h2>Scenario {name}: queue {html.escape(figures['queue'])} "
        f"({figures['kind']}, teams of {figures['team_size']}), {figures['duration_s']} s, "
        f"{traffic}</h2>"
        f"<h3>All regions</h3>{overall}<div class=plots>{plots}</div>{regions}</section>"
    )


_STYLE = (
    "body{font-family:sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;font-size:13px}"
    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "thead th{background:#eef}tbody th{text-align:left;background:#f7f7f7}"
    ".plots{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}img{max-width:100%}"
)


def _page(figures: dict[str, Any], sections: list[str]) -> str:
    source = (
        f"Recorded traffic of {html.escape(figures['log'])}: its joins and leaves at their "
        "recorded instants, each column's waves on its own timer (the recorded ticks for "
        "the 'recorded' column)."
        if "log" in figures
        else f"Seed {figures['seed']}."
    )
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        "<title>wavematch simulation report</title>"
        f"<style>{_STYLE}</style></head><body><h1>wavematch simulation report</h1>"
        f"<p>{source} Waits are from a ticket's join to its match; a wait "
        "estimate's error is the estimate given to a searching ticket minus the wait that "
        "followed it (matched tickets only). Figures are in figures.json.</p>"
        + "".join(sections)
        + "</body></html>\n"
    )
