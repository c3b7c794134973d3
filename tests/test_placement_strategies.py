"""Every built-in strategy places through stage 7: each match on a server of the region
minimising its worst player's latency when every player measured one hosting servers (the
route table's otherwise), and channels continuing the region's count (docs/adr/0105)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Match, Player, QueueProfile, ServerRoute, WaveSnapshot
from matcher.placement import channel_name
from matcher.strategies import get_strategy, result_problems
from tests.duel.waves import profile_of, snapshot_of, synthetic_players
from tests.multifactor.conftest import profile as multifactor_profile
from tests.multifactor.conftest import random_wave
from tests.teams.factories import profile as team_profile
from tests.test_decision_revisions import team_wave

HOSTING = {"eu": ("fra-1", "fra-2"), "na": ("nyc",), "asia": ("tok",)}
ROUTES = (
    ServerRoute("eu", "na", ("lon",)),
    *(ServerRoute(region, region, servers) for region, servers in HOSTING.items()),
)


def wave(name: str, seed: int) -> tuple[WaveSnapshot, QueueProfile]:
    if name in ("optimal", "ladder-v2.1"):
        return snapshot_of(synthetic_players(40, seed=seed), seed=seed), profile_of(name)
    if name == "multifactor":
        return random_wave(seed, 36), multifactor_profile(budget_evaluations=5_000)
    return team_wave(seed, 30), team_profile(name, team_size=3)


def measured(snapshot: WaveSnapshot, seed: int, unmeasured: float) -> WaveSnapshot:
    rng = random.Random(seed)

    def latencies(player: Player) -> Player:
        if rng.random() < unmeasured:
            return replace(player, latency_ms=())
        # Most measured every region; some only one or two (no common region then, often).
        regions = rng.sample(sorted(HOSTING), 3 if rng.random() < 0.7 else rng.randint(1, 2))
        return replace(player, latency_ms=tuple((r, rng.randint(5, 60)) for r in regions))

    tickets = tuple(
        replace(w, ticket=replace(w.ticket, players=tuple(map(latencies, w.ticket.players))))
        for w in snapshot.tickets
    )
    return replace(snapshot, tickets=tickets)


def best_servers(match: Match, snapshot: WaveSnapshot) -> set[str] | None:
    """The servers of every hosting region at the least worst latency; None: no region
    is measured by every player (brute force, apart from matcher.placement)."""
    players = {p.player_id: p for w in snapshot.tickets for p in w.ticket.players}
    seated = [dict(players[s.player_id].latency_ms) for t in match.teams for s in t.seats]
    worst = {r: max(m[r] for m in seated) for r in HOSTING if all(r in m for m in seated)}
    if not worst:
        return None
    least = min(worst.values())
    first = next(r for r in HOSTING if worst.get(r) == least)  # ties: the first routed
    return set(HOSTING[first])


@pytest.mark.parametrize(
    "name", ["optimal", "ladder-v2.1", "rebalance", "game-queue", "multifactor"]
)
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    placed=st.integers(0, 1_000),
    unmeasured=st.sampled_from((0.0, 0.1)),
)
def test_every_strategy_places_by_latency_and_continues_the_channels(
    name: str, seed: int, placed: int, unmeasured: float
) -> None:
    snapshot, profile = wave(name, seed)
    snapshot = replace(measured(snapshot, seed, unmeasured), matches_placed=placed)
    profile = replace(profile, routes=ROUTES, fallback_servers=("anywhere",))
    result = get_strategy(name)(snapshot, profile)
    assert result_problems(snapshot, profile, result) == []
    expected_channels = [channel_name(placed + n) for n in range(1, len(result.matches) + 1)]
    assert [m.channel for m in result.matches] == expected_channels
    for match in result.matches:
        best = best_servers(match, snapshot)
        if best is not None:
            assert match.server in best
        else:  # the route table's, for the regions the strategy placed the match for
            assert match.server in {"lon", "anywhere", *(s for v in HOSTING.values() for s in v)}


@pytest.mark.parametrize(
    "name", ["optimal", "ladder-v2.1", "rebalance", "game-queue", "multifactor"]
)
def test_the_waves_above_place_matches_both_ways(name: str) -> None:
    """The property above is not vacuous: latencies choose some servers, the table others."""
    snapshot, profile = wave(name, 3)
    snapshot = measured(snapshot, 3, 0.1)
    profile = replace(profile, routes=ROUTES, fallback_servers=("anywhere",))
    result = get_strategy(name)(snapshot, profile)
    chosen = [best_servers(match, snapshot) is not None for match in result.matches]
    assert any(chosen) and not all(chosen), chosen
