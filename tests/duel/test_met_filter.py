"""The meetings' filter (matcher/duel/limits.py) changes no verdict: with it or without
it, a pair of players who met is refused and every other pair is judged alike."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from matcher.duel.limits import DuelLimits, met_filter


@pytest.mark.parametrize("seed", range(12))
def test_the_filter_refuses_exactly_the_meetings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 3000))
    met = np.unique(rng.integers(0, n * n, size=int(rng.integers(1024, 6000))))
    filtered = DuelLimits(
        distance=np.full(n, np.inf),
        latency=np.zeros(n),
        latency_limit=np.full(n, np.inf),
        number=np.arange(n),
        met=met,
        wave_size=n,
        met_filter=met_filter(met),
    )
    assert filtered.met_filter is not None
    searched = dataclasses.replace(filtered, met_filter=None)
    # Random pairs, both orders of a meeting's two players, and one pair of the filter's
    # collisions (a key not met that shares a met key's slot) at least.
    meetings = met[rng.integers(0, len(met), 500)]
    size = len(filtered.met_filter)
    collision = int(met[0]) + size
    u = np.concatenate([rng.integers(0, n, 20_000), meetings // n, meetings % n, [collision // n]])
    v = np.concatenate([rng.integers(0, n, 20_000), meetings % n, meetings // n, [collision % n]])
    inside = (u < n) & (v < n)
    u, v = u[inside], v[inside]
    diff = np.zeros(len(u), dtype=np.int64)
    verdict = filtered.allowed(u, v, diff)
    assert np.array_equal(verdict, searched.allowed(u, v, diff))
    keys = np.minimum(u, v) * n + np.maximum(u, v)
    assert not verdict[np.isin(keys, met)].any()
    assert verdict[~np.isin(keys, met)].all()
    # A subset keeps the wave's meetings and their filter.
    assert filtered.subset(np.arange(n)).met_filter is filtered.met_filter


def test_too_few_meetings_have_no_filter() -> None:
    assert met_filter(np.arange(1023, dtype=np.int64)) is None
