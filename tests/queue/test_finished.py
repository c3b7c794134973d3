"""FinishedTickets prunes exactly what a scan of the whole map would (matcher.queue.finished)."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.queue.finished import FinishedTickets

ids = st.sampled_from([f"t{i}" for i in range(12)])
writes = st.lists(st.tuples(ids, st.integers(0, 50)), max_size=8)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("set"), ids, st.integers(0, 50)),
        st.tuples(st.just("update"), writes, st.just(0)),
        st.tuples(st.just("finish_all"), st.lists(ids, max_size=6), st.integers(0, 50)),
        st.tuples(st.just("prune"), st.just(""), st.integers(0, 60)),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(writes, operations)
def test_prune_equals_a_scan_of_every_entry_and_keeps_the_order(
    start: list[tuple[str, int]], steps: list[tuple[str, object, int]]
) -> None:
    finished = FinishedTickets(start)
    plain = dict(start)
    for kind, argument, value in steps:
        if kind == "set":
            assert isinstance(argument, str)
            finished[argument] = value
            plain[argument] = value
        elif kind == "update":
            assert isinstance(argument, list)
            finished.update(dict(argument))
            plain.update(dict(argument))
        elif kind == "finish_all":
            assert isinstance(argument, list)
            finished.finish_all(argument, value)
            plain.update(dict.fromkeys(argument, value))
        else:
            for ticket_id in [t for t, at in plain.items() if at < value]:
                del plain[ticket_id]
            finished.prune(value)
        assert list(finished.items()) == list(plain.items())  # same entries, same order


def test_a_pickled_copy_prunes_like_the_original() -> None:
    finished = FinishedTickets({"a": 1, "b": 7})
    finished["c"] = 3
    copy = pickle.loads(pickle.dumps(finished))
    assert copy == finished and isinstance(copy, FinishedTickets)
    copy.prune(5)
    assert copy == {"b": 7}


def _apply(finished: FinishedTickets, kind: str, argument: object, value: int) -> None:
    if kind == "set":
        assert isinstance(argument, str)
        finished[argument] = value
    elif kind == "update":
        assert isinstance(argument, list)
        finished.update(dict(argument))
    elif kind == "finish_all":
        assert isinstance(argument, list)
        finished.finish_all(argument, value)
    else:
        finished.prune(value)


@settings(max_examples=300, deadline=None)
@given(writes, operations, st.lists(st.booleans(), max_size=40), st.integers(0, 10))
def test_a_base_and_the_journals_after_it_rebuild_the_map_entries_and_order(
    start: list[tuple[str, int]],
    steps: list[tuple[str, object, int]],
    snapshot_after: list[bool],
    base_at: int,
) -> None:
    """What the worker's snapshots do (streams/worker/finished_log.py): a base written
    from the whole map, then each snapshot's journal; replayed in order they give the map."""
    finished = FinishedTickets(start)
    saved: list[list[list[object]]] | None = None
    for index, (kind, argument, value) in enumerate(steps):
        if index == base_at:
            finished.take_journal()
            saved = [finished.as_journal()]
        _apply(finished, kind, argument, value)
        if saved is not None and index < len(snapshot_after) and snapshot_after[index]:
            saved.append(finished.take_journal())
            rebuilt = FinishedTickets()
            for journal in saved:
                rebuilt.replay(journal)
            assert list(rebuilt.items()) == list(finished.items())
            rebuilt.prune(value)  # and it goes on pruning like the original
            finished_copy = FinishedTickets(finished)
            finished_copy.prune(value)
            assert list(rebuilt.items()) == list(finished_copy.items())


def test_nothing_is_journaled_until_the_journal_is_first_taken() -> None:
    finished = FinishedTickets()
    finished["a"] = 1
    assert not finished.journaling and finished.take_journal() == []
    finished["b"] = 2
    finished.prune(2)
    assert finished.journaling and finished.take_journal() == [[2, ["b"]], [2]]
    finished.prune(0)  # forgets nothing: not journaled
    assert finished.take_journal() == []
