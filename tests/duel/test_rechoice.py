"""The re-choice of ``optimal``'s pairs in blocks under rules refusing pairs
(``matcher/duel/large_complete.py``): a block it skips as paired at the least score
already is one the blossom would not have made cheaper."""

from __future__ import annotations

import numpy as np
import pytest

import matcher.duel.large_complete as large_complete
import matcher.duel.optimal as optimal
from matcher.core import QueueProfile
from matcher.duel.graph import DuelArrays, cost
from matcher.strategies import run_wave
from tests.oracle.test_refusing_rules_oracle import RULES, wave


def closed(name: str, n: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """The pairs and their summed score of one oracle wave over 1,000 players (blocks)."""
    seen: list[tuple[DuelArrays, list[tuple[int, int]]]] = []
    large = optimal._large

    def keep(arrays: DuelArrays, config: object) -> object:
        found = large(arrays, config)  # type: ignore[arg-type]
        seen.append((arrays, found[0]))
        return found

    monkeypatch.setattr(optimal, "_large", keep)
    profile = QueueProfile("1v1", "optimal", ("m",), rules=RULES)
    run_wave(wave(name, n, 1, blocking=False), profile)
    arrays, pairs = seen[0]
    bw, sc2 = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])
    return len(pairs), int(cost(arrays, bw, sc2).sum())


@pytest.mark.parametrize("name", ["all_equal", "tied"])
def test_a_skipped_block_costs_what_the_blossom_would_make_of_it(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    skipped = []
    least = large_complete._least_already

    def counting(*args: object) -> bool:
        found = least(*args)  # type: ignore[arg-type]
        skipped.append(found)
        return found

    monkeypatch.setattr(large_complete, "_least_already", counting)
    with_skips = closed(name, 1600, monkeypatch)
    monkeypatch.setattr(large_complete, "_least_already", lambda *args: False)
    every_block = closed(name, 1600, monkeypatch)
    assert with_skips == every_block
    if name == "all_equal":  # one rating for all: every block is paired at gap 0
        assert skipped and all(skipped)
