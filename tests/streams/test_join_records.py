"""A join's records written by join_records equal translate + fastavro's bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.queue import Dequeued, DequeueReason, Searching, Step
from schemas.codec import encoder_for
from schemas.direct import zigzag_varint
from streams import translate
from streams.worker.join_records import long_bytes, searching_status, step_records
from tests.streams.field_values import counts, maybe, texts, timestamps

ENCODE_STATUS = encoder_for("TicketStatus")
ENCODE_DEQUEUED = encoder_for("TicketDequeued")
longs = st.integers(-(2**63), 2**63 - 1)
statuses = st.builds(
    Searching,
    texts | st.sampled_from(["1v1", "é"]),
    texts | st.sampled_from(["eu", "na"]),
    texts | st.sampled_from(["eu", "na"]),
    st.integers(1, 2**31 - 1),
    counts | st.just(0),
    timestamps,
    estimated_wait_ms=st.none() | st.integers(0, 2**63 - 1),
    next_wave_at_ms=st.none() | timestamps,
    wave_id=maybe,
)


@settings(max_examples=300, deadline=None)
@given(status=statuses)
def test_a_status_equals_the_dict_path(status: Searching) -> None:
    assert searching_status(status) == ENCODE_STATUS(translate.ticket_status(status))


@settings(max_examples=100, deadline=None)
@given(
    joins=st.lists(
        st.builds(
            Searching,
            texts,
            st.sampled_from(["1v1", "2v2"]),
            st.sampled_from(["eu", "na"]),
            st.integers(1, 20_000),
            st.just(0),
            st.integers(1_767_225_600_000, 1_767_225_700_000),
            estimated_wait_ms=st.sampled_from([None, 0, 5_000, 25_000]),
            next_wave_at_ms=st.sampled_from([None, 1_767_225_620_000]),
        ),
        max_size=30,
    )
)
def test_statuses_of_joins_sharing_their_figures_equal_the_dict_path(
    joins: list[Searching],
) -> None:
    for status in joins:
        assert searching_status(status) == ENCODE_STATUS(translate.ticket_status(status))


@settings(max_examples=500, deadline=None)
@given(value=longs | st.integers(-20_000, 20_000) | st.integers(2**61, 2**63 - 1))
def test_long_bytes_equals_the_remembered_writer(value: int) -> None:
    assert long_bytes(value) == zigzag_varint(value)


def test_long_bytes_around_its_table_bounds() -> None:
    for value in (*range(8_180, 8_200), *range(2**14 - 3, 2**14 + 3), 2**62 - 1, 2**62):
        assert long_bytes(value) == zigzag_varint(value)


@settings(max_examples=100, deadline=None)
@given(
    dequeued=st.lists(
        st.builds(
            Dequeued,
            texts,
            texts,
            texts,
            st.sampled_from(DequeueReason),
            counts,
            timestamps,
            detail=maybe,
        ),
        max_size=2,
    ),
    searching=st.lists(statuses, max_size=2),
)
def test_a_steps_records_are_its_dequeues_then_its_statuses(
    dequeued: list[Dequeued], searching: list[Searching]
) -> None:
    step = Step("joined", dequeued=tuple(dequeued), statuses=tuple(searching))
    expected = [
        (
            "wavematch.cleanup.v1",
            d.ticket_id.encode(),
            ENCODE_DEQUEUED(translate.ticket_dequeued(d)),
        )
        for d in dequeued
    ] + [
        ("wavematch.status.v1", s.ticket_id.encode(), ENCODE_STATUS(translate.ticket_status(s)))
        for s in searching
    ]
    assert step_records(step) == expected
