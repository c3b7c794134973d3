"""The collector is held during a fold and always given back; only a big fold ages objects."""

from __future__ import annotations

import gc

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
    class Node:
        pass

    gc.collect()
    many = gc.get_threshold()[0] + 1000
    with paused_gc():
        kept = [[] for _ in range(many)]
        cycle = Node()
        cycle.self = cycle  # type: ignore[attr-defined]
        del cycle
    assert gc.get_count()[0] < 100  # aged: no young collection will walk them
    assert len(kept) == many
    assert gc.collect() >= 1  # the full collection still finds the cycle
