"""Every checker of a strategy that promises the most matches fails a result that is not
maximal (issue 30): a legal match, or pair, left among the unmatched tickets."""

from __future__ import annotations

from dataclasses import replace

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveResult, WaveSnapshot
from matcher.strategies import result_problems, run_wave

TEAM_STRATEGIES = (
    ("rebalance", {}),
    ("game-queue", {}),
    ("multifactor", {"budget_evaluations": 2_000}),
)


def solo_wave(count: int, rating: int = 1500) -> WaveSnapshot:
    tickets = tuple(
        WaitingTicket(Ticket(f"t{i}", "q", "eu", (Player(f"p{i}", (("mmr", rating + i),)),), 0), 0)
        for i in range(count)
    )
    return WaveSnapshot("q", "eu", "w1", 1, 7, 0, tickets)


def without_last_match(result: WaveResult) -> WaveResult:
    """The result with its last match undone (its tickets back among the unmatched): every
    other match keeps its derived id and channel, so only completeness is at fault."""
    last = result.matches[-1]
    return replace(
        result, matches=result.matches[:-1], unmatched=result.unmatched + last.ticket_ids()
    )


@pytest.mark.parametrize("variant", TEAM_STRATEGIES, ids=lambda v: v[0])
def test_team_checker_fails_a_result_leaving_a_match(
    variant: tuple[str, dict[str, object]],
) -> None:
    strategy, options = variant
    profile = QueueProfile("q", strategy, ("m",), team_size=3, options=options)
    snapshot = solo_wave(12)
    result = run_wave(snapshot, profile)
    assert len(result.matches) == 2 and result_problems(snapshot, profile, result) == []
    problems = result_problems(snapshot, profile, without_last_match(result))
    assert any(p.startswith("not maximal: tickets ") for p in problems), problems


@pytest.mark.parametrize("variant", TEAM_STRATEGIES, ids=lambda v: v[0])
def test_team_checker_accepts_what_the_rules_forbid(variant: tuple[str, dict[str, object]]) -> None:
    # Two far-apart halves under a tight spread: the second match's players can play
    # nobody else, and leaving the wave's left-over ticket out is no fault.
    strategy, options = variant
    rules = {"max_spread": {"base": 50, "growth_per_s": 0, "cap": 50}}
    profile = QueueProfile("q", strategy, ("m",), team_size=1, options=options, rules=rules)
    snapshot = solo_wave(3)
    far = replace(snapshot.tickets[2].ticket, players=(Player("p2", (("mmr", 2500),)),))
    snapshot = replace(
        snapshot, tickets=(*snapshot.tickets[:2], replace(snapshot.tickets[2], ticket=far))
    )
    result = run_wave(snapshot, profile)
    assert len(result.matches) == 1 and result.unmatched == ("t2",)
    assert result_problems(snapshot, profile, result) == []


def test_optimal_checker_fails_a_result_leaving_a_pair() -> None:
    profile = QueueProfile("q", "optimal", ("m",), rules={"rating": "mmr"})
    snapshot = solo_wave(4)
    result = run_wave(snapshot, profile)
    assert len(result.matches) == 2 and result_problems(snapshot, profile, result) == []
    problems = result_problems(snapshot, profile, without_last_match(result))
    assert len(problems) == 1 and problems[0].startswith("not maximal: 1 legal pairs"), problems
