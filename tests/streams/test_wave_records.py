"""A wave's records written from the fold's objects equal translate + fastavro's bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Match, Seat, Team
from matcher.queue import Dequeued, DequeueReason, Searching
from schemas.codec import encoder_for
from streams import translate
from streams.worker.wave_records import match_created_writer, ticket_dequeued, ticket_status

FASTAVRO = {name: encoder_for(name) for name in ("MatchCreated", "TicketDequeued", "TicketStatus")}

texts = st.text(min_size=1, max_size=12) | st.text(min_size=60, max_size=200)
maybe = st.none() | texts
timestamps = st.integers(946_684_800_000, 7_258_118_400_000 - 1)
counts = st.integers(0, 2**31 - 1)
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
