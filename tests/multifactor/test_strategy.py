"""The registered strategy end to end: checker, determinism, budget, per-factor quality."""

from __future__ import annotations

from dataclasses import replace

import pytest

from matcher.core import LastMatch, Match, Team, WaveResult
from matcher.multifactor.checks import multifactor_result_problems
from matcher.multifactor.config import FACTORS
from matcher.multifactor.report import format_report
from matcher.multifactor.strategy import multifactor_strategy
from matcher.strategies import get_strategy
from matcher.teams.checks import team_result_problems
from schemas import codec
from schemas import models as wire
from streams.wire.avro import Binary
from streams.wire.matches import MatchWriter
from tests.multifactor.conftest import player, profile, random_wave, snapshot, solo, ticket

SMALL = {"budget_evaluations": 4_000}


@pytest.mark.parametrize(
    ("seed", "players", "team_size"),
    [(1, 60, 3), (2, 61, 3), (3, 17, 1), (4, 30, 2), (5, 40, 4), (6, 7, 3), (7, 0, 3)],
)
def test_results_pass_the_checker(seed: int, players: int, team_size: int) -> None:
    wave = random_wave(seed, players, team_size=team_size)
    queue = profile(team_size, **SMALL)
    result = multifactor_strategy(wave, queue)
    assert multifactor_result_problems(wave, queue, result) == []
    assert team_result_problems(wave, queue, result) == []  # the team queues' checker too
    assert result.strategy == "multifactor"


def test_registered_under_its_name() -> None:
    wave = random_wave(8, 24)
    assert get_strategy("multifactor")(wave, profile(**SMALL)) == multifactor_strategy(
        wave, profile(**SMALL)
    )


def test_one_versus_one_is_supported() -> None:
    wave = snapshot([solo(i, 1000 + 100 * i) for i in range(5)])
    result = multifactor_strategy(wave, profile(1, **SMALL))
    assert multifactor_result_problems(wave, profile(1, **SMALL), result) == []
    assert [[len(t.seats) for t in m.teams] for m in result.matches] == [[1, 1], [1, 1]]
    assert len(result.unmatched) == 1


def test_deterministic_for_a_fixed_seed_including_under_the_budget() -> None:
    wave = random_wave(9, 90)
    for budget in (1, 3_000, 25_000):
        queue = profile(budget_evaluations=budget)
        assert multifactor_strategy(wave, queue) == multifactor_strategy(wave, queue)


def test_stats_report_the_search() -> None:
    wave = random_wave(10, 60)
    stats = dict(multifactor_strategy(wave, profile(budget_evaluations=20_000)).stats)
    for name in ("score", "start_score", "iterations", "restarts", "evaluations"):
        assert name in stats
    assert stats["budget_evaluations"] == 20_000
    assert 20_000 <= stats["evaluations"] < 40_000
    assert stats["score"] >= stats["start_score"]
    assert stats["restarts"] >= 1


def test_every_match_created_carries_the_factor_scores() -> None:
    wave = random_wave(11, 36)
    result = multifactor_strategy(wave, profile(**SMALL))
    assert result.matches
    key = ("q3", "eu", "w1", "multifactor", "fp", 1_700_000_000_000, None)
    write = MatchWriter(Binary()).for_wave(key)
    for match in result.matches:
        event = codec.decode(write(match))  # the worker's bytes, read by the validating codec
        assert isinstance(event, wire.MatchCreated)
        names = {"score", *(f"factor.{name}" for name in FACTORS)}
        assert names <= set(event.quality)
        assert all(0.0 <= event.quality[name] <= 1.0 for name in names)
        assert [team.name for team in event.teams] == ["team1", "team2"]


