"""``optimal``'s percentile window (``window_percentile``, docs/adr/0177) against brute force.

On small waves (up to 10 players, integer ratings with many ties, mirror, one-race and
two-race players, several waits), an oracle that knows only the ADR's definition counts the
pool's ratings strictly between a pair's, derives the pair's reach with exact fractions and
enumerates every matching: ``optimal`` makes only pairs inside the window, as many pairs as
the best matching, at its least summed score, and its checker accepts the result. The checker
refuses a result that ignores the window (the points window's pairs) or leaves a pair the
window allows unmatched; the option is refused where it does not belong, at start.
"""

from __future__ import annotations

import dataclasses
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from matcher.core import WaveResult
from matcher.duel.checks import duel_result_problems
from matcher.duel.graph import legal_table
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelPlayer, parse_config
from matcher.duel.optimal import wave_arrays
from matcher.duel.windows import pressure, tier_window
from matcher.strategies import check_profile, run_wave
from streams.settings import SettingsError, load_settings
from tests.duel.waves import MAPS, profile_of, snapshot_of

#: A wave of at most 10 players against a population of 1,000: the LOW pressure tier.
ACTIVE = 1000
BASE, GROWTH, BONUS = 125, 45, 20


def random_wave(seed: int) -> list[DuelPlayer]:
    rng = random.Random(seed)
    players = []
    for i in range(rng.randint(2, 10)):
        rating = 1400 + 25 * rng.randint(0, 7)  # few distinct values: many ties
        kind = rng.random()
        other = 1400 + 25 * rng.randint(0, 7)
        bw, sc2 = {0: (rating, rating), 1: (rating, None), 2: (None, rating)}.get(
            int(kind * 4), (rating, other)
        )
        wait = rng.choice((0, 0, 1, 2, 4))
        players.append(DuelPlayer(f"p{i}", bw, sc2, wait, ticket_id=f"t{i}"))
    return players


def pool_of(players: list[DuelPlayer]) -> list[int]:
    return [r for p in players for r in {p.bw_mmr, p.sc2_mmr} if r is not None]


def reach(percent: float, pool: list[int], wait: int) -> int:
    share = Fraction(str(percent)) / 100 * len(pool) * Fraction(BASE + GROWTH * wait, BASE)
    return math.floor(share)


def may_play(
    players: list[DuelPlayer], bw: DuelPlayer, sc2: DuelPlayer, percent: float, rule: str
) -> bool:
    """Whether ``bw`` may play BW against ``sc2`` by the ADR: at most the pair's reach of
    the pool's ratings strictly between the two; the pair's wait the longer or the shorter
    of the two (``window_rule``)."""
    if bw is sc2 or bw.bw_mmr is None or sc2.sc2_mmr is None:
        return False
    pool = pool_of(players)
    low, high = sorted((bw.bw_mmr, sc2.sc2_mmr))
    between = sum(low < r < high for r in pool)
    pick = max if rule == "longer" else min
    return between <= reach(percent, pool, pick(bw.wait_cycles, sc2.wait_cycles))


def legal_cost(
    players: list[DuelPlayer], a: int, b: int, percent: float, rule: str = "longer"
) -> int | None:
    """The cheaper legal side choice of players a and b (None: no legal one)."""
    best = None
    for bw, sc2 in ((players[a], players[b]), (players[b], players[a])):
        if not may_play(players, bw, sc2, percent, rule):
            continue
        assert bw.bw_mmr is not None and sc2.sc2_mmr is not None
        cost = (bw.bw_mmr - sc2.sc2_mmr) ** 2 - BONUS * (bw.wait_cycles + sc2.wait_cycles)
        best = cost if best is None else min(best, cost)
    return best


def best_matching(players: list[DuelPlayer], percent: float, rule: str) -> tuple[int, int]:
    """(most pairs, least summed cost among those) over every matching of legal pairs."""
    n = len(players)
    costs = {
        (a, b): legal_cost(players, a, b, percent, rule) for a in range(n) for b in range(a + 1, n)
    }

    def search(left: tuple[int, ...]) -> tuple[int, int]:
        """(most pairs, minus their least summed cost) among ``left``."""
        if len(left) < 2:
            return 0, 0
        first, rest = left[0], left[1:]
        best = search(rest)  # the first player sits out
        for other in rest:
            cost = costs[(first, other)]
            if cost is None:
                continue
            pairs, negative = search(tuple(p for p in rest if p != other))
            best = max(best, (pairs + 1, negative - cost))
        return best

    pairs, negative = search(tuple(range(n)))
    return pairs, -negative


def made_pairs(result: WaveResult) -> list[tuple[int, int]]:
    return [
        (int(m.teams[0].seats[0].ticket_id[1:]), int(m.teams[1].seats[0].ticket_id[1:]))
        for m in result.matches
    ]


