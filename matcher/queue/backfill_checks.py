"""The checker beside the backfill fill (docs/adr/0114): every filled slot is legal.

Judged from the request, the queue and the published seats alone, not from how the
fill was chosen: team capacity (each team gets exactly its open slots), parties whole
(every player of a chosen ticket, all on one team), each ticket queued, unexpired and
used once at the tick, seat ratings, and the queue's rules on the whole session.
"""

from __future__ import annotations

from collections.abc import Mapping, Set

from matcher.core import Player, Team, Ticket
from matcher.queue.backfill_choice import seated_under
from matcher.queue.lifecycle import BackfillRequested
from matcher.rules.check import NO_MEETINGS, lineup_problem, waits_of
from matcher.ruleset import QueueRuleSet


def backfill_problems(
    request: BackfillRequested,
    filled: tuple[Team, ...],
    queued: Mapping[str, Ticket],
    closed_at_ms: int,
    expired_before: int,
    rules: QueueRuleSet,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    taken: Set[str] = frozenset(),
) -> list[str]:
    """Why the seats ``filled`` (new seats per team) are not a legal fill of ``request``.

    ``queued`` are the region's queued tickets by id; ``taken`` the tickets an earlier
    request filled at the same tick. Empty when legal.

    >>> from matcher.core import Seat
    >>> from matcher.queue.lifecycle import BackfillTeam
    >>> from matcher.ruleset import NO_RULES
    >>> request = BackfillRequested("s", "q", "eu", (BackfillTeam("red", (("r", 1500),), 1),), 0)
    >>> duo = Ticket("t", "q", "eu", (Player("a", (("mmr", 1),)), Player("b", (("mmr", 2),))), 5)
    >>> backfill_problems(request, (Team("red", (Seat("t", "a", "", 1),)),), {"t": duo}, 9, 0,
    ...     NO_RULES)
    ['party t is not whole on team red: 1 of its 2 players']

    Notes: O(seats + players of the chosen tickets).
    """
    teams = {team.name: team for team in request.teams}
    problems: list[str] = []
    team_of: dict[str, str] = {}
    for team in filled:
        if team.name not in teams:
            return [f"team {team.name} is not a team of session {request.session_id}"]
        tickets = sorted({seat.ticket_id for seat in team.seats})
        if len(team.seats) != teams[team.name].open_slots:
            problems.append(
                f"team {team.name}: {len(team.seats)} new seats for "
                f"{teams[team.name].open_slots} open slots"
            )
        for ticket_id in tickets:
            if team_of.setdefault(ticket_id, team.name) != team.name:
                problems.append(f"ticket {ticket_id} sits on two teams")
            problems += _ticket_problems(ticket_id, team, queued, expired_before, rules, taken)
    if len({team.name for team in filled}) != len(filled):
        problems.append("a team is filled twice")
    missing = sum(t.open_slots for t in request.teams) - sum(len(t.seats) for t in filled)
    if missing and not problems:
        problems.append(f"{missing} open slots left unfilled")
    return problems or _rule_problems(request, filled, queued, closed_at_ms, rules, met)


def _ticket_problems(
    ticket_id: str,
    team: Team,
    queued: Mapping[str, Ticket],
    expired_before: int,
    rules: QueueRuleSet,
    taken: Set[str],
) -> list[str]:
    ticket = queued.get(ticket_id)
    if ticket is None or ticket_id in taken:
        return [f"ticket {ticket_id} is not queued (or already filled a session)"]
    if ticket.joined_at_ms <= expired_before:
        return [f"ticket {ticket_id} expires at this tick"]
    seats = {s.player_id: s.rating for s in team.seats if s.ticket_id == ticket_id}
    wanted = {p.player_id: seated_under(p, rules) for p in ticket.players}
    if seats.keys() != wanted.keys():
        return [
            f"party {ticket_id} is not whole on team {team.name}: "
            f"{len(seats)} of its {len(wanted)} players"
        ]
    if seats != wanted:
        return [f"ticket {ticket_id}: seat ratings {seats} are not its players' {wanted}"]
    return []


def _rule_problems(
    request: BackfillRequested,
    filled: tuple[Team, ...],
    queued: Mapping[str, Ticket],
    closed_at_ms: int,
    rules: QueueRuleSet,
    met: Mapping[str, frozenset[str]],
) -> list[str]:
    if rules.empty:
        return []
    new = {team.name: team.seats for team in filled}
    ratings = [
        [r for _, r in team.players] + [s.rating for s in new.get(team.name, ())]
        for team in request.teams
    ]
    tickets = [queued[t] for t in sorted({s.ticket_id for t in filled for s in t.seats})]
    players = [Player(pid, ()) for team in request.teams for pid, _ in team.players]
    players += [p for ticket in tickets for p in ticket.players]
    latencies = [p.latency_to(request.region) for ticket in tickets for p in ticket.players]
    waited = waits_of(closed_at_ms, [ticket.joined_at_ms for ticket in tickets])
    problem = lineup_problem(rules, ratings, waited, latencies, players, met)
    return [] if problem is None else [f"session {request.session_id}: {problem}"]
