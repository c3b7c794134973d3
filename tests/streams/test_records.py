"""The records written from the fold's objects equal fastavro's bytes for the same records."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Match, Seat, Team
from matcher.queue import Dequeued, DequeueReason, Searching, Step
from matcher.queue.lifecycle import StageStatus, TicketStage
from schemas.codec import encoder_for
from streams.wire.avro import Binary
from streams.wire.matches import MatchWriter, Write
from streams.wire.outbound import Record, Writer
from streams.wire.tickets import TicketWriter
from tests.streams import avro_oracle as oracle
from tests.streams.field_values import counts, maybe, texts, timestamps

# One writer for the module, as a worker has one: its memos see every example.
_TICKETS = TicketWriter(Binary())
ticket_dequeued = _TICKETS.dequeued
ticket_status = _TICKETS.searching


def match_created_writer(
    queue: str, region: str, wave_id: str, strategy: str, fingerprint: str, at_ms: int
) -> Write:
    return MatchWriter(Binary()).for_wave(
        (queue, region, wave_id, strategy, fingerprint, at_ms, None)
    )


def step_records(step: Step) -> list[Record]:
    return Writer().records(step)


# Beyond the models' bounds too (negative and 64-bit numbers): the writers must agree
# with fastavro on every value the schema can carry.
longs = st.integers(-(2**63), 2**63 - 1)
any_dequeue = st.builds(
    Dequeued,
    texts,
    texts,
    texts,
    st.sampled_from(DequeueReason),
    counts | longs,
    timestamps | longs,
    match_id=maybe,
    wave_id=maybe,
    detail=maybe,
)
any_status = st.builds(
    Searching,
    texts,
    texts,
    texts,
    st.integers(1, 2**31 - 1) | longs,
    counts | longs,
    timestamps | longs,
    estimated_wait_ms=st.none() | st.integers(0, 2**63 - 1) | longs,
    next_wave_at_ms=st.none() | timestamps | longs,
    wave_id=maybe,
)

seats = st.builds(Seat, texts, texts, st.just("") | texts, st.integers(0, 10_000))
teams = st.builds(Team, texts, st.lists(seats, max_size=4).map(tuple))
# Quality names may repeat (a map keeps the first place, the last value); values may be
# ints (written as doubles).
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
    expected = oracle.match_created(match, queue, region, wave_id, strategy, fingerprint, at_ms)
    write = match_created_writer(queue, region, wave_id, strategy, fingerprint, at_ms)
    assert write(match) == expected


@settings(max_examples=300, deadline=None)
@given(dequeued=any_dequeue)
def test_ticket_dequeued_from_the_object_equals_the_dict_path(dequeued: Dequeued) -> None:
    expected = oracle.ticket_dequeued(dequeued)
    assert ticket_dequeued(dequeued) == expected


@settings(max_examples=300, deadline=None)
@given(status=any_status)
def test_ticket_status_from_the_object_equals_the_dict_path(status: Searching) -> None:
    assert ticket_status(status) == oracle.ticket_status(status)


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
        expected = oracle.match_created(match, "1v1", "eu", "w-1", strategy, fingerprint, at_ms)
        assert write(match) == expected


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
        expected = oracle.ticket_dequeued(dequeued)
        assert ticket_dequeued(dequeued) == expected


# One writer serves joins and waves: its remembered pieces are keyed by what decides them
# (queue and region; wait, estimate, next wave and wave id), few values, many statuses.
@settings(max_examples=150, deadline=None)
@given(
    statuses=st.lists(
        st.builds(
            Searching,
            texts,
            st.sampled_from(["1v1", "2v2", "é"]),
            st.sampled_from(["eu", "na"]),
            st.integers(1, 20_000) | st.integers(1, 2**31 - 1),
            st.just(0) | counts,
            st.sampled_from([1_767_225_600_000, 1_767_225_610_000])
            | st.integers(1_767_225_600_000, 1_767_225_700_000),
            estimated_wait_ms=st.sampled_from([None, 0, 5_000, 25_000]) | st.integers(0, 2**63 - 1),
            next_wave_at_ms=st.sampled_from([None, 1_767_225_620_000]),
            wave_id=st.sampled_from([None, "w-1", "w-2"]),
        ),
        max_size=30,
    )
)
def test_statuses_sharing_their_figures_equal_the_dict_path(statuses: list[Searching]) -> None:
    for status in statuses:
        assert ticket_status(status) == oracle.ticket_status(status)


@settings(max_examples=100, deadline=None)
@given(
    dequeued=st.lists(any_dequeue, max_size=2),
    searching=st.lists(any_status, max_size=2),
)
def test_a_steps_records_are_its_dequeues_then_its_statuses(
    dequeued: list[Dequeued], searching: list[Searching]
) -> None:
    step = Step("joined", (*dequeued, *searching))
    expected = [
        ("wavematch.cleanup.v1", d.ticket_id.encode(), oracle.ticket_dequeued(d)) for d in dequeued
    ] + [("wavematch.status.v1", s.ticket_id.encode(), oracle.ticket_status(s)) for s in searching]
    assert step_records(step) == expected


@settings(max_examples=100, deadline=None)
@given(
    status=st.builds(
        StageStatus,
        texts,
        texts,
        texts,
        st.sampled_from(TicketStage),
        counts,
        timestamps,
        maybe,
        st.none() | timestamps,
        maybe,
    )
)
def test_a_stage_status_is_fastavros_ticket_status(status: StageStatus) -> None:
    """Written from the StageStatus itself: place 1, no estimate, its stage fields."""
    expected = encoder_for("TicketStatus")(
        {
            "ticket_id": status.ticket_id,
            "queue": status.queue,
            "region": status.region,
            "state": "SEARCHING",
            "position": 1,
            "waves_waited": status.waves_waited,
            "estimated_wait_ms": None,
            "next_wave_at_ms": None,
            "wave_id": None,
            "at_ms": status.at_ms,
            "stage": status.stage.name,
            "match_id": status.match_id,
            "deadline_at_ms": status.deadline_ms,
            "detail": status.detail,
        }
    )
    assert _TICKETS.stage(status) == expected