@pytest.mark.parametrize(
    ("percent", "rule"), [(5, "longer"), (12.5, "longer"), (30, "longer"), (10, "shorter")]
)
def test_optimal_is_the_best_matching_inside_the_percentile_window(
    percent: float, rule: str
) -> None:
    profile = profile_of("optimal", window_percentile=percent, window_rule=rule)
    pick = max if rule == "longer" else min
    for seed in range(40):
        players = random_wave(seed)
        snapshot = snapshot_of(players, seed=seed, active_population=ACTIVE)
        config = parse_config(profile.options, OPTIMAL_DEFAULTS)
        window = tier_window(pressure(len(players), ACTIVE, config), config)
        table = legal_table(wave_arrays(players, MAPS, window, config), np.arange(len(players)))
        expected = [[may_play(players, u, v, percent, rule) for v in players] for u in players]
        assert table.tolist() == expected, seed  # every pair, not only the optimum's
        result = run_wave(snapshot, profile)
        made = made_pairs(result)
        costs = [legal_cost(players, a, b, percent, rule) for a, b in made]
        assert None not in costs, (seed, made)
        for a, b in made:  # each pair at the side choice the oracle calls legal
            bw, sc2 = players[a], players[b]
            assert bw.bw_mmr is not None and sc2.sc2_mmr is not None
            between = sum(
                min(bw.bw_mmr, sc2.sc2_mmr) < r < max(bw.bw_mmr, sc2.sc2_mmr)
                for r in pool_of(players)
            )
            wait = pick(bw.wait_cycles, sc2.wait_cycles)
            assert between <= reach(percent, pool_of(players), wait), (seed, a, b)
        pairs, total = best_matching(players, percent, rule)
        assert len(made) == pairs, (seed, made, pairs)
        found = sum(
            ((players[a].bw_mmr or 0) - (players[b].sc2_mmr or 0)) ** 2
            - BONUS * (players[a].wait_cycles + players[b].wait_cycles)
            for a, b in made
        )
        assert found == total, (seed, made, found, total)
        assert duel_result_problems(snapshot, profile, result) == [], seed
        assert run_wave(snapshot, profile) == result, seed  # replayed identically
        # Ties decide nothing by ticket order: the window is the same in reverse order.
        backwards = snapshot_of(players[::-1], seed=seed, active_population=ACTIVE)
        assert duel_result_problems(backwards, profile, result) == [], seed


def lopsided() -> list[DuelPlayer]:
    """BW 1000 and 1010 against SC2 1020 and 1030: the points window pairs 1000 with 1020
    over 1010; 5 % of a pool of 4 lets nobody lie between a pair."""
    return [
        DuelPlayer("p0", 1000, None, ticket_id="t0"),
        DuelPlayer("p1", 1010, None, ticket_id="t1"),
        DuelPlayer("p2", None, 1020, ticket_id="t2"),
        DuelPlayer("p3", None, 1030, ticket_id="t3"),
    ]


def test_the_checker_refuses_a_result_that_ignores_the_percentile_window() -> None:
    snapshot = snapshot_of(lopsided(), active_population=ACTIVE)
    option = profile_of("optimal", window_percentile=5)
    points = run_wave(snapshot, profile_of("optimal"))
    assert sorted(made_pairs(points)) == [(0, 2), (1, 3)]
    assert duel_result_problems(snapshot, profile_of("optimal"), points) == []
    problems = duel_result_problems(snapshot, option, points)
    assert any("outside the percentile window 0" in p for p in problems), problems
    kept = run_wave(snapshot, option)
    assert made_pairs(kept) == [(1, 2)]
    # 1000 and 1030 stay unmatched: the pool is the whole wave's, so 1010 and 1020 lie
    # between them and the checker does not call the result incomplete.
    assert duel_result_problems(snapshot, option, kept) == []
    empty = dataclasses.replace(kept, matches=(), unmatched=("t0", "t1", "t2", "t3"))
    problems = duel_result_problems(snapshot, option, empty)
    assert any(p.startswith("not maximal: 1 legal pairs") for p in problems), problems


def test_the_reach_widens_with_the_longer_wait() -> None:
    players = lopsided()
    option = profile_of("optimal", window_percentile=10)  # 10 % of 4: nobody between
    assert made_pairs(run_wave(snapshot_of(players, active_population=ACTIVE), option)) == [(1, 2)]
    # 10 % of 4 x (125 + 45 x 5) / 125 = 1.12: one rating between at 5 waves waited.
    players[0] = dataclasses.replace(players[0], wait_cycles=5)
    players[3] = dataclasses.replace(players[3], wait_cycles=6)
    result = run_wave(snapshot_of(players, active_population=ACTIVE), option)
    assert sorted(made_pairs(result)) == [(0, 2), (1, 3)]
    assert (
        duel_result_problems(snapshot_of(players, active_population=ACTIVE), option, result) == []
    )


