"""Team steps in a wave (issue 35): a smaller match only from the step's wait on, its
matches continue the wave's channels, and ``explain`` says which shape a match was made at."""

from __future__ import annotations

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.explain import explain_match
from matcher.strategies import result_problems, run_wave
from matcher.teams.step_config import parse_team_steps

CLOSED = 1_000_000


def solo(i: int, waited_s: int, rating: int = 1500) -> WaitingTicket:
    player = Player(f"p{i}", (("mmr", rating),))
    return WaitingTicket(Ticket(f"t{i}", "ffa", "eu", (player,), CLOSED - waited_s * 1000), 0)


PROFILE = QueueProfile(
    "ffa",
    "rebalance",
    ("m",),
    team_count=4,
    team_size=1,
    rules={"rating": "mmr", "max_spread": 100},
    team_steps=parse_team_steps(
        [{"after_s": 30, "team_count": 3}, {"after_s": 60, "team_count": 2}], 4, 1
    ),
)


def test_each_step_takes_the_tickets_that_waited_for_it() -> None:
    # Four who fill the queue's shape and one newer, three who waited 40 s and two who
    # waited 90 s: each group too far in rating from the others to play with them.
    tickets = [solo(i, 5) for i in range(4)]
    tickets += [solo(i, 40, 1200) for i in range(4, 7)]
    tickets += [solo(i, 90, 2500) for i in range(7, 9)]
    tickets += [solo(9, 1)]
    snapshot = WaveSnapshot("ffa", "eu", "w", 1, 11, CLOSED, tuple(tickets), matches_placed=5)
    result = run_wave(snapshot, PROFILE)
    assert result_problems(snapshot, PROFILE, result) == []
    made = sorted((len(m.teams), tuple(sorted(m.ticket_ids()))) for m in result.matches)
    assert made == [
        (2, ("t7", "t8")),
        (3, ("t4", "t5", "t6")),
        (4, ("t0", "t1", "t2", "t3")),
    ]
    assert result.unmatched == ("t9",)
    assert [m.channel for m in result.matches] == ["scevo06", "scevo07", "scevo08"]
    assert result.stat("matches_after_steps") == 2.0
    facts = {
        m.match_id: dict(explain_match(snapshot, PROFILE, result, m.match_id).facts)["shape"]
        for m in result.matches
    }
    assert sorted(facts.values()) == [
        "2 teams of 1: team step 2 (from 60 s; its least waited ticket waited 90 s)",
        "3 teams of 1: team step 1 (from 30 s; its least waited ticket waited 40 s)",
        "4 teams of 1: the queue's shape (its least waited ticket waited 5 s)",
    ]


def test_a_queue_without_steps_decides_as_before() -> None:
    plain = QueueProfile("ffa", "rebalance", ("m",), team_count=4, team_size=1)
    tickets = tuple(solo(i, 90) for i in range(7))
    snapshot = WaveSnapshot("ffa", "eu", "w", 1, 11, CLOSED, tickets)
    result = run_wave(snapshot, plain)
    assert len(result.matches) == 1 and result.stat("matches_after_steps") is None
    assert "shape" not in dict(
        explain_match(snapshot, plain, result, result.matches[0].match_id).facts
    )
