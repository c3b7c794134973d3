"""Cutting an order of tickets into matches: parties whole, the order kept where parties allow."""

from __future__ import annotations

import random

import pytest

from matcher.multifactor.config import MultifactorConfig
from matcher.multifactor.packing import _first_fit, pack_matches
from matcher.multifactor.pool import Pool, build_pool
from tests.multifactor.conftest import player, profile, random_wave, snapshot, solo, ticket


def _pool(wave_seed: int, players: int) -> Pool:
    return build_pool(random_wave(wave_seed, players), profile(3), MultifactorConfig())


def _assert_valid(matches: list[list[int]], pool: Pool) -> None:
    """Every ticket exactly once; each match splits into two full teams (checked by sizes)."""
    assert sorted(t for match in matches for t in match) == list(range(len(pool.tickets)))
    for match in matches:
        assert sum(len(pool.ticket_players[t]) for t in match) == 2 * pool.team_size


def test_duos_at_the_top_of_the_order_play_with_the_best_solos() -> None:
    """Eight solos below two duos: first-fit from the bottom strands both duos. The old
    fallback (all parties first) gave them the two weakest solos; packing from the top
    gives them the two strongest, the ones next to them in the order."""
    solos = [solo(i, 1000 + 10 * i) for i in range(8)]
    duos = [
        ticket(f"d{k}", player(f"d{k}a", 2000 + 10 * k), player(f"d{k}b", 2000 + 10 * k))
        for k in range(2)
    ]
    pool = build_pool(snapshot(duos + solos), profile(3), MultifactorConfig())
    order = sorted(range(len(pool.tickets)), key=pool.ticket_key)
    sizes = [len(members) for members in pool.ticket_players]
    assert _first_fit(order, sizes, 3) is None  # the case the fallback is for
    matches = pack_matches(order, pool)
    _assert_valid(matches, pool)
    ids = [[pool.tickets[t].ticket_id for t in match] for match in matches]
    top = next(match for match in ids if "d0" in match)
    assert sorted(top) == ["d0", "d1", "t6", "t7"]


@pytest.mark.parametrize("seed", range(12))
def test_any_order_packs_every_ticket_into_full_teams(seed: int) -> None:
    pool = _pool(seed, 60 + 6 * seed)
    rng = random.Random(seed)
    for _ in range(20):
        order = list(range(len(pool.tickets)))
        rng.shuffle(order)
        _assert_valid(pack_matches(order, pool), pool)


def test_a_stranded_order_stays_close_to_the_order() -> None:
    """Where plain first-fit fails, each team's tickets stay near each other in the order:
    far closer than with all parties placed first (the old fallback)."""
    spans, checked = [], 0
    for seed in range(40):
        pool = _pool(seed, 90)
        order = sorted(range(len(pool.tickets)), key=pool.ticket_key)
        sizes = [len(members) for members in pool.ticket_players]
        if _first_fit(order, sizes, 3) is not None:
            continue
        checked += 1
        rank = {t: r for r, t in enumerate(order)}
        for match in pack_matches(order, pool):
            spans.append(max(rank[t] for t in match) - min(rank[t] for t in match))
    assert checked >= 3
    assert sorted(spans)[len(spans) // 2] <= 6  # median span of a match, in tickets
