"""The Grafana dashboard (deploy/grafana/wavematch.json) queries only metrics a worker
exports: every metric name in every panel's PromQL is in the worker's /metrics page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from streams.settings import load_settings
from streams.worker.app import create_app

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "wavematch.json"
#: Sample names each metric type adds to its family's name on /metrics.
SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"), "summary": ("_sum", "_count")}


def exported_names() -> set[str]:
    """The names on a worker's /metrics page: the app's registry, rendered as served
    (Faust's sensor and the worker's own metrics, with or without samples yet)."""
    registry = CollectorRegistry()
    create_app(load_settings(broker_url="kafka://127.0.0.1:1", app_id="dash"), registry)
    names = set()
    for line in generate_latest(registry).decode().splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            names |= {name, *(name + suffix for suffix in SUFFIXES.get(kind, ()))}
        elif line and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def queries(dashboard: dict[str, object]) -> list[str]:
    return [
        target["expr"]
        for panel in dashboard["panels"]  # type: ignore[attr-defined]
        for target in panel.get("targets", ())
    ]


def metric_names(expr: str) -> set[str]:
    """Identifiers of a PromQL expression that name series (not functions, labels, ranges)."""
    bare = re.sub(r"\{[^}]*\}|\[[^\]]*\]", "", expr)  # label matchers, range selectors
    bare = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", "", bare)  # grouping labels
    return {
        name
        for name in re.findall(r"\b[A-Za-z_:][A-Za-z0-9_:]*\b(?!\s*\()", bare)
        if not re.fullmatch(r"and|or|unless|offset|bool", name)
    }


def test_every_dashboard_query_uses_only_exported_metrics() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    exported = exported_names()
    assert "wavematch_time_to_match_seconds_bucket" in exported  # the scan sees ours
    used = {name: expr for expr in queries(dashboard) for name in metric_names(expr)}
    assert len(used) >= 10
    missing = {name: expr for name, expr in used.items() if name not in exported}
    assert missing == {}


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ("sum by (queue) (rate(a_total[5m]))", {"a_total"}),
        ('histogram_quantile(0.95, sum by (le) (rate(b_bucket{q="x"}[1m])))', {"b_bucket"}),
        ("sum(c) / sum(d) * 60", {"c", "d"}),
    ],
)
def test_the_scan_finds_the_metric_names(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names
