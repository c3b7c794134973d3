"""multifactor under a queue's ``priority`` rule (issue 35, ADR 0195): a priority ticket
that waited least takes a seat from a lower-priority one, priority never costs a match,
and the multifactor checker accepts a swap only where a higher priority displaced a
lower one (the oracle against brute force: tests/oracle/test_priority_oracle.py)."""

from __future__ import annotations

import dataclasses

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.multifactor.checks import multifactor_result_problems
from matcher.rules.check import wave_rule_problems
from matcher.strategies import run_wave

RULES = {"rating": "mmr", "max_spread": 400}


def solos(priorities: dict[int, int]) -> WaveSnapshot:
    """Five solo players for one 2v2; player i waited 5 - i waves (p4 the least)."""
    tickets = tuple(
        WaitingTicket(
            Ticket(
                f"t{i}",
                "q",
                "eu",
                (Player(f"p{i}", (("mmr", 1500 + 20 * i),)),),
                i * 1000,
                priority=priorities.get(i, 0),
            ),
            5 - i,
        )
        for i in range(5)
    )
    return WaveSnapshot("q", "eu", "w", 1, 9, 60_000, tickets)


def profile(priority: bool) -> QueueProfile:
    rules = {**RULES, "priority": True} if priority else RULES
    return QueueProfile("q", "multifactor", ("m",), team_size=2, rules=rules)


def matched(result) -> set[str]:  # type: ignore[no-untyped-def]
    return {t for match in result.matches for t in match.ticket_ids()}


def test_the_priority_ticket_that_waited_least_takes_a_seat() -> None:
    snapshot = solos({4: 5})
    plain = run_wave(snapshot, profile(False))
    assert matched(plain) == {"t0", "t1", "t2", "t3"}  # the longest-waiting, as always
    result = run_wave(snapshot, profile(True))
    assert "t4" in matched(result) and len(result.matches) == 1
    assert multifactor_result_problems(snapshot, profile(True), result) == []
    assert wave_rule_problems(snapshot, profile(True), result) == []
    # Without the rule the same result breaks the longest-waiting promise, and the plain
    # result breaks the priority rule.
    assert multifactor_result_problems(snapshot, profile(False), result)
    assert wave_rule_problems(snapshot, profile(True), plain)


def test_the_checker_fails_a_swap_no_priority_explains() -> None:
    snapshot = solos({4: 5})
    result = run_wave(snapshot, profile(True))
    # The same result in a wave where t4 has no priority: nothing displaced anyone.
    equal = dataclasses.replace(
        snapshot,
        tickets=tuple(
            dataclasses.replace(w, ticket=dataclasses.replace(w.ticket, priority=0))
            for w in snapshot.tickets
        ),
    )
    problems = multifactor_result_problems(equal, profile(True), result)
    assert "the matched solo players are not the longest-waiting ones" in problems


def test_without_two_priorities_nothing_changes() -> None:
    snapshot = solos({})
    assert run_wave(snapshot, profile(True)).matches == run_wave(snapshot, profile(False)).matches


def test_crowded_waves_pass_the_multifactor_checker() -> None:
    from tests.oracle.test_priority_oracle import RULES as CROWDED
    from tests.oracle.test_priority_oracle import crowded_wave

    ruled = QueueProfile(
        "q",
        "multifactor",
        ("m",),
        team_size=3,
        options={"budget_evaluations": 2_000},
        rules={**CROWDED, "priority": True},
    )
    for seed in range(20):
        snapshot = crowded_wave(seed)
        result = run_wave(snapshot, ruled)
        assert multifactor_result_problems(snapshot, ruled, result) == [], seed
