"""The rematch rule through the fold: players who just met are not matched again until
their meeting is older than within_s, and the history survives a snapshot."""

from __future__ import annotations

from matcher.core import Player, QueueProfile, Ticket
from matcher.queue import QueueRules, RegionQueue, TicketJoined, WaveTick
from matcher.queue.lifecycle import (
    LifecyclePolicy,
    MatchProposal,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
)
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


# -- matches that were never played are not meetings (a ready check, a placement) -------

READY = LifecyclePolicy(ready_check_ms=5_000)
PLACED = LifecyclePolicy(placement_timeout_ms=20_000, placement_requeues=2)


def held_wave(state: RegionQueue, sequence: int, at_ms: int, policy: LifecyclePolicy) -> set:
    """The player sets a wave proposes (ready check) or places (placement)."""
    step = state.apply(
        WaveTick("duel", "eu", f"w{sequence}", sequence, at_ms, "c", 10_000),
        PROFILE,
        RULES,
        policy=policy,
    )
    proposed = [o.match for o in step.outputs if isinstance(o, MatchProposal)]
    return {
        frozenset(s.player_id for t in m.teams for s in t.seats) for m in (*step.matches, *proposed)
    }


def match_id_of(state: RegionQueue) -> str:
    (match_id,) = [*state.life.proposals, *state.life.placing]
    return match_id


def test_a_declined_ready_check_is_not_a_meeting() -> None:
    state = RegionQueue("duel", "eu")
    join(state, "t1", "a", 0)
    join(state, "t2", "b", 0)
    assert held_wave(state, 1, 10_000, READY) == {frozenset({"a", "b"})}
    declined = ReadyCheckAnswered(match_id_of(state), "duel", "eu", "b", False, 11_000)
    assert state.apply(declined, PROFILE, RULES, policy=READY).note == "match_cancelled"
    join(state, "t3", "b", 12_000)
    assert held_wave(state, 2, 20_000, READY) == {frozenset({"a", "b"})}


def test_a_timed_out_ready_check_is_not_a_meeting() -> None:
    state = RegionQueue("duel", "eu")
    join(state, "t1", "a", 0)
    join(state, "t2", "b", 0)
    held_wave(state, 1, 10_000, READY)
    accepted = ReadyCheckAnswered(match_id_of(state), "duel", "eu", "a", True, 11_000)
    state.apply(accepted, PROFILE, RULES, policy=READY)
    assert held_wave(state, 2, 20_000, READY) == set()  # b timed out, a is back alone
    join(state, "t3", "b", 21_000)
    assert held_wave(state, 3, 30_000, READY) == {frozenset({"a", "b"})}


def test_a_failed_placement_is_not_a_meeting_and_a_started_one_is() -> None:
    state = RegionQueue("duel", "eu")
    join(state, "t1", "a", 0)
    join(state, "t2", "b", 0)
    assert held_wave(state, 1, 10_000, PLACED) == {frozenset({"a", "b"})}
    failed = PlacementReported(match_id_of(state), "duel", "eu", PlacementOutcome.FAILED, 12_000)
    assert state.apply(failed, PROFILE, RULES, policy=PLACED).note == "placement_failed"
    assert held_wave(state, 2, 20_000, PLACED) == {frozenset({"a", "b"})}  # both requeued
    started = PlacementReported(match_id_of(state), "duel", "eu", PlacementOutcome.STARTED, 21_000)
    state.apply(started, PROFILE, RULES, policy=PLACED)
    join(state, "t3", "a", 22_000)
    join(state, "t4", "b", 22_000)
    assert held_wave(state, 3, 30_000, PLACED) == set()  # this time they played


def test_taking_back_an_unplayed_match_keeps_the_meeting_before_it() -> None:
    profile = QueueProfile(
        "duel", "rebalance", ("m",), team_size=1, rules={"rematch": {"last": 1, "within_s": 600}}
    )
    state = RegionQueue("duel", "eu")
    match_of: dict[frozenset[str], str] = {}

    def wave_(sequence: int, at_ms: int) -> set[frozenset[str]]:
        tick = WaveTick("duel", "eu", f"w{sequence}", sequence, at_ms, "c", 10_000)
        step = state.apply(tick, profile, RULES, policy=READY)
        for made in step.outputs:
            if isinstance(made, MatchProposal):
                players = frozenset(s.player_id for t in made.match.teams for s in t.seats)
                match_of[players] = made.match.match_id
        return {p for p, m in match_of.items() if m in state.life.proposals}

    def answer(players: str, player: str, accepted: bool, at_ms: int) -> None:
        match_id = match_of[frozenset(players)]
        event = ReadyCheckAnswered(match_id, "duel", "eu", player, accepted, at_ms)
        state.apply(event, profile, RULES, policy=READY)

    def join_(ticket: str, player: str, rating: int, at_ms: int) -> None:
        made = Ticket(ticket, "duel", "eu", (Player(player, (("mmr", rating),)),), at_ms)
        state.apply(TicketJoined(made), profile, RULES)

    join_("t1", "a", 1500, 0)
    join_("t2", "c", 1600, 0)
    assert wave_(1, 10_000) == {frozenset("ac")}
    answer("ac", "a", True, 11_000)
    answer("ac", "c", True, 11_000)  # a and c played
    for ticket, player, rating in (("t3", "a", 1500), ("t4", "b", 1500), ("t5", "c", 1600)):
        join_(ticket, player, rating, 12_000)
    join_("t6", "d", 1600, 12_000)
    assert wave_(2, 20_000) == {frozenset("ab"), frozenset("cd")}
    answer("cd", "c", True, 21_000)
    answer("cd", "d", True, 21_000)  # c's last match is now d
    answer("ab", "b", False, 21_000)  # never played: a's last match is c again
    join_("t7", "c", 1600, 22_000)
    assert wave_(3, 30_000) == set()
