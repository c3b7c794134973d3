"""Faust runs no stream in a worker, so its checks that streams fetch and advance must
not fire: its one partition (the assignor's leader topic) is never read, and the checks
logged a false ERROR minutes after every assignment (an outside try)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from streams.settings import load_settings
from streams.worker.app import create_app


def test_faust_stream_checks_wait_longer_than_a_worker_lives() -> None:
    app = create_app(load_settings(broker_url="kafka://127.0.0.1:1"), CollectorRegistry())
    assert app.conf.stream_processing_timeout >= 365 * 24 * 3600
    assert not app.agents  # the premise: no Faust stream for the checks to watch
