"""The reference design's worked examples, where they agree with its code."""

from __future__ import annotations

from matcher.duel.ladder import _refine, equalize, ladder_pairs, partition, priority_filter
from matcher.duel.model import BW, DuelConfig, DuelPlayer, Window
from matcher.duel.windows import pressure, tier_window


def test_priority_filter_keeps_the_veteran() -> None:
    lead = [DuelPlayer("lead", 1500, None, 0)]
    follow = [DuelPlayer("fresh", None, 1550, 0), DuelPlayer("veteran", None, 1700, 10)]
    kept_lead, kept_follow = priority_filter(lead, follow)
    assert [p.player_id for p in kept_lead] == ["lead"]
    assert [p.player_id for p in kept_follow] == ["veteran"]


def test_moderate_window_after_five_cycles_is_275() -> None:
    config = DuelConfig()
    wave_pressure = pressure(6, 40, config)  # 0.8 * 6 / 40 = 0.12: MODERATE
    assert 0.10 <= wave_pressure < 0.20
    assert tier_window(wave_pressure, config).max_diff(5) == 275


def test_pressure_tiers_and_scales() -> None:
    config = DuelConfig()
    assert tier_window(pressure(2, 10, config), config) == Window(75, 25)  # 1.2*2/10 = 0.24
    assert tier_window(pressure(2, 20, config), config) == Window(100, 35)  # 1.0*2/20 = 0.10
    assert tier_window(pressure(2, 100, config), config) == Window(125, 45)  # 0.016


def test_refinement_swap_lowers_error_from_24200_to_200() -> None:
    a, c = DuelPlayer("a", 1500, None, 0), DuelPlayer("c", 1600, None, 0)
    b, d = DuelPlayer("b", None, 1610, 0), DuelPlayer("d", None, 1490, 0)
    matches = [[a, b], [c, d]]
    before = sum((x.bw_mmr - y.sc2_mmr) ** 2 for x, y in matches)  # type: ignore[operator]
    swaps = _refine(matches, BW, Window(125, 45), ("m",), DuelConfig())
    after = sum((x.bw_mmr - y.sc2_mmr) ** 2 for x, y in matches)  # type: ignore[operator]
    assert (before, after, swaps) == (24_200, 200, 1)
    assert [[x.player_id, y.player_id] for x, y in matches] == [["a", "d"], ["c", "b"]]


def test_equalize_follows_the_code_not_the_prose_example() -> None:
    """Prose says BW=4, SC2=5; the code moves all three "both" players to BW (ADR 0010)."""
    bw_only = [DuelPlayer(f"b{i}", 1500, None) for i in range(2)]
    sc2_only = [DuelPlayer(f"s{i}", None, 1500) for i in range(5)]
    both = [DuelPlayer(f"x{i}", 1500 + 10 * i, 1500) for i in range(3)]
    bw, sc2 = equalize(bw_only, sc2_only, both, DuelConfig())
    assert (len(bw), len(sc2)) == (5, 5)
    assert {p.player_id for p in bw} == {"b0", "b1", "x0", "x1", "x2"}


def test_equalize_moves_one_neutral_player_when_means_differ() -> None:
    bw_only = [DuelPlayer("strong", 2000, None)]
    sc2_only = [DuelPlayer("weak", None, 1000)]
    both = [DuelPlayer("n", 1500, 1490), DuelPlayer("m", 1800, 1200)]
    bw, sc2 = equalize(*partition(bw_only + sc2_only + both), DuelConfig())
    # Distribution puts "m" (bias 600) on BW, "n" on SC2; BW mean 1900 vs SC2 1245 > 50,
    # so the most neutral "both" player on the stronger side (m, the only one) moves.
    assert [p.player_id for p in bw] == ["strong"]
    assert sorted(p.player_id for p in sc2) == ["m", "n", "weak"]


def test_ladder_pairs_inside_windows_and_counts_swaps() -> None:
    players = [
        DuelPlayer("a", 1500, None),
        DuelPlayer("c", 1600, None),
        DuelPlayer("b", None, 1610),
        DuelPlayer("d", None, 1490),
        DuelPlayer("far", None, 2500),
    ]
    outcome = ladder_pairs(players, 100, ("m",), DuelConfig())
    assert outcome.lead_side == BW
    assert sorted((p.bw.player_id, p.sc2.player_id) for p in outcome.pairs) == [
        ("a", "d"),
        ("c", "b"),
    ]
