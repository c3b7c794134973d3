"""Stage 7 through the fold: channels rotate over a region's matches across waves (and
across a snapshot), and a real strategy places matches by the players' latencies with
the live checker on (docs/adr/0105)."""

from __future__ import annotations

import json

from matcher.core import Player, QueueProfile, ServerRoute, Ticket
from matcher.placement import channel_name
from matcher.queue import QueueRules, RegionQueue, TicketJoined, WaveTick
from matcher.queue.records import queue_from_record, queue_to_record
from tests.queue.conftest import PAIRS, make_ticket

PROFILE = QueueProfile(queue="duo", strategy=PAIRS, maps=("alpha", "beta"), team_size=2)
RULES = QueueRules()


def waves(sizes: list[int]) -> list[TicketJoined | WaveTick]:
    """Waves of ``sizes[i]`` matches each (two joins per match, then the tick)."""
    events: list[TicketJoined | WaveTick] = []
    for number, size in enumerate(sizes, start=1):
        at_ms = number * 10_000
        for k in range(2 * size):
            events.append(TicketJoined(make_ticket(f"t{number}-{k}", joined_at_ms=at_ms)))
        events.append(WaveTick("duo", "eu", f"w{number}", number, at_ms + 5_000, "cfg", 10_000))
    return events


def channels(state: RegionQueue, events: list[TicketJoined | WaveTick]) -> list[str]:
    found = []
    for event in events:
        step = state.apply(event, PROFILE, RULES)
        assert step.note != "wave_failed", step.failure
        found.extend(match.channel for match in step.matches)
    return found


def test_channels_continue_from_wave_to_wave_over_the_regions_matches() -> None:
    state = RegionQueue("duo", "eu")
    found = channels(state, waves([3, 4, 0, 6]))
    assert found == [channel_name(n) for n in range(1, 14)]
    assert found[3] == "scevo04"  # the second wave starts after the first's last channel
    assert state.matches_placed == 13


def test_a_restored_snapshot_continues_the_channels() -> None:
    events = waves([3, 4, 6])
    cut = events.index(next(e for e in events if isinstance(e, WaveTick) and e.sequence == 2))
    first = RegionQueue("duo", "eu")
    before = channels(first, events[: cut + 1])
    restored = queue_from_record(json.loads(json.dumps(queue_to_record(first))))
    assert restored.matches_placed == 7
    after = channels(restored, events[cut + 1 :])
    assert before + after == channels(RegionQueue("duo", "eu"), events)


def test_a_snapshot_without_the_count_reads_as_none_placed() -> None:
    state = RegionQueue("duo", "eu")
    channels(state, waves([2]))
    older = queue_to_record(state)
    del older["matches_placed"]  # as a release before rotating channels wrote it
    assert queue_from_record(older).matches_placed == 0


def test_a_real_strategy_places_each_match_in_the_latency_best_region() -> None:
    profile = QueueProfile(
        "1v1",
        "optimal",
        ("m",),
        routes=(
            ServerRoute("eu", "eu", ("fra",)),
            ServerRoute("na", "na", ("nyc",)),
            ServerRoute("eu", "na", ("lon",)),
        ),
        rules={"rating": "mmr"},
    )
    # Two near eu, two near na (both worse from eu), two who measured nothing.
    latency = {
        "a": (("eu", 20), ("na", 90)),
        "b": (("eu", 30), ("na", 80)),
        "c": (("eu", 95), ("na", 15)),
        "d": (("eu", 85), ("na", 25)),
        "e": (),
        "f": (),
    }
    rating = {"a": 1000, "b": 1010, "c": 2000, "d": 2010, "e": 3000, "f": 3010}
    state = RegionQueue("1v1", "eu")
    for name in latency:
        player = Player(name, (("mmr", rating[name]),), latency_ms=latency[name])
        ticket = Ticket(f"t-{name}", "1v1", "eu", (player,), 1_000)
        assert state.apply(TicketJoined(ticket), profile, RULES).note == "joined"
    step = state.apply(WaveTick("1v1", "eu", "w1", 1, 2_000, "cfg", 1_000), profile, RULES)
    assert step.note == "wave_closed"  # the live checker (channels, servers) passed
    server_of = {tuple(sorted(m.ticket_ids())): m.server for m in step.matches}
    assert server_of == {("t-a", "t-b"): "fra", ("t-c", "t-d"): "nyc", ("t-e", "t-f"): "fra"}
    assert [m.channel for m in step.matches] == ["scevo01", "scevo02", "scevo03"]