@pytest.mark.parametrize(
    ("strategy", "options", "rules", "message"),
    [
        ("optimal", {"window_percentile": 0}, {}, "must be a number > 0 and <= 100"),
        ("optimal", {"window_percentile": 101}, {}, "must be a number > 0 and <= 100"),
        ("optimal", {"window_percentile": "5"}, {}, "must be a number > 0 and <= 100"),
        ("optimal", {"window_percentile": True}, {}, "must be a number > 0 and <= 100"),
        ("optimal", {"window_percentile": 5, "low_base": 0}, {}, "needs high_base"),
        (
            "optimal",
            {"window_percentile": 5},
            {"rating": "mmr", "max_distance": 100},
            "rules.max_distance replaces the windows",
        ),
        ("ladder-v2.1", {"window_percentile": 5}, {}, "not honoured by strategy 'ladder-v2.1'"),
    ],
)
def test_a_bad_percentile_stops_the_start_in_one_line(
    strategy: str, options: dict[str, object], rules: dict[str, object], message: str
) -> None:
    queue = {"name": "q1", "strategy": strategy, "options": options, "rules": rules}
    with pytest.raises(SettingsError) as caught:
        load_settings(queues=[queue])
    text = str(caught.value)
    assert text.startswith("queues.0: queue 'q1': options.window_percentile: "), text
    assert message in text and "\n" not in text, text


def test_the_option_is_decisive_and_the_ladder_refuses_it_per_wave() -> None:
    plain = load_settings(queues=[{"name": "q1", "strategy": "optimal"}])
    option = {"name": "q1", "strategy": "optimal", "options": {"window_percentile": 5}}
    assert load_settings(queues=[option]).config_fingerprint() != plain.config_fingerprint()
    check_profile(profile_of("optimal", window_percentile=5))
    snapshot = snapshot_of(lopsided(), active_population=ACTIVE)
    with pytest.raises(ValueError, match=r"options\.window_percentile: not honoured"):
        run_wave(snapshot, profile_of("ladder-v2.1", window_percentile=5))


@pytest.mark.parametrize("prepair", [1000, 2])
def test_the_large_tier_keeps_to_the_percentile_window(prepair: int) -> None:
    """Forced onto the large tier (and its equal-rating pre-pass), ``optimal`` makes only
    pairs inside the window and leaves no pair it allows among the unmatched (the
    checker's maximality, on the whole wave's pool)."""
    rng = random.Random(prepair)
    players = [
        DuelPlayer(
            f"p{i}",
            *rng.choice([(r, r), (r, None), (None, r)]),
            rng.randint(0, 3),
            ticket_id=f"t{i}",
        )
        for i, r in enumerate(1000 + 10 * rng.randint(0, 60) for _ in range(120))
    ]
    profile = profile_of(
        "optimal", window_percentile=2, optimal_exact_limit=2, optimal_prepair_limit=prepair
    )
    snapshot = snapshot_of(players, active_population=ACTIVE)
    result = run_wave(snapshot, profile)
    assert result.stat("proven_optimal") == 0.0
    assert len(result.matches) >= 40
    assert duel_result_problems(snapshot, profile, result) == []
    for a, b in made_pairs(result):
        assert legal_cost(players, a, b, 2) is not None, (a, b)


def test_the_simulator_scenario_runs_the_option() -> None:
    """docs/sim/ideas-windows.toml loads as ``wavematch simulate`` reads it: the default and
    the percentile variants, options checked as the worker checks them."""
    from streams.commands.simulate import load_config

    config = load_config(Path(__file__).resolve().parents[2] / "docs/sim/ideas-windows.toml")
    variants = config.scenarios[0].variants
    assert [dict(v.options) for v in variants] == [
        {},
        {"window_percentile": 5},
        {"window_percentile": 10},
    ]


def test_explain_judges_alternatives_by_the_percentile_window() -> None:
    """``explain`` shows the pair's count against its reach, and calls an alternative the
    points window allows but the percentile window does not illegal, by the count."""
    from matcher.explain_duel import explain_duel

    snapshot = snapshot_of(lopsided(), active_population=ACTIVE)
    profile = profile_of("optimal", window_percentile=5)
    result = run_wave(snapshot, profile)
    facts, alternatives = explain_duel(snapshot, profile, result, result.matches[0], 3)
    window = dict(facts)["window"]
    assert "percentile 5 of the wave's 4 ratings" in window, window
    assert "at most 0 between, 0 for this pair" in window, window
    verdicts = {(a.player, a.candidate): a.verdict for a in alternatives}
    assert "1 ratings between > percentile window 0" in verdicts[("p2", "p0")], verdicts
