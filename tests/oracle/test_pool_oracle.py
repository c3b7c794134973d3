"""A low-priority pool (issue 35, docs/rules.md): an attribute rule with ``missing``
keeps leavers (``pool = "low"``) with leavers and everyone else (no attribute: "normal")
together, in every strategy, against brute force on small waves: no mixed match, the
checker agrees, and a match is made whenever one is possible."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from matcher.core import Player, QueueProfile, WaveSnapshot
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import run_wave
from tests.oracle.test_block_oracle import WAVES, duel_wave, most_pairs, possible, team_wave
from tests.oracle.test_team_oracle import STRATEGIES, TEAM

POOL = {"attributes": [{"name": "pool", "missing": "normal"}]}


def pooled(snapshot: WaveSnapshot, seed: int) -> WaveSnapshot:
    """No block lists; about a third of the tickets are leavers (``pool = "low"``)."""
    rng = random.Random(seed)
    tickets = []
    for waiting in snapshot.tickets:
        low = (("pool", "low"),) if rng.random() < 0.35 else ()
        players = tuple(replace(p, blocked=(), attributes=low) for p in waiting.ticket.players)
        tickets.append(replace(waiting, ticket=replace(waiting.ticket, players=players)))
    return replace(snapshot, tickets=tuple(tickets))


def unmixed(snapshot: WaveSnapshot, result, profile: QueueProfile) -> None:  # type: ignore[no-untyped-def]
    players = {p.player_id: p for w in snapshot.tickets for p in w.ticket.players}
    for match in result.matches:
        pools = {players[s.player_id].attribute("pool") for t in match.teams for s in t.seats}
        assert len(pools) == 1, (match.match_id, pools)
    assert wave_rule_problems(snapshot, profile, result) == []


@pytest.mark.parametrize("limit", (100, 1000))
def test_optimal_keeps_the_pools_apart_and_makes_the_most_pairs(limit: int) -> None:
    rules = {"rating": "mmr", "max_distance": limit, **POOL}
    profile = QueueProfile("q", "optimal", ("m",), rules=rules)
    for seed in range(WAVES):
        snapshot = pooled(duel_wave(seed), seed)
        result = run_wave(snapshot, profile)
        unmixed(snapshot, result, profile)
        most = 0
        for pool in (None, "low"):
            players = [
                w.ticket.players[0]
                for w in snapshot.tickets
                if w.ticket.players[0].attribute("pool") == pool
            ]
            most += most_pairs([Player(p.player_id, p.ratings) for p in players], limit)
        assert len(result.matches) == most, seed


@pytest.mark.parametrize("variant", STRATEGIES, ids=lambda v: v[0])
def test_team_strategies_keep_the_pools_apart_and_leave_no_match_possible(
    variant: tuple[str, dict[str, object]],
) -> None:
    strategy, options = variant
    rules = {"rating": "mmr", "max_spread": 600, **POOL}
    profile = QueueProfile("q", strategy, ("m",), team_size=TEAM, options=options, rules=rules)
    for seed in range(WAVES):
        snapshot = pooled(team_wave(seed), seed)
        rated = rated_snapshot(snapshot, profile.ruleset)
        result = run_wave(snapshot, profile)
        unmixed(snapshot, result, profile)
        index = {w.ticket.ticket_id: i for i, w in enumerate(rated.tickets)}
        left = [index[t] for t in result.unmatched if t in index]
        assert not possible(rated, left, profile), f"{strategy} seed {seed}: a match left"


def test_missing_is_validated() -> None:
    from matcher.ruleset import parse_rules

    with pytest.raises(ValueError, match=r"^rules.attributes\[0\].missing: must be a value"):
        parse_rules({"attributes": [{"name": "pool", "missing": ""}]})
