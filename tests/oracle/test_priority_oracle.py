"""The priority rule (issue 35, docs/rules.md) against brute force on small waves: in every
strategy that honours it, no ticket left out has a higher priority than a matched ticket
of its size whose place it could take (some split of the match with it in place of the
other keeps every rule), the live checker agrees, and no match is left possible among the
tickets left out; priority never costs a match (at least as many as without the rule)."""

from __future__ import annotations

import random
from itertools import product

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveResult, WaveSnapshot
from matcher.rules.check import (
    lineup_problem,
    met_recently,
    rated_snapshot,
    waited_s,
    wave_rule_problems,
)
from matcher.strategies import run_wave
from tests.oracle.test_block_oracle import WAVES, blocks, possible
from tests.oracle.test_team_oracle import CLOSED_AT_MS, TEAM

#: The team strategies that honour it (optimal and ladder refuse it).
STRATEGIES = (
    ("rebalance", {"method": "permutation"}),
    ("rebalance", {"method": "greedy"}),
    ("game-queue", {}),
    ("game-queue", {"mode": "queue"}),
    ("multifactor", {"budget_evaluations": 2_000}),
)
RULES = {"rating": "mmr", "max_spread": 300, "block_lists": True}


def crowded_wave(seed: int) -> WaveSnapshot:
    """Seven to twelve tickets of one or two players, more than a match or two seats, each
    of priority 0 to 3, some blocking others."""
    rng = random.Random(seed)
    sizes = [rng.choice((1, 1, 1, 2)) for _ in range(rng.randint(7, 12))]
    ids = [f"p{i}.{j}" for i, size in enumerate(sizes) for j in range(size)]
    tickets = []
    for i, size in enumerate(sizes):
        members = [f"p{i}.{j}" for j in range(size)]
        players = tuple(
            Player(
                pid,
                (("mmr", 50 * round(rng.gauss(1500, 150) / 50)),),
                blocked=tuple(b for b in blocks(rng, ids, pid) if b not in members)
                if rng.random() < 0.3
                else (),
            )
            for pid in members
        )
        joined = CLOSED_AT_MS - rng.randint(0, 30) * 1000
        ticket = Ticket(f"t{i}", "q", "eu", players, joined, priority=rng.choice((0, 0, 1, 3)))
        tickets.append(WaitingTicket(ticket, rng.randint(0, 3)))
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tuple(tickets))


def could_take(wave: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> list[str]:
    """Every (left out, matched) pair of one size, the first of higher priority, where some
    split of the match with the first in place of the second keeps every rule."""
    rules = profile.ruleset
    met = met_recently(wave, rules)
    tickets = {w.ticket.ticket_id: w.ticket for w in wave.tickets}
    found = []
    for match in result.matches:
        members = [tickets[t] for t in match.ticket_ids()]
        for low in members:
            for high_id in result.unmatched:
                high = tickets[high_id]
                if high.priority <= low.priority or high.size != low.size:
                    continue
                group = [high if t is low else t for t in members]
                waited = waited_s(CLOSED_AT_MS, [t.joined_at_ms for t in group])
                seated = [p for t in group for p in t.players]
                for sides in product(range(len(match.teams)), repeat=len(group)):
                    teams = [
                        [
                            p.rating("mmr") or 0
                            for s, t in zip(sides, group, strict=True)
                            if s == side
                            for p in t.players
                        ]
                        for side in range(len(match.teams))
                    ]
                    if all(len(team) == TEAM for team in teams) and (
                        lineup_problem(rules, teams, waited, (), seated, met) is None
                    ):
                        found.append(f"{high_id} for {low.ticket_id} in {match.match_id}")
                        break
    return found


@pytest.mark.parametrize("variant", STRATEGIES, ids=lambda v: f"{v[0]}-{v[1]}")
def test_no_higher_priority_ticket_left_out_for_a_lower_one(
    variant: tuple[str, dict[str, object]],
) -> None:
    strategy, options = variant
    profile = QueueProfile(
        "q", strategy, ("m",), team_size=TEAM, options=options, rules={**RULES, "priority": True}
    )
    plain = QueueProfile("q", strategy, ("m",), team_size=TEAM, options=options, rules=RULES)
    swaps = 0
    for seed in range(WAVES * 2):
        snapshot = rated_snapshot(crowded_wave(seed), profile.ruleset)
        result = run_wave(snapshot, profile)
        assert could_take(snapshot, profile, result) == [], f"{strategy} seed {seed}"
        assert wave_rule_problems(snapshot, profile, result) == [], seed
        index = {w.ticket.ticket_id: i for i, w in enumerate(snapshot.tickets)}
        left = [index[t] for t in result.unmatched if t in index]
        assert not possible(snapshot, left, profile), f"{strategy} seed {seed}: a match left"
        before = run_wave(snapshot, plain)
        assert len(result.matches) >= len(before.matches), seed
        swaps += before.unmatched != result.unmatched
    assert swaps > 0  # the waves exercise the swap, not only waves where priority is moot
