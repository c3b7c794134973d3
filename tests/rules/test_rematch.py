"""The rematch rule through the fold: players who just met are not matched again until
their meeting is older than within_s, and the history survives a snapshot."""

from __future__ import annotations

from matcher.core import Player, QueueProfile, Ticket
from matcher.queue import QueueRules, RegionQueue, TicketJoined, WaveTick
from matcher.queue.records import queue_from_record, queue_to_record

PROFILE = QueueProfile(
    "duel", "rebalance", ("m",), team_size=1, rules={"rematch": {"last": 2, "within_s": 600}}
)
RULES = QueueRules(ticket_ttl_ms=3_600_000, finished_retention_ms=3_600_000)


def join(state: RegionQueue, ticket: str, player: str, at_ms: int) -> None:
    ticket_ = Ticket(ticket, "duel", "eu", (Player(player, (("mmr", 1500),)),), at_ms)
    state.apply(TicketJoined(ticket_), PROFILE, RULES)


def wave(state: RegionQueue, sequence: int, at_ms: int) -> set[frozenset[str]]:
    step = state.apply(
        WaveTick("duel", "eu", f"w{sequence}", sequence, at_ms, "c", 10_000), PROFILE, RULES
    )
    return {frozenset(s.player_id for t in m.teams for s in t.seats) for m in step.matches}


def test_players_who_just_met_wait_for_someone_else_or_for_within_s() -> None:
    state = RegionQueue("duel", "eu")
    join(state, "t1", "a", 0)
    join(state, "t2", "b", 0)
    assert wave(state, 1, 10_000) == {frozenset({"a", "b"})}
    join(state, "t3", "a", 20_000)
    join(state, "t4", "b", 20_000)
    assert wave(state, 2, 30_000) == set()  # they met 20 s ago
    state = queue_from_record(queue_to_record(state))  # the history is in the snapshot
    join(state, "t5", "c", 31_000)
    assert wave(state, 3, 40_000) in ({frozenset({"a", "c"})}, {frozenset({"b", "c"})})
    assert wave(state, 4, 610_000) == set()  # one player left
    join(state, "t6", "d", 611_000)
    assert len(wave(state, 5, 620_000)) == 1
    # a and b may meet again once their meeting is older than within_s
    fresh = RegionQueue("duel", "eu")
    join(fresh, "t1", "a", 0)
    join(fresh, "t2", "b", 0)
    wave(fresh, 1, 10_000)
    join(fresh, "t3", "a", 20_000)
    join(fresh, "t4", "b", 20_000)
    assert wave(fresh, 2, 30_000) == set()
    assert wave(fresh, 3, 610_001) == {frozenset({"a", "b"})}
