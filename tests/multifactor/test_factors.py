"""Each factor's formula on hand-made matches, and how they combine."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matcher.core import LastMatch, Player
from matcher.multifactor.config import UNIT, MultifactorConfig
from matcher.multifactor.factors import (
    combine,
    hosts_score,
    pair_ping_ms,
    ping_score,
    ping_units,
    player_skill_score,
    premade_score,
    team_skill_score,
    transform,
    variation_score,
    wave_score,
)
from matcher.multifactor.report import score_teams
from tests.multifactor.conftest import player

CFG = MultifactorConfig()


def test_team_skill_halves_when_the_gap_of_means_equals_the_scale() -> None:
    assert team_skill_score([1500, 1600], [1550, 1550], CFG) == 1.0
    assert team_skill_score([1800, 1800], [1600, 1600], CFG) == 0.5  # gap 200 of 200
    assert team_skill_score([1900, 1900], [1500, 1500], CFG) == 1 / 3  # never 0


def test_team_skill_caps_ratings_first() -> None:
    wide = MultifactorConfig(team_skill_scale=2000, rating_ceiling=3000)
    # 9000 counts as 3000: gap of means (3000 + 1500 - 3000) / 2 = 750.
    assert team_skill_score([9000, 1500], [1500, 1500], wide) == pytest.approx(1 / (1 + 750 / 2000))
    uncapped = MultifactorConfig(team_skill_scale=2000, rating_ceiling=10_000)
    assert team_skill_score([9000, 1500], [1500, 1500], uncapped) == pytest.approx(
        1 / (1 + 3750 / 2000)
    )
    floor = MultifactorConfig(rating_floor=1000, team_skill_scale=1000)
    assert team_skill_score([0, 1000], [1000, 1000], floor) == 1.0


def test_player_skill_falls_with_the_mean_pairwise_gap_over_the_scale() -> None:
    cfg = MultifactorConfig(player_skill_scale=400)
    # pairs: 100, 200, 100 -> mean 133.3 -> 1 / (1 + 1/3)
    assert player_skill_score([1000, 1100, 1200], cfg) == pytest.approx(3 / 4)
    assert player_skill_score([1500] * 6, cfg) == 1.0
    assert player_skill_score([0, 3000], cfg) == pytest.approx(1 / (1 + 3000 / 400))


@given(
    ratings=st.lists(st.integers(0, 3000), min_size=6, max_size=6),
    first=st.permutations(range(6)),
    second=st.permutations(range(6)),
)
def test_a_more_balanced_split_never_scores_lower(
    ratings: list[int], first: list[int], second: list[int]
) -> None:
    """Same six solo players, two splits: the one with the smaller team gap scores at least
    as high on the whole match score (the issue's [100,200,300] v [2700,2800,2900] case)."""
    splits = [([ratings[i] for i in o[:3]], [ratings[i] for i in o[3:]]) for o in (first, second)]
    gaps = [abs(sum(a) - sum(b)) for a, b in splits]
    scores = [
        score_teams(
            [[(player(f"p{i}"), r)] for i, r in enumerate(a)],
            [[(player(f"q{i}"), r)] for i, r in enumerate(b)],
            {},
            CFG,
        ).total
        for a, b in splits
    ]
    if gaps[0] < gaps[1]:
        assert scores[0] >= scores[1]
    elif gaps[1] < gaps[0]:
        assert scores[1] >= scores[0]


@pytest.mark.parametrize(
    ("team1", "team2", "expected"),
    [
        ([3], [3], 1.0),
        ([3], [2, 1], 0.6),  # the small difference
        ([3], [1, 1, 1], 0.0),  # the big difference
        ([2, 1], [1, 1, 1], 0.6),
        ([1, 2], [2, 1], 1.0),
        ([1, 1, 1], [1, 1, 1], 1.0),
        ([5], [4, 1], 0.6),
        ([5], [3, 2], 0.4),
        ([5], [2, 2, 1], 0.2),
        ([5], [1, 1, 1, 1, 1], 0.0),
        ([2], [1, 1], 0.0),  # with teams of 2, a duo against solos is the biggest gap
        ([1], [1], 1.0),
    ],
)
def test_premade_score_by_party_structure(team1: list[int], team2: list[int], expected: float):
    assert premade_score(team1, team2, CFG) == pytest.approx(expected)
    assert premade_score(team2, team1, CFG) == pytest.approx(expected)


def test_premade_small_score_is_configurable() -> None:
    assert premade_score([3], [2, 1], MultifactorConfig(premade_small_score=0.8)) == 0.8


def test_ping_curve_is_perceived_not_linear() -> None:
    gain_low = ping_units(100, CFG) - ping_units(110, CFG)
    gain_high = ping_units(200, CFG) - ping_units(210, CFG)
    assert gain_low > gain_high > 0
    assert ping_units(0, CFG) == ping_units(50, CFG) == UNIT
    assert ping_units(400, CFG) == ping_units(5000, CFG) == 0


def test_ping_curve_is_configurable() -> None:
    linear = MultifactorConfig(ping_curve=((0, 1.0), (200, 0.0)))
    assert ping_units(50, linear) == 750_000
    assert ping_score([50, 150], linear) == 0.5


def test_pair_ping_goes_through_the_best_shared_region() -> None:
    a = player("a", eu=30, us=90)
    b = player("b", eu=50, us=20)
    assert pair_ping_ms(a, b, CFG) == 80  # eu: 30 + 50; us: 90 + 20
    lonely = Player("c", (("mmr", 1),), latency_ms=(("asia", 10),))
    assert pair_ping_ms(a, lonely, CFG) == CFG.ping_unknown_ms


def test_ping_to_teammates_is_not_counted() -> None:
    near, far = player("near", eu=10), player("far", eu=400)
    foes = [[(player("x", eu=10), 1500)], [(player("y", eu=10), 1500)]]
    base = score_teams([[(near, 1500)], [(near, 1500)]], foes, {}, CFG).factors[3]
    # far sits with a teammate in the same party: only cross-team pairs count.
    with_far = score_teams([[(near, 1500), (far, 1500)]], foes, {}, CFG).factors[3]
    assert base == 1.0
    assert with_far == pytest.approx(0.5)  # 2 of 4 cross pairs are 410 ms away


def test_variation_is_one_without_history_and_zero_for_a_rematch() -> None:
    team1, team2 = [["a"], ["b"], ["c"]], [["d"], ["e"], ["f"]]
    assert variation_score(team1, team2, {}, CFG) == 1.0
    history = {
        **{x: LastMatch(x, tuple(y for y in "abc" if y != x), ("d", "e", "f")) for x in "abc"},
        **{x: LastMatch(x, tuple(y for y in "def" if y != x), ("a", "b", "c")) for x in "def"},
    }
    assert variation_score(team1, team2, history, CFG) == 0.0
    # Now a, b, d vs c, e, f: 4 units repeated-or-swapped among new teammates and 7 among
    # new opponents (worked out pair by pair in docs/multifactor.md): 1 - 11/15.
    mixed = variation_score([["a"], ["b"], ["d"]], [["c"], ["e"], ["f"]], history, CFG)
    assert mixed == pytest.approx(4 / 15)


def test_a_swapped_relation_costs_less_than_the_same_one_again() -> None:
    history = {"a": LastMatch("a", (), ("b",))}
    again = variation_score([["a"]], [["b"]], history, CFG)  # opponents again
    swapped = variation_score([["a"], ["b"]], [["c"], ["d"]], history, CFG)  # now teammates
    assert again < swapped < 1.0
    assert again == pytest.approx(1 - 1 / 1)
    assert swapped == pytest.approx(1 - 0.5 / 6)


def test_either_players_history_counts() -> None:
    only_b = {"b": LastMatch("b", ("a",), ())}
    assert variation_score([["a"], ["b"]], [["c"], ["d"]], only_b, CFG) == pytest.approx(1 - 1 / 6)


def test_party_members_are_never_penalised_for_staying_together() -> None:
    history = {"a": LastMatch("a", ("b",), ()), "b": LastMatch("b", ("a",), ())}
    assert variation_score([["a", "b"]], [["c", "d"]], history, CFG) == 1.0
    assert variation_score([["a"], ["b"]], [["c"], ["d"]], history, CFG) < 1.0


def test_hosts_score() -> None:
    assert [hosts_score(n, CFG) for n in range(4)] == [0.0, 0.5, 1.0, 1.0]
    assert hosts_score(1, MultifactorConfig(hosts_one_score=0.2)) == 0.2


def test_match_score_is_the_weighted_average() -> None:
    cfg = MultifactorConfig(
        weight_team_skill=2,
        weight_player_skill=0,
        weight_premades=1,
        weight_ping=1,
        weight_variation=0,
        weight_hosts=0,
    )
    assert combine([0.5, 0.0, 1.0, 0.25, 0.0, 0.0], cfg) == pytest.approx((1 + 1 + 0.25) / 4)


def test_hosts_are_off_by_default() -> None:
    a, b = player("a", host=True), player("b", host=True)
    with_hosts = score_teams([[(a, 1500)]], [[(b, 1500)]], {}, CFG)
    without = score_teams([[(player("a"), 1500)]], [[(player("b"), 1500)]], {}, CFG)
    assert with_hosts.factors[5] == 1.0 and without.factors[5] == 0.0
    assert with_hosts.total == without.total


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 5))
def test_transform_is_increasing_and_concave(a: float, b: float, emphasis: float) -> None:
    cfg = MultifactorConfig(worst_match_emphasis=emphasis)
    low, high = min(a, b), max(a, b)
    assert transform(low, cfg) <= transform(high, cfg)
    middle = (low + high) / 2
    assert transform(middle, cfg) >= (transform(low, cfg) + transform(high, cfg)) / 2 - 1e-12


def test_wave_score_favours_lifting_the_worst_match_when_asked() -> None:
    plain, lifting = CFG, MultifactorConfig(worst_match_emphasis=1.0)
    even, uneven = [0.7, 0.7], [0.9, 0.5]
    assert wave_score(even, plain) == pytest.approx(wave_score(uneven, plain))
    assert wave_score(even, lifting) > wave_score(uneven, lifting)
    assert wave_score([], plain) == 0.0
