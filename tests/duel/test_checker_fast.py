"""The duel checker's quick look clears only matches its rule-by-rule examination clears."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Match, Seat, Team
from matcher.duel.checks import _every_match_problem, _looks_legal, duel_rules
from matcher.strategies import get_strategy
from tests.duel.waves import profile_of, snapshot_of, synthetic_players

PROFILE = profile_of("optimal")
SNAPSHOT = snapshot_of(synthetic_players(40, seed=3), active_population=100)
RESULT = get_strategy("optimal")(SNAPSHOT, PROFILE)
RULES = duel_rules(SNAPSHOT, PROFILE, "optimal")
BY_TICKET = {player.ticket_id: player for player in RULES.players}


def changed_seat(seat: Seat, draw: st.DrawFn) -> Seat:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return replace(seat, role=draw(st.sampled_from(["bw", "sc2", "zerg"])))
    if kind == 1:
        return replace(seat, rating=seat.rating + draw(st.integers(-300, 300)))
    if kind == 2:
        return replace(seat, ticket_id=draw(st.sampled_from([*BY_TICKET, "zz"])))
    return seat


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_match_the_quick_look_clears_has_no_problem(data: st.DataObject) -> None:
    match = data.draw(st.sampled_from(RESULT.matches))
    assert _looks_legal(match, BY_TICKET, RULES)  # legal matches take the quick look
    assert _every_match_problem(match, BY_TICKET, RULES) == []
    first, second = match.teams
    kind = data.draw(st.integers(0, 4))
    if kind == 0:
        teams: tuple[Team, ...] = (second, first)
    elif kind == 1:
        teams = (replace(first, seats=(changed_seat(first.seats[0], data.draw),)), second)
    elif kind == 2:
        teams = (first, replace(second, seats=(changed_seat(second.seats[0], data.draw),)))
    elif kind == 3:
        teams = (first, replace(second, seats=(*second.seats, first.seats[0])))
    else:
        teams = match.teams
    quality = data.draw(
        st.sampled_from([match.quality, (), (("mmr_diff", 0.0),), (*match.quality, ("x", 1.0))])
    )
    broken = Match(match.match_id, teams, match.map_name, match.server, match.channel, quality)
    if _looks_legal(broken, BY_TICKET, RULES):
        assert _every_match_problem(broken, BY_TICKET, RULES) == []
