"""Figures of a simulated run: waits, quality, queue length and wait-estimate error.

Every figure is plain data (dicts of numbers) so the report, the JSON and the tests
read the same values. Percentiles are nearest-rank: deterministic, no interpolation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from matcher.sim.engine import EstimateRecord, MatchRecord, TicketOutcome, VariantRun, WaveRecord
from matcher.sim.repeats import repeat_percent

OUTCOMES = ("matched", "left", "expired", "rejected", "queued")


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (``share`` in [0, 1]); None for no values.

    >>> percentile([4, 1, 3, 2], 0.5), percentile([4, 1, 3, 2], 0.95), percentile([], 0.5)
    (2, 4, None)

    Notes: O(n log n).
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


def spread(values: Sequence[float]) -> dict[str, float | None]:
    """Mean, p50, p90, p95, p99 and max of ``values`` (all None when empty).

    >>> spread([1.0, 2.0, 3.0, 10.0])
    {'count': 4, 'mean': 4.0, 'p50': 2.0, 'p90': 10.0, 'p95': 10.0, 'p99': 10.0, 'max': 10.0}
    """
    if not values:
        empty: dict[str, float | None] = {"count": 0, "mean": None}
        return empty | dict.fromkeys(("p50", "p90", "p95", "p99", "max"))
    return {
        "count": len(values),
        "mean": sum(values) / len(values),
        "p50": percentile(values, 0.5),
        "p90": percentile(values, 0.9),
        "p95": percentile(values, 0.95),
        "p99": percentile(values, 0.99),
        "max": max(values),
    }


def estimate_error(records: Sequence[EstimateRecord]) -> dict[str, float | None]:
    """Mean absolute error, p90 absolute error and mean signed error (bias), in seconds.

    >>> from matcher.sim.engine import EstimateRecord as E
    >>> estimate_error([E("eu", 0, 10_000, 4_000), E("eu", 0, 2_000, 4_000)])
    {'count': 2, 'mae_s': 4.0, 'p90_s': 6.0, 'bias_s': 2.0}
    """
    if not records:
        return {"count": 0, "mae_s": None, "p90_s": None, "bias_s": None}
    errors = [(r.estimated_ms - r.realised_ms) / 1000 for r in records]
    absolute = [abs(e) for e in errors]
    return {
        "count": len(records),
        "mae_s": sum(absolute) / len(absolute),
        "p90_s": percentile(absolute, 0.9),
        "bias_s": sum(errors) / len(errors),
    }


def run_figures(run: VariantRun) -> dict[str, Any]:
    """All figures of one variant: overall and per region."""
    regions = sorted({t.region for t in run.tickets} | {w.region for w in run.waves})
    figures = {
        "variant": run.variant,
        "strategy": run.strategy,
        "overall": _figures(run.tickets, run.matches, run.waves, run.estimates),
        # The live checker's findings over every wave result (docs/adr/0104).
        "rule_violations": len(run.violations),
        "first_violations": run.violations[:3],
        "failed_waves": run.failed_waves,
    }
    figures["regions"] = {
        region: _figures(
            [t for t in run.tickets if t.region == region],
            [m for m in run.matches if m.region == region],
            [w for w in run.waves if w.region == region],
            [e for e in run.estimates if e.region == region],
        )
        for region in regions
    }
    return figures


def _figures(
    tickets: Sequence[TicketOutcome],
    matches: Sequence[MatchRecord],
    waves: Sequence[WaveRecord],
    estimates: Sequence[EstimateRecord],
) -> dict[str, Any]:
    matched = [t for t in tickets if t.outcome == "matched"]
    return {
        "tickets": {name: sum(1 for t in tickets if t.outcome == name) for name in OUTCOMES},
        "players_never_matched": players_never_matched(tickets),
        "wait_s": spread([t.wait_ms / 1000 for t in matched]),
        "wait_waves": spread([float(t.waves) for t in matched]),
        "matches": len(matches),
        "rating_diff": spread([m.rating_diff for m in matches]),
        "team_imbalance": spread([m.imbalance for m in matches]),
        "in_game_spread": spread([m.spread for m in matches]),
        "queue_players": spread([float(w.players_queued) for w in waves]),
        "waves": len(waves),
        "mean_interval_s": sum(w.interval_ms for w in waves) / len(waves) / 1000 if waves else None,
        "matches_per_wave": len(matches) / len(waves) if waves else None,
        "estimate_error": estimate_error(estimates),
        "repeat_pairs_pct": repeat_percent([m.repeat for m in matches]),
    } | _peer_figures(matches)


def _peer_figures(matches: Sequence[MatchRecord]) -> dict[str, Any]:
    """Round trips of the matches of a scenario with [scenario.peers]; else nothing."""
    if all(m.round_trip_ms is None for m in matches):
        return {}
    reach = [m.host_reach_ms for m in matches if m.host_reach_ms is not None]
    return {
        "round_trip_ms": spread([m.round_trip_ms for m in matches if m.round_trip_ms is not None]),
        "host_reach_ms": spread(reach),
        "matches_without_host": len(matches) - len(reach),
    }


def players_never_matched(tickets: Sequence[TicketOutcome]) -> int:
    """Players of sessions none of whose tickets was matched.

    >>> from matcher.sim.engine import TicketOutcome as T
    >>> players_never_matched([T("eu-1.g0", "eu", 2, 0, "left", 3, 30_000, "eu-1"),
    ...                        T("eu-2.g0", "eu", 1, 0, "matched", 1, 9_000, "eu-2")])
    2
    """
    size: dict[str, int] = {}
    matched: set[str] = set()
    for ticket in tickets:
        session = ticket.session
        size[session] = ticket.players
        if ticket.outcome == "matched":
            matched.add(session)
    return sum(n for session, n in size.items() if session not in matched)
