"""A wave's records written from the fold's objects equal translate + fastavro's bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Match, Seat, Team
from matcher.queue import Dequeued, DequeueReason, Searching
from schemas.codec import encoder_for
from streams import translate
from streams.worker.wave_records import match_created_writer, ticket_dequeued, ticket_status
from tests.streams.field_values import counts, maybe, texts, timestamps

FASTAVRO = {name: encoder_for(name) for name in ("MatchCreated", "TicketDequeued", "TicketStatus")}

seats = st.builds(Seat, texts, texts, st.just("") | texts, st.integers(0, 10_000))
teams = st.builds(Team, texts, st.lists(seats, max_size=4).map(tuple))
# Quality names may repeat (translate's dict keeps the first place, the last value);
# values may be ints (translate makes them floats).
quality = st.lists(
    st.tuples(
        st.sampled_from(["mmr_diff", "b", "é"]) | texts,
        st.floats(allow_nan=False) | st.integers(-(2**40), 2**40),
    ),
    max_size=4,
).map(tuple)
matches = st.builds(
    Match, texts, st.lists(teams, max_size=4).map(tuple), texts, texts, texts, quality
)


@settings(max_examples=300, deadline=None)
@given(
    match=matches,
    wave=st.tuples(texts, texts, texts, texts, texts, timestamps),
)
def test_match_created_from_the_match_equals_the_dict_path(
    match: Match, wave: tuple[str, str, str, str, str, int]
) -> None:
    queue, region, wave_id, strategy, fingerprint, at_ms = wave
    body = translate.match_created(match, queue, region, wave_id, strategy, fingerprint, at_ms)
    write = match_created_writer(queue, region, wave_id, strategy, fingerprint, at_ms)
    assert write(match) == FASTAVRO["MatchCreated"](body)


@settings(max_examples=300, deadline=None)
@given(
    dequeued=st.builds(
        Dequeued,
        texts,
        texts,
        texts,
        st.sampled_from(DequeueReason),
        counts,
        timestamps,
        match_id=maybe,
        wave_id=maybe,
        detail=maybe,
    )
)
def test_ticket_dequeued_from_the_object_equals_the_dict_path(dequeued: Dequeued) -> None:
    expected = FASTAVRO["TicketDequeued"](translate.ticket_dequeued(dequeued))
    assert ticket_dequeued(dequeued) == expected


@settings(max_examples=300, deadline=None)
@given(
    status=st.builds(
        Searching,
        texts,
        texts,
        texts,
        st.integers(1, 2**31 - 1),
        counts,
        timestamps,
        estimated_wait_ms=st.none() | st.integers(0, 2**63 - 1),
        next_wave_at_ms=st.none() | timestamps,
        wave_id=maybe,
    )
)
def test_ticket_status_from_the_object_equals_the_dict_path(status: Searching) -> None:
    assert ticket_status(status) == FASTAVRO["TicketStatus"](translate.ticket_status(status))


# One writer serves a whole wave and remembers what repeats across its duels (team names,
# map/server/channel, a one-figure quality's name): few distinct values, many matches.
few = st.sampled_from(["bw", "sc2", "é", "x" * 70])
duels = st.builds(
    Match,
    texts,
    st.tuples(
        st.builds(Team, few, st.tuples(st.builds(Seat, texts, texts, few, counts))),
        st.builds(Team, few, st.tuples(st.builds(Seat, texts, texts, few, counts))),
    ),
    few,
    few,
    few,
    st.sampled_from([(), (("mmr_diff", 30.0),), (("é", 2),), (("a", 1.5), ("b", -2.0))]),
)


@settings(max_examples=100, deadline=None)
@given(wave=st.lists(duels | matches, max_size=12), fields=st.tuples(texts, texts, timestamps))
def test_a_wave_of_duels_through_one_writer_equals_the_dict_path(
    wave: list[Match], fields: tuple[str, str, int]
) -> None:
    strategy, fingerprint, at_ms = fields
    write = match_created_writer("1v1", "eu", "w-1", strategy, fingerprint, at_ms)
    for match in wave:
        body = translate.match_created(match, "1v1", "eu", "w-1", strategy, fingerprint, at_ms)
        assert write(match) == FASTAVRO["MatchCreated"](body)


@settings(max_examples=100, deadline=None)
@given(
    wave=st.lists(
        st.builds(
            Dequeued,
            texts,
            st.sampled_from(["1v1", "é"]),
            st.sampled_from(["eu", "na"]),
            st.sampled_from([DequeueReason.MATCHED] * 3 + list(DequeueReason)),
            counts,
            st.sampled_from([1_767_225_600_000, 1_767_225_610_000]),
            match_id=st.sampled_from(["m-1", "m-2"]) | maybe,
            wave_id=st.sampled_from(["w-1", "w-2"]) | maybe,
            detail=st.none() | st.none() | texts,
        ),
        max_size=20,
    )
)
def test_the_dequeues_of_waves_equal_the_dict_path(wave: list[Dequeued]) -> None:
    for dequeued in wave:
        expected = FASTAVRO["TicketDequeued"](translate.ticket_dequeued(dequeued))
        assert ticket_dequeued(dequeued) == expected


@settings(max_examples=100, deadline=None)
@given(
    wave=st.lists(
        st.builds(
            Searching,
            texts,
            st.sampled_from(["1v1", "é"]),
            st.sampled_from(["eu", "na"]),
            st.integers(1, 2**31 - 1),
            counts,
            st.sampled_from([1_767_225_600_000, 1_767_225_610_000]),
            estimated_wait_ms=st.none() | st.integers(0, 2**63 - 1),
            next_wave_at_ms=st.sampled_from([None, 1_767_225_620_000]),
            wave_id=st.sampled_from([None, "w-1", "w-2"]),
        ),
        max_size=20,
    )
)
def test_the_statuses_of_waves_equal_the_dict_path(wave: list[Searching]) -> None:
    for status in wave:
        expected = FASTAVRO["TicketStatus"](translate.ticket_status(status))
        assert ticket_status(status) == expected
