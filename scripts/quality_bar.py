"""docs/optimal.md's quality bar for one wave, as the audit scripts print and judge it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

import matcher
from matcher.core import QueueProfile, WaveResult, WaveSnapshot
from matcher.strategies import get_strategy, run_wave


def seed_range(spec: str) -> range:
    """Seeds of a ``--seeds`` option: ``"3"`` or ``"1-10"`` (both ends included)."""
    first, _, last = spec.partition("-")
    return range(int(first), int(last or first) + 1)


def matcher_from(tree: Path) -> None:
    """Stop with one line unless ``matcher`` was imported from ``tree`` (``--tree``): an
    A/B whose two sides ran the same code would compare nothing."""
    found = Path(matcher.__file__).resolve().parents[1]
    if found != tree.resolve():
        raise SystemExit(f"--tree {tree}: matcher was imported from {found} instead")


def judged(
    label: str, made: int, most: int, found: Sequence[int], best: Sequence[int], legal: bool
) -> tuple[str, bool]:
    """The row ``label | pairs maximum | mean optimum | p99 optimum`` of a wave whose
    ``made`` pairs have the |rating differences| ``found`` (every pair ``legal`` or not),
    against the optimum's ``most`` pairs with ``best``; and whether it misses the bar:
    fewer pairs, an illegal one, a mean more than 1 point or a 99th percentile more than
    10 points above the optimum's.

    >>> judged("w", 2, 2, [0, 4], [1, 1], True)
    ('w | 2 2 | 2.00 1.00 | 4.0 1.0', False)
    """
    found, best = list(found) or [0], list(best) or [0]
    mean, mean_best = float(np.mean(found)), float(np.mean(best))
    p99, p99_best = float(np.percentile(found, 99)), float(np.percentile(best, 99))
    bad = made < most or not legal or mean > mean_best + 1 or p99 > p99_best + 10
    row = f"{label} | {made} {most} | {mean:.2f} {mean_best:.2f} | {p99:.1f} {p99_best:.1f}"
    return row, bad


#: What a script judges a wave by: its pairs, the optimum's pair count, its |rating
#: differences|, the optimum's, and whether every pair is legal.
Judgement = tuple[int, int, Sequence[int], Sequence[int], bool]


def audit(
    header: str,
    profile: QueueProfile,
    waves: Iterable[tuple[str, WaveSnapshot]],
    judge: Callable[[WaveSnapshot, WaveResult], Judgement],
) -> int:
    """Close each ``(label, snapshot)`` with ``profile`` (CPU seconds timed), print its
    :func:`judged` row under ``header``, and return the exit status: 1 when a wave
    missed the bar."""
    get_strategy(profile.strategy)  # loaded before the first timing
    missed = 0
    print(f"{header} | pairs maximum | mean optimum | p99 optimum | cpu s")
    for label, snapshot in waves:
        start = time.process_time()
        result = run_wave(snapshot, profile)
        spent = time.process_time() - start
        row, bad = judged(label, *judge(snapshot, result))
        missed += bad
        print(f"{row} | {spent:.2f}{'  MISS' if bad else ''}")
    print(f"{missed} wave(s) missed the bar")
    return 1 if missed else 0
