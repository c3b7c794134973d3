"""A snapshot plus the events after it re-creates the queue exactly: the fold's core promise."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import QueueProfile
from matcher.queue import LeaveReason, QueueRules, RegionQueue, TicketJoined, TicketLeft, WaveTick
from matcher.queue.records import queue_from_record, queue_to_record
from tests.queue.conftest import PAIRS, make_ticket

PROFILE = QueueProfile(queue="duo", strategy=PAIRS, maps=("alpha", "beta", "gamma"), team_size=2)
RULES = QueueRules(ticket_ttl_ms=50_000, finished_retention_ms=80_000)


@st.composite
def logs(draw):
    events, clock, sequence = [], 0, 0
    for _ in range(draw(st.integers(0, 60))):
        kind = draw(st.sampled_from(["join", "join", "join", "leave", "tick"]))
        clock += draw(st.integers(0, 9_000))
        if kind == "join":
            tid = f"t{draw(st.integers(0, 25))}"
            players = tuple(f"p{draw(st.integers(0, 30))}" for _ in range(draw(st.integers(1, 2))))
            vetoes = tuple(draw(st.lists(st.sampled_from(PROFILE.maps), max_size=2)))
            events.append(
                TicketJoined(
                    make_ticket(
                        tid,
                        *players,
                        joined_at_ms=clock,
                        rating=draw(st.integers(0, 3000)),
                        vetoes=vetoes,
                    )
                )
            )
        elif kind == "leave":
            events.append(
                TicketLeft(
                    f"t{draw(st.integers(0, 25))}", "duo", "eu", LeaveReason.REQUESTED, clock
                )
            )
        else:
            sequence += draw(st.integers(-1, 2))
            events.append(WaveTick("duo", "eu", f"w{sequence}", sequence, clock, "cfg", 10_000))
    return events


@settings(max_examples=150, deadline=None)
@given(events=logs(), data=st.data())
def test_restoring_a_snapshot_mid_log_changes_nothing(events, data):
    cut = data.draw(st.integers(0, len(events)))
    straight = RegionQueue("duo", "eu")
    expected = [straight.apply(e, PROFILE, RULES) for e in events]

    first = RegionQueue("duo", "eu")
    for event in events[:cut]:
        first.apply(event, PROFILE, RULES)
    restored = queue_from_record(json.loads(json.dumps(queue_to_record(first))))
    resumed = [restored.apply(e, PROFILE, RULES) for e in events[cut:]]

    assert resumed == expected[cut:]
    assert queue_to_record(restored) == queue_to_record(straight)


@settings(max_examples=100, deadline=None)
@given(events=logs())
def test_no_join_is_ever_matched_twice_and_every_player_sits_once(events):
    """A redelivered join (same ticket id and join time) never yields a second match."""
    state = RegionQueue("duo", "eu")
    matched_tickets: list[tuple[str, int]] = []
    for event in events + [e for e in events if isinstance(e, TicketJoined)]:
        joined_at = {q.ticket.ticket_id: q.ticket.joined_at_ms for q in state.tickets.values()}
        step = state.apply(event, PROFILE, RULES)
        matched_tickets.extend((t, joined_at[t]) for m in step.matches for t in m.ticket_ids())
        queued_players = [p.player_id for q in state.tickets.values() for p in q.ticket.players]
        assert len(queued_players) == len(set(queued_players)) == state.players_queued
    assert len(matched_tickets) == len(set(matched_tickets))


def test_a_record_of_another_version_is_refused():
    record = queue_to_record(RegionQueue("duo", "eu")) | {"version": 99}
    try:
        queue_from_record(record)
    except ValueError as error:
        assert str(error).startswith("version:")
    else:
        raise AssertionError("version 99 accepted")