def test_the_search_avoids_replaying_the_last_match() -> None:
    old1, old2 = ("p0", "p1", "p2"), ("p3", "p4", "p5")
    history = tuple(
        LastMatch(pid, tuple(x for x in mine if x != pid), theirs)
        for mine, theirs in ((old1, old2), (old2, old1))
        for pid in mine
    )
    wave = snapshot([solo(i) for i in range(6)], history)
    queue = profile(**SMALL)
    (match,) = multifactor_strategy(wave, queue).matches
    sides = {tuple(sorted(seat.player_id for seat in team.seats)) for team in match.teams}
    assert sides != {old1, old2}
    assert 0.0 < match.quality_of("factor.variation") < 1.0  # old opponents now teammates
    (fresh,) = multifactor_strategy(replace(wave, last_matches=()), queue).matches
    assert fresh.quality_of("factor.variation") == 1.0


def test_parties_stay_together() -> None:
    trio = ticket("trio", player("a", 1500), player("b", 1500), player("c", 1500))
    duo = ticket("duo", player("d", 1500), player("e", 1500))
    wave = snapshot([trio, duo, solo(1), solo(2), solo(3), solo(4), solo(5)])
    result = multifactor_strategy(wave, profile(**SMALL))
    assert multifactor_result_problems(wave, profile(**SMALL), result) == []
    (match,) = result.matches
    for team in match.teams:
        tickets = {seat.ticket_id for seat in team.seats}
        assert "trio" not in tickets or tickets == {"trio"}
    assert match.quality_of("factor.premades") == 0.6  # 3 vs 2+1: a small difference


def test_the_longest_waiting_tickets_play_first() -> None:
    waiting = [solo(i) for i in range(7)]
    waiting[6] = replace(waiting[6], wait_cycles=5)
    result = multifactor_strategy(snapshot(waiting), profile(**SMALL))
    assert "t6" not in result.unmatched and len(result.unmatched) == 1


def _tampered(result: WaveResult, match: Match) -> WaveResult:
    return replace(result, matches=(match, *result.matches[1:]))


def test_the_checker_catches_a_broken_result() -> None:
    wave = random_wave(13, 24)
    queue = profile(**SMALL)
    good = multifactor_strategy(wave, queue)
    first = good.matches[0]
    wrong_score = replace(
        first, quality=tuple((n, v + 0.1 if n == "factor.ping" else v) for n, v in first.quality)
    )
    renamed = replace(first, teams=(replace(first.teams[0], name="red"), first.teams[1]))
    short = replace(first, teams=(Team("team1", first.teams[0].seats[:2]), first.teams[1]))
    for bad in (wrong_score, renamed, short):
        assert multifactor_result_problems(wave, queue, _tampered(good, bad)) != []
    lying = replace(good, stats=(("score", 0.99), *good.stats[1:]))
    assert multifactor_result_problems(wave, queue, lying) != []


def test_the_report_lists_every_match_worst_first_with_its_factors() -> None:
    wave = random_wave(14, 36)
    result = multifactor_strategy(wave, profile(**SMALL))
    lines = format_report(result.matches).splitlines()
    assert lines[0].split() == ["match", "score", *FACTORS]
    assert len(lines) == len(result.matches) + 2 and lines[-1].startswith("mean")
    shown = [float(line.split()[1]) for line in lines[1:-1]]
    assert shown == sorted(shown)
    worst = min(result.matches, key=lambda m: (m.quality_of("score") or 0.0, m.match_id))
    cells = lines[1].split()
    assert cells[0] == worst.match_id[:8]
    assert cells[2:] == [f"{worst.quality_of(f'factor.{name}'):.3f}" for name in FACTORS]


def test_a_wave_with_nothing_playable_returns_no_match_instead_of_crashing() -> None:
    """Regression: an empty selection (1v1 with only duos, or an empty wave) used to hit a
    numpy reshape error."""
    duos = [ticket(f"d{i}", player(f"a{i}"), player(f"b{i}")) for i in range(3)]
    for wave, size in ((snapshot(duos), 1), (snapshot([]), 3), (snapshot([solo(1)]), 1)):
        result = multifactor_strategy(wave, profile(size, **SMALL))
        assert result.matches == ()
        assert set(result.unmatched) == {w.ticket.ticket_id for w in wave.tickets}
        assert multifactor_result_problems(wave, profile(size, **SMALL), result) == []
