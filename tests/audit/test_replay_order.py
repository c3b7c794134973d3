"""`wavematch replay --broker` reads the committed offsets before the topics, as `export`
does: a wave committed between the two reads is then pending, never "not published"."""

from __future__ import annotations

import argparse

from streams.commands import replay


def test_replay_reads_the_committed_offsets_before_the_topics(monkeypatch) -> None:
    calls: list[str] = []

    def offsets(args, settings):  # type: ignore[no-untyped-def]
        calls.append("committed offsets")
        return {0: 0}

    def topics(args, settings, names):  # type: ignore[no-untyped-def]
        calls.append("topics")
        return []

    monkeypatch.setattr(replay, "processed_offsets", offsets)
    monkeypatch.setattr(replay, "log_records", topics)
    args = argparse.Namespace(
        log=None, queue=None, region=None, from_wave=None, quiet=True, config=None, broker=None
    )
    monkeypatch.setattr(replay, "settings_from", lambda args: _settings())
    assert replay.run(args) == 3  # no record in the topics: nothing compared
    assert calls == ["committed offsets", "topics"]


def _settings():  # type: ignore[no-untyped-def]
    from streams.settings import Settings

    return Settings()
