"""The lean pass of the common checker clears exactly the results the full examination
finds nothing wrong with (it may refuse more; then the full examination decides)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.checks import _every_problem, passes_common_rules, wave_result_problems
from matcher.core import (
    Match,
    Player,
    QueueProfile,
    Seat,
    Team,
    Ticket,
    WaitingTicket,
    WaveResult,
    WaveSnapshot,
    derive_match_id,
)

MAPS = ("alpha", "beta", "gamma")
PROFILE = QueueProfile("q", "test", MAPS, team_size=3)


@st.composite
def waves(draw: st.DrawFn) -> tuple[WaveSnapshot, WaveResult]:
    """A snapshot of solos and parties, and a valid result that matches some of them."""
    sizes = draw(st.lists(st.integers(1, 3), min_size=2, max_size=12))
    tickets = []
    for number, size in enumerate(sizes):
        vetoes = draw(st.lists(st.sampled_from(MAPS[1:]), max_size=2).map(tuple))
        players = tuple(
            Player(f"p{number}-{i}", (("r", 1500),), vetoed_maps=vetoes) for i in range(size)
        )
        tickets.append(Ticket(f"t{number}", "q", "eu", players, 0))
    snapshot = WaveSnapshot(
        "q", "eu", "w", 1, 1, 0, tuple(WaitingTicket(ticket, 0) for ticket in tickets)
    )
    order = draw(st.permutations(range(len(tickets))))
    matches = []
    for first, second in zip(order[0::2], order[1::2], strict=False):
        if draw(st.booleans()):
            continue
        pair = (tickets[first], tickets[second])
        teams = tuple(
            Team(f"team{side}", tuple(Seat(t.ticket_id, p.player_id, "r", 1500) for p in t.players))
            for side, t in enumerate(pair)
        )
        ids = tuple(t.ticket_id for t in pair)
        matches.append(Match(derive_match_id("q", "eu", "w", ids), teams, "alpha", "s", "c"))
    used = {seat.ticket_id for m in matches for team in m.teams for seat in team.seats}
    unmatched = tuple(t.ticket_id for t in tickets if t.ticket_id not in used)
    return snapshot, WaveResult("test", tuple(matches), unmatched)


def broken(draw: st.DrawFn, snapshot: WaveSnapshot, result: WaveResult) -> WaveResult:
    """``result`` with one random change that may or may not break a rule."""
    matches = list(result.matches)
    kind = draw(st.integers(0, 9))
    if kind == 0 or not matches:
        extra = draw(st.sampled_from([w.ticket.ticket_id for w in snapshot.tickets] + ["zz"]))
        unmatched = draw(st.permutations((*result.unmatched, extra)))
        return replace(result, unmatched=tuple(unmatched)[: draw(st.integers(0, 20))])
    index = draw(st.integers(0, len(matches) - 1))
    match = matches[index]
    seats = [(team.name, seat) for team in match.teams for seat in team.seats]
    if kind == 1:
        match = replace(match, map_name=draw(st.sampled_from((*MAPS, "delta"))))
    elif kind == 2:
        match = replace(match, match_id=draw(st.sampled_from([m.match_id for m in matches])))
    elif kind == 3:
        matches.append(draw(st.sampled_from(matches)))
    elif kind == 4:
        del matches[index]
    else:
        # Move, copy, drop or rename one seat (team, ticket or player).
        position = draw(st.integers(0, len(seats) - 1))
        name, seat = seats[position]
        if kind == 5:
            seats[position] = (draw(st.sampled_from(["team0", "team1", "team2"])), seat)
        elif kind == 6:
            seats.append(seats[position])
        elif kind == 7:
            del seats[position]
        elif kind == 8:
            seats[position] = (name, replace(seat, player_id=draw(st.sampled_from(["p0-0", "x"]))))
        else:
            ticket = draw(st.sampled_from([w.ticket.ticket_id for w in snapshot.tickets] + ["zz"]))
            seats[position] = (name, replace(seat, ticket_id=ticket))
        names = list(dict.fromkeys(name for name, _ in seats))
        teams = tuple(Team(n, tuple(s for tn, s in seats if tn == n)) for n in names)
        match = replace(match, teams=teams)
    if kind not in (3, 4):
        matches[index] = match
    return replace(result, matches=tuple(matches))


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_the_lean_pass_never_clears_a_result_with_a_problem(data: st.DataObject) -> None:
    snapshot, result = data.draw(waves())
    assert passes_common_rules(snapshot, PROFILE, result)  # valid results take the lean path
    assert _every_problem(snapshot, PROFILE, result) == []
    changed = broken(data.draw, snapshot, result)
    problems = _every_problem(snapshot, PROFILE, changed)
    if passes_common_rules(snapshot, PROFILE, changed):
        assert problems == []
    assert wave_result_problems(snapshot, PROFILE, changed) == problems


def test_a_ticket_repeating_a_player_id_is_left_to_the_full_examination() -> None:
    twice = Ticket("t", "q", "eu", (Player("a", ()), Player("a", ())), 0)
    solo = Ticket("u", "q", "eu", (Player("b", ()),), 0)
    snapshot = WaveSnapshot(
        "q", "eu", "w", 1, 1, 0, (WaitingTicket(twice, 0), WaitingTicket(solo, 0))
    )
    teams = (Team("x", (Seat("t", "a", "r", 1),)), Team("y", (Seat("u", "b", "r", 1),)))
    match = Match(derive_match_id("q", "eu", "w", ("t", "u")), teams, "alpha", "s", "c")
    result = WaveResult("test", (match,), ())
    assert not passes_common_rules(snapshot, PROFILE, result)
    assert wave_result_problems(snapshot, PROFILE, result) == _every_problem(
        snapshot, PROFILE, result
    )


def test_a_duel_whose_ticket_the_wave_lacks_is_left_to_the_full_examination() -> None:
    a, c, d = (Ticket(t, "q", "eu", (Player("p" + t, ()),), 0) for t in "acd")
    # The wave repeats ticket a and lacks b; one ticket too few unmatched makes the counts
    # agree, so only noticing the repeat refuses it.
    waiting = tuple(WaitingTicket(ticket, 0) for ticket in (a, a, c, d))
    snapshot = WaveSnapshot("q", "eu", "w", 1, 1, 0, waiting)
    teams = (Team("x", (Seat("a", "pa", "r", 1),)), Team("y", (Seat("b", "pb", "r", 1),)))
    match = Match(derive_match_id("q", "eu", "w", ("a", "b")), teams, "alpha", "s", "c")
    result = WaveResult("test", (match,), ("c",))
    assert not passes_common_rules(snapshot, PROFILE, result)
    assert wave_result_problems(snapshot, PROFILE, result) == _every_problem(
        snapshot, PROFILE, result
    )
    assert wave_result_problems(snapshot, PROFILE, result)
