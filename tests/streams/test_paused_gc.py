"""The collector is held during a fold and always given back; only a big fold ages objects."""

from __future__ import annotations

import gc
import weakref
from contextlib import nullcontext

import pytest

from streams.worker import folding
from streams.worker.folding import paused_gc


@pytest.fixture(autouse=True)
def collector_enabled(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    # Each test starts from a process's first wave: the heap not measured yet.
    monkeypatch.setattr(folding, "_survivors", None)
    monkeypatch.setattr(folding, "_heap_check_due", False)
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
    heap = folding._heap_size()
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


def fold_leaving_outputs(count: int) -> None:
    """A wave's close whose ``count`` objects outlive its section (matches, dequeues,
    records) and are freed once published: no cycle among them."""
    with paused_gc(strategy=True):
        outputs = [[] for _ in range(count)]
    del outputs


def full_collections() -> int:
    return int(gc.get_stats()[2]["collections"])


def test_waves_that_leave_no_cycle_bring_no_full_collection() -> None:
    """Each such wave counts as many objects as half the heap, which a quarter of the heap
    would have collected after every wave; freed once published, they never grow the
    heap the next section counts, and no collection runs."""
    gc.collect()
    heap = folding._heap_size()
    before = full_collections()
    for _ in range(40):
        fold_leaving_outputs(heap // 2)
    assert full_collections() == before


def test_waves_that_grow_the_heap_by_a_quarter_bring_one() -> None:
    """Objects that stay (a queue growing, or cycles) are what the rule is for."""
    gc.collect()
    heap = folding._heap_size()
    kept, runs = [], full_collections()
    for _ in range(12):
        with paused_gc(strategy=True):
            kept.append([[] for _ in range(heap // 8)])
    assert full_collections() > runs
    assert len(kept) == 12


def test_cycles_after_waves_without_any_are_collected_at_a_quarter_of_the_heap() -> None:
    """After many waves that left nothing, a workload's new cycles are collected each
    time they grew the heap by about a quarter: not before, and not much later."""
    gc.collect()
    heap = folding._heap_size()
    for _ in range(30):
        fold_leaving_outputs(heap // 2)
    per_fold, left, between = 5_000, 0, []
    runs = full_collections()
    while len(between) < 4 and left < 3 * heap:
        fold_leaving_cycles(per_fold, batch=False)
        left += per_fold
        if full_collections() > runs:
            runs = full_collections()
            between.append(left)
            left = 0
    assert len(between) == 4, f"{between}, then {left} cyclic objects left; heap {heap}"
    # Measured after every fold, collected past a quarter: a fold or two more at most (the
    # next fold's section measures the heap), and never before an eighth.
    size = blocks_per_cycle()
    assert all(heap // 8 <= size * b <= heap // 4 + 3 * size * per_fold for b in between), (
        between,
        heap,
        size,
    )


def blocks_per_cycle() -> float:
    """Heap blocks a node pointing at itself takes (the node and its __dict__)."""
    gc.collect()
    before = folding._heap_size()
    nodes = [Node() for _ in range(1_000)]
    for node in nodes:
        node.self = node  # type: ignore[attr-defined]
    grown = folding._heap_size() - before
    del nodes
    gc.collect()
    return grown / 1_000
