"""``optimal``'s large tier under rules that refuse pairs whatever their ratings
(``max_latency_ms``, block lists) against exact oracles (ADR 0214).

The waves are those a latency-limited 1v1 ladder sends: integer ratings with many ties,
one rating for all, uniform or two populations; latencies of 10-140 ms to a limit of
50 ms growing to 120 ms with the wait, so a far player's few legal partners are the
long-waiting ones, many places off in rating. ``optimal_exact_limit`` is lowered so that
waves of 60-300 players take the large tier, where rustworkx's blossom on every legal pair
is the oracle. Per wave: every pair legal, exactly the maximum number of pairs (the
large tier proves it and reports it as its bound), and the mean and 99th-percentile
|rating difference| within the quality bar of docs/optimal.md (+1, +10) of the optimum's.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
import rustworkx as rx

import matcher.duel.large_complete as large_complete
from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.duel.limits import duel_limits
from matcher.duel.result import duel_players
from matcher.rules import parse_rules
from matcher.strategies import run_wave

CLOSE_MS = 1_000_000
RULES = {
    "rating": "mmr",
    "max_distance": 100,
    "max_latency_ms": {"base": 50, "growth_per_s": 1, "cap": 120},
}
DISTRIBUTIONS = ("tied", "all_equal", "uniform", "bimodal")
SIZES = (60, 150, 300)


def rating(rng: random.Random, name: str) -> int:
    if name == "tied":
        return round(rng.gauss(1500, 300) / 25) * 25
    if name == "all_equal":
        return 1500
    if name == "uniform":
        return rng.randint(900, 1400)
    return int(rng.gauss(1000, 40)) if rng.random() < 0.6 else int(rng.gauss(2600, 40))


def wave(name: str, n: int, seed: int, blocking: bool) -> WaveSnapshot:
    rng = random.Random(seed * 7919 + n)
    ratings = [rating(rng, name) for _ in range(n)]
    tickets = []
    for i, mmr in enumerate(ratings):
        waited_s = rng.choice([0, 0, 0, 5, 10, 20, 30, 45, 60, 90, 150])
        latency = (("eu", rng.choice([10, 30, 50, 60, 70, 80, 100, 120, 140])),)
        near = [f"p{j}" for j in range(n) if j != i and abs(ratings[j] - mmr) <= 50]
        blocked = (
            tuple(rng.sample(near, min(2, len(near)))) if blocking and rng.random() < 0.3 else ()
        )
        player = Player(f"p{i}", (("mmr", mmr),), latency_ms=latency, blocked=blocked)
        ticket = Ticket(f"p{i}", "1v1", "eu", (player,), CLOSE_MS - waited_s * 1000)
        tickets.append(WaitingTicket(ticket, min(waited_s // 10, 9)))
    return WaveSnapshot("1v1", "eu", f"w{seed}", 1, seed, CLOSE_MS, tuple(tickets))


def legal(snapshot: WaveSnapshot, a: int, b: int) -> bool:
    """docs/rules.md's pair rule, written out: distance, both latencies within the limit
    at the longer wait, and neither blocked the other."""
    first, second = snapshot.tickets[a].ticket, snapshot.tickets[b].ticket
    waited = max(CLOSE_MS - first.joined_at_ms, CLOSE_MS - second.joined_at_ms) / 1000
    lag = min(50 + waited, 120)
    x, y = first.players[0], second.players[0]
    apart = abs(dict(x.ratings)["mmr"] - dict(y.ratings)["mmr"])
    slow = max(dict(x.latency_ms)["eu"], dict(y.latency_ms)["eu"])
    blocked = y.player_id in x.blocked or x.player_id in y.blocked
    return apart <= 100 and slow <= lag and not blocked


def optimum(snapshot: WaveSnapshot) -> tuple[int, list[int]]:
    """The most pairs, and the |rating differences| of the optimum's pairs (most pairs,
    then least summed ``diff**2 - 20 x waited waves``), by rustworkx's blossom."""
    n = len(snapshot.tickets)
    mmr = [dict(w.ticket.players[0].ratings)["mmr"] for w in snapshot.tickets]
    waits = [w.wait_cycles for w in snapshot.tickets]
    edges = [(a, b) for a in range(n) for b in range(a + 1, n) if legal(snapshot, a, b)]
    scores = [(mmr[a] - mmr[b]) ** 2 - 20 * (waits[a] + waits[b]) for a, b in edges]
    top = max(scores, default=0) + 1
    graph = rx.PyGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from([(a, b, top - s) for (a, b), s in zip(edges, scores, strict=True)])
    pairs = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return len(pairs), [abs(mmr[a] - mmr[b]) for a, b in pairs]


