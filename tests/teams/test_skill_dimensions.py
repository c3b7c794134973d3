"""game-queue's ``skill_dimensions``: validation, the vector imbalance, replay and the checker."""

from __future__ import annotations

import random

import pytest

import matcher.teams.strategies as team_strategies
from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.strategies import check_profile, result_problems, run_wave
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import TeamShape
from matcher.teams.offline import optimal_split
from matcher.teams.skill import composite, skill_imbalance

WEIGHTS = {"aim": 1.0, "tactics": 0.5}


def _wave(seed: int = 3, tickets: int = 40) -> WaveSnapshot:
    rng = random.Random(seed)
    waiting = []
    for i in range(tickets):
        size = rng.choice((1, 1, 1, 2, 3))
        players = tuple(
            Player(
                f"p{i}.{j}",
                (("aim", rng.randint(1000, 2000)), ("tactics", rng.randint(1000, 2000))),
            )
            for j in range(size)
        )
        waiting.append(WaitingTicket(Ticket(f"t{i}", "q", "eu", players, 0), 0))
    return WaveSnapshot("q", "eu", "w", 1, seed, 60_000, tuple(waiting))


def _profile(**options: object) -> QueueProfile:
    return QueueProfile("q", "game-queue", ("m",), team_size=3, options=options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"skill_dimensions": {}}, "options.skill_dimensions: must be a table"),
        ({"skill_dimensions": {"aim": -1}}, "options.skill_dimensions: weight of 'aim'"),
        ({"skill_dimensions": {"aim": True}}, "options.skill_dimensions: weight of 'aim'"),
        ({"skill_dimensions": WEIGHTS, "mode": "queue"}, 'needs mode = "offline"'),
        ({"skill_dimensions": WEIGHTS, "max_imbalance": 50}, "not with max_imbalance"),
    ],
)
def test_bad_values_stop_the_start_naming_the_option(
    options: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=r"^options\.skill_dimensions: ") as error:
        check_profile(_profile(**options))
    assert message in str(error.value)


def test_refused_beside_roles_and_a_rating_key() -> None:
    roles = QueueProfile(
        "q",
        "game-queue",
        ("m",),
        team_size=2,
        roles=("a", "b"),
        options={"skill_dimensions": WEIGHTS},
    )
    with pytest.raises(ValueError, match="role queue"):
        check_profile(roles)
    keyed = QueueProfile(
        "q",
        "game-queue",
        ("m",),
        team_size=2,
        options={"skill_dimensions": WEIGHTS},
        rules={"rating": "aim"},
    )
    with pytest.raises(ValueError, match=r"rules\.rating"):
        check_profile(keyed)


def test_the_vector_imbalance_is_the_weighted_sum_of_f_per_dimension() -> None:
    params = Imbalance(alpha=1.0, p=1.0, q=2.0)
    dims = (("aim", 1.0), ("tactics", 0.5))
    teams = [[(1500, 1000), (1300, 1200)], [(1400, 1100), (1400, 1100)]]
    # aim: gap 0, sd 70.71; tactics: gap 0, sd 70.71 -> 70.71 + 0.5 * 70.71
    assert skill_imbalance(teams, dims, params) == pytest.approx(1.5 * 50 * 2**0.5)
    assert composite((1500, 1000), dims) == 1333


def test_seats_carry_the_composite_and_the_checker_passes_replayed_identically() -> None:
    snapshot, profile = _wave(), _profile(skill_dimensions=WEIGHTS)
    result = run_wave(snapshot, profile)
    assert result.matches and result_problems(snapshot, profile, result) == []
    assert run_wave(snapshot, profile) == result
    by_id = {(p.player_id): p for w in snapshot.tickets for p in w.ticket.players}
    seat = result.matches[0].teams[0].seats[0]
    rated = by_id[seat.player_id]
    expected = round(((rated.rating("aim") or 0) + 0.5 * (rated.rating("tactics") or 0)) / 1.5)
    assert seat.rating == expected
    off = run_wave(snapshot, _profile())
    assert [m.teams for m in off.matches] != [m.teams for m in result.matches]


def test_a_player_without_a_dimension_stays_queued() -> None:
    snapshot = _wave(tickets=12)
    lacking = Player("x", (("aim", 1500),))
    extra = WaitingTicket(Ticket("tx", "q", "eu", (lacking,), 0), 0)
    snapshot = WaveSnapshot("q", "eu", "w", 1, 3, 60_000, (*snapshot.tickets, extra))
    profile = _profile(skill_dimensions=WEIGHTS)
    result = run_wave(snapshot, profile)
    assert "tx" in result.unmatched
    assert result_problems(snapshot, profile, result) == []


def test_the_checker_fails_a_result_split_by_the_composite_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snapshot, profile = _wave(), _profile(skill_dimensions=WEIGHTS)
    # The option ignored in the split: each group split by f on the composite rating.
    monkeypatch.setattr(
        team_strategies,
        "skill_split",
        lambda group, k, dims, params, vectors: optimal_split(group, TeamShape(2, k, k), params),
    )
    ignored = run_wave(snapshot, profile)
    problems = result_problems(snapshot, profile, ignored)
    assert problems and all("a split of its parties gives" in p for p in problems)
    # And a result made with the option off lacks the published figure.
    off = run_wave(snapshot, _profile())
    assert any("lacks 'skill_imbalance'" in p for p in result_problems(snapshot, profile, off))
