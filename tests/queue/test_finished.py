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