@pytest.mark.parametrize("blocking", [False, True], ids=["latency", "latency+blocks"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_large_tier_makes_the_most_legal_pairs_near_the_optimum(
    name: str, n: int, blocking: bool
) -> None:
    rules = dict(RULES, block_lists=True) if blocking else RULES
    profile = QueueProfile(
        "1v1", "optimal", ("m",), rules=rules, options={"optimal_exact_limit": 20}
    )
    for seed in (1, 2):
        snapshot = wave(name, n, seed, blocking)
        result = run_wave(snapshot, profile)
        at = {w.ticket.ticket_id: i for i, w in enumerate(snapshot.tickets)}
        made = [[at[s.ticket_id] for t in m.teams for s in t.seats] for m in result.matches]
        assert all(legal(snapshot, a, b) for a, b in made), (name, n, seed)
        most, best = optimum(snapshot)
        assert len(made) == most, (name, n, seed, len(made), most)
        assert result.stat("max_pairs_bound") == most
        mmr = [dict(w.ticket.players[0].ratings)["mmr"] for w in snapshot.tickets]
        found = [abs(mmr[a] - mmr[b]) for a, b in made]
        if not best:
            continue
        assert np.mean(found) <= np.mean(best) + 1, (name, n, seed, np.mean(found), np.mean(best))
        p99 = float(np.percentile(found, 99))
        assert p99 <= float(np.percentile(best, 99)) + 10, (name, n, seed, p99)


@pytest.mark.parametrize("blocking", [False, True], ids=["latency", "latency+blocks"])
@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_paths_searched_first_among_the_near_pairs_keep_the_most_pairs(
    name: str, blocking: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Waves of 2,000 players or more search the augmenting paths first among the near
    pairs (ADR 0220); here every wave does, so the oracle's sizes judge that path."""
    monkeypatch.setattr(large_complete, "_NEAR_PATHS_FROM", 0)
    rules = dict(RULES, block_lists=True) if blocking else RULES
    profile = QueueProfile(
        "1v1", "optimal", ("m",), rules=rules, options={"optimal_exact_limit": 20}
    )
    for seed in (3, 4):
        snapshot = wave(name, 300, seed, blocking)
        result = run_wave(snapshot, profile)
        at = {w.ticket.ticket_id: i for i, w in enumerate(snapshot.tickets)}
        made = [[at[s.ticket_id] for t in m.teams for s in t.seats] for m in result.matches]
        assert all(legal(snapshot, a, b) for a, b in made), (name, seed)
        most, best = optimum(snapshot)
        assert len(made) == most == result.stat("max_pairs_bound"), (name, seed, len(made), most)
        if not best:
            continue
        mmr = [dict(w.ticket.players[0].ratings)["mmr"] for w in snapshot.tickets]
        found = [abs(mmr[a] - mmr[b]) for a, b in made]
        assert np.mean(found) <= np.mean(best) + 1, (name, seed, np.mean(found), np.mean(best))
        assert float(np.percentile(found, 99)) <= float(np.percentile(best, 99)) + 10, (name, seed)


def test_players_who_play_nobody_refuse_no_pair_among_the_others() -> None:
    """Every player waited as long, so one latency limit holds for all: those above it
    play nobody, and among the others the limit refuses no pair, so the wave takes the
    usual steps (ADR 0220); a player under the limit who could play only a longer
    waiting one keeps the wave on the refusing path."""
    snapshot = wave("tied", 120, 5, False)
    same = tuple(
        replace(w, ticket=replace(w.ticket, joined_at_ms=CLOSE_MS - 5_000))
        for w in snapshot.tickets
    )
    players, _ = duel_players(replace(snapshot, tickets=same), "mmr")
    limits = duel_limits(players, replace(snapshot, tickets=same), parse_rules(RULES))
    assert limits is not None
    assert not limits.playable().all()
    assert not limits.refuses_by_traits()
    spread = duel_limits(*duel_players(snapshot, "mmr")[:1], snapshot, parse_rules(RULES))
    assert spread is not None and spread.refuses_by_traits()
