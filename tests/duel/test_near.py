"""The exact near-pair search (matcher/duel/near.py) finds every legal pair, and only those:
it equals the full legality table under every window rule and the queue's rules."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from matcher.duel.graph import legal_table
from matcher.duel.limits import duel_limits
from matcher.duel.model import OPTIMAL_DEFAULTS
from matcher.duel.near import any_legal_between, legal_between, legal_touching
from matcher.rules import parse_rules
from tests.duel.waves import MAPS, arrays_of, snapshot_of, synthetic_players
from tests.oracle.distributions import long_waits


def table_pairs(arrays) -> set[tuple[int, int]]:  # type: ignore[no-untyped-def]
    everyone = np.arange(arrays.size)
    return {(int(a), int(b)) for a, b in np.argwhere(legal_table(arrays, everyone))}


@pytest.mark.parametrize("rule", ("longer", "shorter", "lead"))
@pytest.mark.parametrize("seed", (1, 2, 3))
def test_search_equals_the_table(rule: str, seed: int) -> None:
    players = synthetic_players(300, seed) if seed != 3 else long_waits(300, seed)
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    arrays = arrays_of(players, 600, config)
    everyone = np.arange(arrays.size)
    u, v = legal_between(arrays, everyone, everyone)
    found = list(zip(u.tolist(), v.tolist(), strict=True))
    assert len(found) == len(set(found)) and set(found) == table_pairs(arrays)
    some = everyone[::7]
    u, v = legal_touching(arrays, some)
    touching = {(a, b) for a, b in table_pairs(arrays) if a in set(some) or b in set(some)}
    assert set(zip(u.tolist(), v.tolist(), strict=True)) == touching and len(u) == len(touching)
    assert any_legal_between(arrays, some, some) == any(
        a in set(some) and b in set(some) for a, b in table_pairs(arrays)
    )


def test_search_equals_the_table_under_the_queue_rules() -> None:
    players = long_waits(250, 5)
    players = [dataclasses.replace(p, ticket_id=p.player_id) for p in players]
    snapshot = snapshot_of(players, active_population=500)
    rules = parse_rules(
        {"rating": "mmr", "max_distance": {"base": 40, "growth_per_s": 1, "cap": 300}}
    )
    limits = duel_limits(players, snapshot, rules)
    window_arrays = arrays_of(players, 500, OPTIMAL_DEFAULTS, MAPS)
    arrays = dataclasses.replace(
        window_arrays, limits=limits, radius=limits.window_radius(window_arrays.bw)
    )
    everyone = np.arange(arrays.size)
    u, v = legal_between(arrays, everyone, everyone)
    assert set(zip(u.tolist(), v.tolist(), strict=True)) == table_pairs(arrays)
