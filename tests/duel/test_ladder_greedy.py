"""Stage 5's fast candidate loop equals the design's pair-by-pair ``_fits`` test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.duel.ladder import _fits, _greedy
from matcher.duel.model import BW, SC2, DuelConfig, DuelPlayer, Window
from tests.duel.test_properties import duel_players
from tests.duel.waves import MAPS


def _greedy_by_fits(
    lead: list[DuelPlayer],
    follow: list[DuelPlayer],
    lead_side: str,
    window: Window,
    maps: tuple[str, ...],
    config: DuelConfig,
) -> list[list[DuelPlayer]]:
    """Stage 5 as the design writes it: every pair through ``_fits``, stable sort by score."""
    follow_side = SC2 if lead_side == BW else BW
    candidates = []
    for i, a in enumerate(lead):
        for j, b in enumerate(follow):
            if _fits(a, b, lead_side, window, maps, config):
                ra = a.bw_mmr if lead_side == BW else a.sc2_mmr
                rb = b.bw_mmr if follow_side == BW else b.sc2_mmr
                assert ra is not None and rb is not None
                score = (ra - rb) ** 2 - config.wait_bonus * (a.wait_cycles + b.wait_cycles)
                candidates.append((score, i, j))
    candidates.sort(key=lambda c: c[0])
    used_lead: set[int] = set()
    used_follow: set[int] = set()
    matches = []
    for _, i, j in candidates:
        if i not in used_lead and j not in used_follow:
            used_lead.add(i)
            used_follow.add(j)
            matches.append([lead[i], follow[j]])
    return matches


@settings(max_examples=150, deadline=None)
@given(
    players=duel_players(max_size=16),
    lead_is_bw=st.booleans(),
    rule=st.sampled_from(("lead", "longer", "shorter")),
    base=st.integers(0, 400),
    map_count=st.integers(0, 4),
)
def test_greedy_equals_pairwise_fits(
    players: list[DuelPlayer], lead_is_bw: bool, rule: str, base: int, map_count: int
) -> None:
    side = BW if lead_is_bw else SC2
    other = SC2 if lead_is_bw else BW
    lead = [p for p in players if (p.bw_mmr if side == BW else p.sc2_mmr) is not None]
    follow = [p for p in players if (p.bw_mmr if other == BW else p.sc2_mmr) is not None]
    window, config, maps = Window(base, 25), DuelConfig(window_rule=rule), MAPS[:map_count]
    expected = _greedy_by_fits(lead, follow, side, window, maps, config)
    assert _greedy(lead, follow, side, window, maps, config) == expected


@pytest.mark.parametrize(
    ("rule", "lead_waits", "paired"),
    [
        ("lead", 4, True),  # the lead's window (150) holds 80
        ("lead", 0, False),  # the lead's window (50) does not
        ("longer", 0, True),  # the follow player's 150 holds it
        ("shorter", 4, False),  # the follow player's 50 does not
    ],
)
def test_each_window_rule_takes_the_window_it_names(
    rule: str, lead_waits: int, paired: bool
) -> None:
    """80 MMR apart, windows 50 + 25 per cycle: one player waited 4 cycles, the other 0."""
    lead = [DuelPlayer("l", 1500, None, lead_waits)]
    follow = [DuelPlayer("f", None, 1580, 4 - lead_waits)]
    window, config = Window(50, 25), DuelConfig(window_rule=rule)
    expected = _greedy_by_fits(lead, follow, BW, window, MAPS, config)
    assert bool(expected) is paired  # the reference itself reads the rule so
    assert _greedy(lead, follow, BW, window, MAPS, config) == expected
