"""The worker's own Prometheus metrics follow what the fold did."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from streams.worker.folding import Folder
from streams.worker.metrics import WorkerMetrics
from tests.streams.conftest import HOME, KEY, joined, tick


def test_events_waves_matches_depth_and_dead_letters_are_counted(folder: Folder) -> None:
    registry = CollectorRegistry()
    metrics = WorkerMetrics(registry)
    state = folder.new_state(HOME)
    records = [joined("t1", "a"), joined("t2", "b"), joined("t3", "c"), joined("t1", "a")]
    records += [tick(1), b"not an event"]
    for offset, value in enumerate(records):
        folded = folder.fold(state, KEY, value, offset)
        assert folded is not None
        metrics.observe(folded, state)
    metrics.flush()  # the worker adds a batch's event counts once, after the batch

    def value(name: str, **labels: str) -> float | None:
        return registry.get_sample_value(name, labels)

    assert value("wavematch_events_total", note="joined") == 3
    assert value("wavematch_events_total", note="duplicate") == 1
    assert value("wavematch_events_total", note="wave_closed") == 1
    assert value("wavematch_matches_per_wave_count", queue="duo") == 1
    assert value("wavematch_matches_per_wave_sum", queue="duo") == 1
    assert value("wavematch_match_rating_diff_count", queue="duo") == 1
    assert value("wavematch_queue_depth_players", queue="duo", region="eu") == 1
    assert value("wavematch_dead_letters_total", code="garbage") == 1
    assert value("wavematch_wave_duration_seconds_count", queue="duo") == 1
