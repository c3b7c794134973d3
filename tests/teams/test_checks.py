"""The team checker accepts a valid wave and names each broken rule."""

from __future__ import annotations

from dataclasses import replace

from matcher.core import Match, QueueProfile, Seat, Team, WaveResult, WaveSnapshot
from matcher.teams.checks import is_valid_team_result, team_result_problems
from matcher.teams.strategies import rebalance_strategy
from tests.teams.factories import player, profile, snapshot, ticket

ROLES = ("tank", "healer", "dps")


def role_wave() -> tuple[WaveSnapshot, QueueProfile, WaveResult]:
    tickets = []
    for n in range(6):
        roles = (
            [("tank", 1500 + n), ("dps", 1400 + n)] if n % 3 == 0 else [(ROLES[n % 3], 1450 + n)]
        )
        tickets.append(ticket(f"t{n}", [player(f"p{n}", 0, roles)], joined_at_ms=n, queue="3v3"))
    snap = snapshot(tickets, queue="3v3")
    prof = profile(team_size=3, roles=ROLES, queue="3v3")
    return snap, prof, rebalance_strategy(snap, prof)


def with_match(result: WaveResult, match: Match) -> WaveResult:
    return replace(result, matches=(match, *result.matches[1:]))


def with_teams(result: WaveResult, teams: tuple[Team, ...]) -> WaveResult:
    return with_match(result, replace(result.matches[0], teams=teams))


def test_a_strategy_result_is_valid() -> None:
    snap, prof, result = role_wave()
    assert len(result.matches) == 1
    assert team_result_problems(snap, prof, result) == []
    assert is_valid_team_result(snap, prof, result)


def test_wrong_team_names_are_reported() -> None:
    snap, prof, result = role_wave()
    first, second = result.matches[0].teams
    broken = with_teams(result, (first, replace(second, name="blue")))
    assert any("expected ('team1', 'team2')" in p for p in team_result_problems(snap, prof, broken))


def test_a_missing_team_is_reported() -> None:
    snap, prof, result = role_wave()
    lonely = with_teams(result, result.matches[0].teams[:1])
    problems = team_result_problems(snap, prof, lonely)
    assert any("expected ('team1', 'team2')" in p for p in problems)


def test_illegal_team_sizes_are_reported() -> None:
    snap, prof, result = role_wave()
    first, second = result.matches[0].teams
    moved = (
        replace(first, seats=first.seats + second.seats[:1]),
        replace(second, seats=second.seats[1:]),
    )
    problems = team_result_problems(snap, prof, with_teams(result, moved))
    assert any("team1 has 4 players, outside 3..3" in p for p in problems)
    assert any("team2 has 2 players, outside 3..3" in p for p in problems)


def test_a_role_not_offered_is_reported() -> None:
    snap, prof, result = role_wave()
    first, second = result.matches[0].teams
    seat = next(s for s in first.seats if s.role == "healer")
    wrong = replace(seat, role="tank")
    seats = tuple(wrong if s == seat else s for s in first.seats)
    problems = team_result_problems(
        snap, prof, with_teams(result, (replace(first, seats=seats), second))
    )
    assert any("plays 'tank' without offering it" in p for p in problems)


def test_a_role_filled_twice_is_reported() -> None:
    snap, prof, result = role_wave()
    first, second = result.matches[0].teams
    flex = next(s for s in first.seats if s.player_id in {"p0", "p3"})
    other = (
        next(s for s in first.seats if s.role == "dps" and s != flex)
        if flex.role == "tank"
        else None
    )
    target_role = "dps" if flex.role == "tank" else "tank"
    assert other is not None, "the flexible player took tank, so a dps seat exists"
    swapped = replace(flex, role=target_role, rating=1400 + int(flex.player_id[1:]))
    seats = tuple(swapped if s == flex else s for s in first.seats)
    problems = team_result_problems(
        snap, prof, with_teams(result, (replace(first, seats=seats), second))
    )
    assert any("seats of role 'dps' for 1 slots" in p for p in problems)


def test_a_wrong_seat_rating_is_reported() -> None:
    snap, prof, result = role_wave()
    first, second = result.matches[0].teams
    seats = (replace(first.seats[0], rating=first.seats[0].rating + 1), *first.seats[1:])
    problems = team_result_problems(
        snap, prof, with_teams(result, (replace(first, seats=seats), second))
    )
    assert any("is not their rating" in p for p in problems)


def test_a_player_on_two_teams_is_reported() -> None:
    snap, prof, result = role_wave()
    first, second = result.matches[0].teams
    twice = (first, replace(second, seats=(*second.seats[:2], first.seats[0])))
    problems = team_result_problems(snap, prof, with_teams(result, twice))
    assert any("is on 2 teams" in p for p in problems)


def test_a_role_in_a_queue_without_roles_is_reported() -> None:
    tickets = [ticket(f"t{n}", [player(f"p{n}", 1000 + n)], queue="2v2") for n in range(4)]
    snap, prof = snapshot(tickets, queue="2v2"), profile(team_size=2, queue="2v2")
    result = rebalance_strategy(snap, prof)
    first, second = result.matches[0].teams
    seats = (replace(first.seats[0], role="tank"), *first.seats[1:])
    problems = team_result_problems(
        snap, prof, with_teams(result, (replace(first, seats=seats), second))
    )
    assert any("in a queue without roles" in p for p in problems)


def test_quality_must_agree_with_the_seats() -> None:
    snap, prof, result = role_wave()
    match = result.matches[0]
    quality = tuple((k, v + 5 if k == "team_rating_diff" else v) for k, v in match.quality)
    problems = team_result_problems(snap, prof, with_match(result, replace(match, quality=quality)))
    assert any("team_rating_diff" in p and "the seats give" in p for p in problems)
    bare = tuple((k, v) for k, v in match.quality if k != "imbalance")
    problems = team_result_problems(snap, prof, with_match(result, replace(match, quality=bare)))
    assert any("quality lacks 'imbalance'" in p for p in problems)


def test_common_rules_run_first() -> None:
    snap, prof, result = role_wave()
    first, second = result.matches[0].teams
    stranger = Seat("nobody", "ghost", "dps", 1)
    problems = team_result_problems(
        snap,
        prof,
        with_teams(result, (first, replace(second, seats=(*second.seats[:2], stranger)))),
    )
    assert any("ticket nobody not in the wave" in p for p in problems)
    assert any("id is not the derived one" in p for p in problems)


def test_a_bad_profile_is_a_problem_not_a_crash() -> None:
    snap, prof, result = role_wave()
    problems = team_result_problems(snap, replace(prof, team_count=1), result)
    assert any(p.startswith("profile: team_count") for p in problems)
