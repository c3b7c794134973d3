"""The meetings' filter (matcher/duel/limits.py) changes no verdict: a pair of players
who met is refused and every other pair is allowed, as a look-up of every key says."""

from __future__ import annotations

import numpy as np
import pytest

from matcher.duel.limits import DuelLimits


def _limits(n: int, met: np.ndarray) -> DuelLimits:
    return DuelLimits(
        distance=np.full(n, np.inf),
        latency=np.zeros(n),
        latency_limit=np.full(n, np.inf),
        number=np.arange(n),
        met=met,
        wave_size=n,
    )


@pytest.mark.parametrize("seed", range(12))
def test_the_filter_refuses_exactly_the_meetings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 3000))
    met = np.unique(rng.integers(0, n * n, size=int(rng.integers(1, 6000))))
    limits = _limits(n, met)
    assert limits.met_filter is not None
    # Random pairs, both orders of a meeting's two players, and one pair of the filter's
    # collisions (a key not met that shares a met key's slot) at least.
    meetings = met[rng.integers(0, len(met), 500)]
    collision = int(met[0]) + len(limits.met_filter)
    u = np.concatenate([rng.integers(0, n, 20_000), meetings // n, meetings % n, [collision // n]])
    v = np.concatenate([rng.integers(0, n, 20_000), meetings % n, meetings // n, [collision % n]])
    inside = (u < n) & (v < n)
    u, v = u[inside], v[inside]
    verdict = limits.allowed(u, v, np.zeros(len(u), dtype=np.int64))
    keys = np.minimum(u, v) * n + np.maximum(u, v)
    assert np.array_equal(verdict, ~np.isin(keys, met))
    # A subset keeps the wave's meetings and their filter.
    assert limits.subset(np.arange(n)).met_filter is limits.met_filter


def test_one_meeting_is_refused_and_no_other_pair() -> None:
    limits = _limits(4, np.array([1 * 4 + 2], dtype=np.int64))  # players 1 and 2 met
    u, v = np.array([1, 2, 1, 0, 3]), np.array([2, 1, 3, 2, 3])
    verdict = limits.allowed(u, v, np.zeros(5, dtype=np.int64))
    assert verdict.tolist() == [False, False, True, True, True]
