"""game-queue's ``role_parties``: parties in the role intervals of queue mode (ADR 0188)."""

from __future__ import annotations

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.strategies import check_profile, result_problems, run_wave

ROLES = ("tank", "dps")


def _profile(roles: tuple[str, ...] = ROLES, **options: object) -> QueueProfile:
    return QueueProfile(
        "q", "game-queue", ("m",), team_size=len(roles), roles=roles, options=options
    )


def _ticket(ticket_id: str, *seats: tuple[str, int]) -> WaitingTicket:
    players = tuple(
        Player(f"{ticket_id}.{n}", ((role, rating),), roles=(role,))
        for n, (role, rating) in enumerate(seats)
    )
    return WaitingTicket(Ticket(ticket_id, "q", "eu", players, 0), 0)


def _wave() -> WaveSnapshot:
    # Two duos (tank + dps) near 2000 and four solos near 1000: the duos make one game.
    tickets = (
        _ticket("solo-t1", ("tank", 1000)),
        _ticket("solo-d1", ("dps", 1010)),
        _ticket("duo-a", ("tank", 2000), ("dps", 2010)),
        _ticket("solo-t2", ("tank", 1020)),
        _ticket("duo-b", ("tank", 2005), ("dps", 1995)),
        _ticket("solo-d2", ("dps", 1030)),
        _ticket("solo-t3", ("tank", 1990)),
    )
    return WaveSnapshot("q", "eu", "w", 1, 5, 60_000, tickets)


@pytest.mark.parametrize(
    ("profile", "message"),
    [
        (_profile(mode="queue", role_parties="both"), "options.role_parties: 'both' is not one"),
        (_profile(role_parties="interval"), 'options.role_parties: needs mode = "queue"'),
        (
            QueueProfile(
                "q",
                "game-queue",
                ("m",),
                team_size=2,
                options={"mode": "queue", "role_parties": "interval"},
            ),
            "needs the queue's roles",
        ),
    ],
)
def test_bad_values_stop_the_start(profile: QueueProfile, message: str) -> None:
    with pytest.raises(ValueError, match=r"^options\.role_parties") as error:
        check_profile(profile)
    assert message in str(error.value)


def test_parties_play_in_the_shortest_interval_and_the_checker_holds_the_order() -> None:
    snapshot = _wave()
    on = _profile(mode="queue", role_parties="interval")
    result = run_wave(snapshot, on)
    assert result_problems(snapshot, on, result) == []
    games = [sorted(set(match.ticket_ids())) for match in result.matches]
    assert games == [["duo-a", "duo-b"], ["solo-d1", "solo-d2", "solo-t1", "solo-t2"]]
    assert run_wave(snapshot, on) == result  # replayed identically


def test_the_default_leaves_parties_to_the_offline_grouping_and_fails_the_interval_check() -> None:
    snapshot = _wave()
    default = _profile(mode="queue")
    result = run_wave(snapshot, default)
    assert result_problems(snapshot, default, result) == []
    games = [sorted(set(match.ticket_ids())) for match in result.matches]
    # Solos first, by the solo interval: the 1990 tank goes with the low solos and the
    # duos wait for the offline grouping.
    assert ["duo-a", "duo-b"] in games and games.index(["duo-a", "duo-b"]) == 1
    on = _profile(mode="queue", role_parties="interval")
    problems = result_problems(snapshot, on, result)
    assert problems and "role intervals go shortest first" in problems[0]
