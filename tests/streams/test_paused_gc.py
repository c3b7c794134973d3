"""The collector is held during a fold and always given back; only a big fold ages objects."""

from __future__ import annotations

import gc
import weakref
from contextlib import nullcontext

import pytest

from streams.worker.folding import paused_gc


@pytest.fixture(autouse=True)
def collector_enabled():  # type: ignore[no-untyped-def]
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_held_inside_and_enabled_after_even_on_error() -> None:
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("a bug in a fold")
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    with paused_gc():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_a_small_fold_leaves_the_young_generation_alone() -> None:
    gc.collect()
    with paused_gc():
        kept = [[] for _ in range(100)]
    assert gc.get_count()[0] >= 100  # still young: the next young collection sees them
    assert len(kept) == 100


def test_a_big_fold_ages_its_objects_and_cycles_are_still_collected() -> None:
    gc.collect()
    many = gc.get_threshold()[0] + 1000
    with paused_gc():
        kept = [[] for _ in range(many)]
        cycle = Node()
        cycle.self = cycle  # type: ignore[attr-defined]
        freed = weakref.ref(cycle)
        del cycle
    assert gc.get_count()[0] < 100  # aged: no young collection will walk them
    assert len(kept) == many
    gc.collect()  # (unless the fold's own full collection already found it)
    assert freed() is None  # the full collection still finds the cycle


class Node:
    pass


def fold_leaving_cycles(count: int, batch: bool) -> Node:
    """A wave's close leaving ``count`` cycles, alone or inside a batch's section (the
    worker's: the batch, not the wave, then ages them)."""
    with paused_gc(age_after=0) if batch else nullcontext(), paused_gc(strategy=True):
        for _ in range(count):
            node = Node()
            node.self = node  # type: ignore[attr-defined]
    return node


@pytest.mark.parametrize("batch", [False, True])
def test_cycles_waves_leave_are_collected_without_anyone_asking(batch: bool) -> None:
    """``freeze`` zeroes every generation's count: the collector alone never ran a full
    collection while folds kept aging, and a worker closing waves that left cycles grew
    by them for ever (docs/benchmarks/teams.md)."""
    gc.collect()
    heap = len(gc.get_objects())
    first = weakref.ref(fold_leaving_cycles(gc.get_threshold()[0] + 1000, batch))
    per_fold, left = 20_000, 0
    while first() is not None and left < 2 * heap:  # the rule asks for a quarter of it
        fold_leaving_cycles(per_fold, batch)
        left += per_fold
    collected = first() is None
    gc.collect()
    assert collected, f"{left} cyclic objects left over a heap of {heap}: none collected"


def test_joins_age_without_a_full_collection() -> None:
    """A backlog of joins (sections not marked ``strategy``) still never pays for one."""
    gc.collect()
    collections = gc.get_stats()[2]["collections"]
    kept = []
    for _ in range(50):
        with paused_gc(age_after=0):
            kept.append([[] for _ in range(20_000)])
    assert gc.get_stats()[2]["collections"] == collections
    assert len(kept) == 50
