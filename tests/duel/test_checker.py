"""The duel checker catches each kind of broken result (it is not a check that cannot fail)."""

from __future__ import annotations

import dataclasses

from matcher.core import QueueProfile, Seat, Team, WaveResult, WaveSnapshot
from matcher.duel.checks import duel_result_problems, is_valid_wave_result
from matcher.duel.model import DuelPair, DuelPlayer
from matcher.duel.result import build_result
from matcher.strategies import get_strategy
from tests.duel.waves import profile_of, snapshot_of

PLAYERS = [
    DuelPlayer("a", 1500, None, ticket_id="a"),
    DuelPlayer("b", None, 1520, ticket_id="b"),
    DuelPlayer("c", 1800, 1700, ticket_id="c"),
    DuelPlayer("d", None, 1790, ticket_id="d"),
    DuelPlayer("far", 2900, None, ticket_id="far"),
]
SNAPSHOT = snapshot_of(PLAYERS, active_population=100)
PROFILE = profile_of("optimal")


def _valid() -> WaveResult:
    result = get_strategy("optimal")(SNAPSHOT, PROFILE)
    assert is_valid_wave_result(SNAPSHOT, result, PROFILE)
    assert len(result.matches) == 2
    return result


def _with_match(result: WaveResult, index: int, **changes: object) -> WaveResult:
    matches = list(result.matches)
    matches[index] = dataclasses.replace(matches[index], **changes)  # type: ignore[arg-type]
    return dataclasses.replace(result, matches=tuple(matches))


def test_wrong_rating_on_a_seat() -> None:
    result = _valid()
    bw, sc2 = result.matches[0].teams
    forged = Team(bw.name, (dataclasses.replace(bw.seats[0], rating=1),))
    problems = duel_result_problems(SNAPSHOT, PROFILE, _with_match(result, 0, teams=(forged, sc2)))
    assert any("does not play BW" in p for p in problems)


def test_player_without_the_race() -> None:
    result = _valid()
    match = result.matches[0]
    sc2_seat = match.teams[1].seats[0]
    swapped = (Team("bw", (dataclasses.replace(sc2_seat, role="bw"),)), match.teams[1])
    problems = duel_result_problems(SNAPSHOT, PROFILE, _with_match(result, 0, teams=swapped))
    assert problems


def test_pair_outside_its_window() -> None:
    far = Seat("far", "far", "bw", 2900)
    b = Seat("b", "b", "sc2", 1520)
    result = _valid()
    match = next(m for m in result.matches if "b" in m.ticket_ids())
    index = result.matches.index(match)
    forged = _with_match(result, index, teams=(Team("bw", (far,)), Team("sc2", (b,))))
    problems = duel_result_problems(SNAPSHOT, PROFILE, forged)
    assert any("outside the window" in p for p in problems)


def test_unmatched_must_be_everyone_else() -> None:
    result = _valid()
    forged = dataclasses.replace(result, unmatched=())
    assert not is_valid_wave_result(SNAPSHOT, forged, PROFILE)


def test_duplicate_match_is_caught() -> None:
    result = _valid()
    forged = dataclasses.replace(result, matches=result.matches + result.matches[:1])
    assert any("in 2 matches" in p for p in duel_result_problems(SNAPSHOT, PROFILE, forged))


def test_bad_team_shape() -> None:
    result = _valid()
    match = result.matches[0]
    forged = _with_match(result, 0, teams=(match.teams[1], match.teams[0]))
    assert any("teams must be" in p for p in duel_result_problems(SNAPSHOT, PROFILE, forged))


def test_wrong_quality_diff() -> None:
    result = _valid()
    forged = _with_match(result, 0, quality=(("mmr_diff", 9999.0),))
    assert any("quality" in p for p in duel_result_problems(SNAPSHOT, PROFILE, forged))


def _dropping_a_pair(strategy: str, profile: QueueProfile) -> tuple[WaveResult, WaveSnapshot]:
    """A result of ``strategy`` that is legal but leaves the pair c - d unmatched."""
    snapshot = snapshot_of(PLAYERS, active_population=100)
    by_id = {p.player_id: p for p in PLAYERS}
    pairs = [DuelPair(by_id["a"], by_id["b"])]  # c (BW 1800) and d (SC2 1790) left out
    return build_result(strategy, snapshot, profile, pairs), snapshot


def test_optimal_result_that_is_not_maximal_is_caught() -> None:
    result, snapshot = _dropping_a_pair("optimal", PROFILE)
    assert duel_result_problems(snapshot, PROFILE, result) == [
        "not maximal: 1 legal pairs left among the unmatched, e.g. c against d"
    ]


def test_ladder_promises_no_maximum_and_is_not_held_to_one() -> None:
    profile = profile_of("ladder-v2.1")
    result, snapshot = _dropping_a_pair("ladder-v2.1", profile)
    assert duel_result_problems(snapshot, profile, result) == []


def test_maximality_follows_the_queue_rules() -> None:
    # c and d are 10 apart; a max_distance of 5 makes them illegal, so leaving them is fine.
    ruled = dataclasses.replace(
        PROFILE, rules={"max_distance": {"base": 5, "growth_per_s": 0, "cap": 5}}
    )
    snapshot = snapshot_of(PLAYERS, active_population=100)
    result = build_result("optimal", snapshot, ruled, [])
    assert duel_result_problems(snapshot, ruled, result) == []
    assert duel_result_problems(snapshot, PROFILE, build_result("optimal", snapshot, PROFILE, []))
