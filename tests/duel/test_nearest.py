"""Each player's nearest legal pairs and its partners in order (matcher/duel/nearest.py,
matcher/duel/near.py) against a brute force over the full legality table, on waves of
the refusing-rules oracle (latency limits, block lists; ties, one rating for all, two
populations): the searches outward from a rating and read off the partners give every
player exactly its nearest pairs in the same order."""

from __future__ import annotations

import random

import numpy as np
import pytest

import matcher.duel.optimal as optimal
from matcher.core import QueueProfile
from matcher.duel.graph import DuelArrays, legal_table
from matcher.duel.near import LegalPartners, partners_by_player
from matcher.duel.nearest import nearest_pairs, tie_rank
from matcher.strategies import run_wave
from tests.oracle.test_refusing_rules_oracle import RULES, wave


def wave_arrays(name: str, n: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> DuelArrays:
    """The arrays ``optimal``'s large tier gets for one oracle wave."""
    seen: list[DuelArrays] = []
    large = optimal._large

    def keep(arrays: DuelArrays, config: object) -> object:
        seen.append(arrays)
        return large(arrays, config)  # type: ignore[arg-type]

    monkeypatch.setattr(optimal, "_large", keep)
    rules = dict(RULES, block_lists=True)
    profile = QueueProfile(
        "1v1", "optimal", ("m",), rules=rules, options={"optimal_exact_limit": 20}
    )
    run_wave(wave(name, n, seed, blocking=True), profile)
    return seen[0]


def brute_force(arrays: DuelArrays) -> dict[int, list[tuple[int, int, int, int, int]]]:
    """Per player, its directed pairs as (gap, rank, side, u, v), side 0 when it plays
    BW and rank the partner's place in the player's own order of ties (``tie_rank``),
    sorted: the order both searches promise."""
    everyone = np.arange(arrays.size)
    table = legal_table(arrays, everyone)
    found: dict[int, list[tuple[int, int, int, int, int]]] = {p: [] for p in range(arrays.size)}
    for u, v in np.argwhere(table).tolist():
        gap = abs(int(arrays.bw[u]) - int(arrays.sc2[v]))
        found[u].append((gap, rank(u, v, arrays.size), 0, u, v))
        found[v].append((gap, rank(v, u, arrays.size), 1, u, v))
    return {p: sorted(pairs) for p, pairs in found.items()}


def rank(player: int, partner: int, size: int) -> int:
    return int(tie_rank(np.array([player]), np.array([partner]), size)[0])


@pytest.mark.parametrize("name", ["tied", "all_equal", "bimodal", "uniform"])
def test_nearest_pairs_and_partners_match_a_brute_force(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    arrays = wave_arrays(name, 150, 3, monkeypatch)
    expected = brute_force(arrays)
    everyone = np.arange(arrays.size, dtype=np.int64)
    player, partner = partners_by_player(arrays, everyone)
    for p in range(arrays.size):
        distinct: list[int] = []
        for _, _, side, u, v in expected[p]:
            q = v if side == 0 else u
            if q not in distinct:
                distinct.append(q)
        assert partner[player == p].tolist() == distinct, p
    rng = random.Random(name)
    searched = LegalPartners(arrays)
    searched.search(np.array(sorted(rng.sample(range(arrays.size), arrays.size // 2))))
    for k in (1, 5, 40):
        want_u = [u for p in range(arrays.size) for _, _, _, u, _ in expected[p][:k]]
        want_v = [v for p in range(arrays.size) for _, _, _, _, v in expected[p][:k]]
        _, u, v = nearest_pairs(arrays, everyone, k)
        assert (u.tolist(), v.tolist()) == (want_u, want_v), k
        _, u, v = searched.nearest(everyone, k)
        assert (u.tolist(), v.tolist()) == (want_u, want_v), k


@pytest.mark.parametrize("name", ["tied", "all_equal"])
def test_the_pairs_touching_players_keep_the_partners_a_search_finds(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``LegalPartners.touching`` (the short paths' one search of the players left out)
    gives every legal pair touching them, and keeps their partners exactly as a search
    of them would: the longer paths and the re-choice read those."""
    arrays = wave_arrays(name, 150, 4, monkeypatch)
    expected = brute_force(arrays)
    some = np.array(sorted(random.Random(name).sample(range(arrays.size), 40)))
    kept, fresh = LegalPartners(arrays), LegalPartners(arrays)
    u, v = kept.touching(some)
    want = {(pu, pv) for p in some.tolist() for _, _, _, pu, pv in expected[p]}
    assert sorted(zip(u.tolist(), v.tolist(), strict=True)) == sorted(want)
    fresh.search(some)
    for p in some.tolist():
        assert kept.known(p)
        assert kept.of(p).tolist() == fresh.of(p).tolist(), p
    assert not any(kept.known(p) for p in set(range(arrays.size)) - set(some.tolist()))


def test_a_tie_group_meets_its_members_in_spread_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where everyone has one rating, each player's nearest pairs come from its own part
    of the group (``tie_rank``): together they reach most of the group, and no member is
    in most players' lists. In wave order every list would start with the same few
    members, and the re-choice reading them could pair the group only through those."""
    arrays = wave_arrays("all_equal", 150, 3, monkeypatch)
    player, u, v = nearest_pairs(arrays, np.arange(arrays.size, dtype=np.int64), 5)
    partner = np.where(u == player, v, u)
    seekers = len(np.unique(player))
    assert len(np.unique(partner)) >= seekers // 2
    assert np.bincount(partner).max() <= 8 * 5
