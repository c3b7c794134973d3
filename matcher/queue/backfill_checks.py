"""The checker beside the backfill fill (docs/adr/0114): every filled slot is legal.

Judged from the request, the queue and the published seats alone, not from how the
fill was chosen: team capacity (each team gets exactly its open slots), parties whole
(every player of a chosen ticket, all on one team), each ticket queued, unexpired and
used once at the tick, seat ratings, and the queue's rules on the whole session.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

from matcher.core import Seat, Team, Ticket
from matcher.queue.backfill_choice import seated_under, session_players
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
    seated: Sequence[Ticket] = (),
    waiting: Sequence[Ticket] | None = None,
) -> list[str]:
    """Why the seats ``filled`` (new seats per team) are not a legal fill of ``request``.

    ``queued`` are the region's queued tickets by id; ``taken`` the tickets an earlier
    request filled at the same tick; ``seated`` those earlier partial fills seated in the
    session. Empty when legal. ``waiting`` (the queue's ``partial_backfill``: the tickets
    the request could draw from) allows open slots to stay open, but only while no
    waiting ticket fits one whole and legally (:func:`left_out_problems`).

    >>> from matcher.core import Player
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
        if len(team.seats) > teams[team.name].open_slots or (
            waiting is None and len(team.seats) != teams[team.name].open_slots
        ):
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
    if missing and not problems and (waiting is None or not filled):
        problems.append(f"{missing} open slots left unfilled")
    fill = (request, filled, queued, closed_at_ms, rules, met, seated)
    problems = problems or _rule_problems(*fill)
    if missing and waiting is not None and not problems:
        problems = left_out_problems(fill, waiting, expired_before)
    return problems


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


_Fill = tuple[
    BackfillRequested,
    tuple[Team, ...],
    Mapping[str, Ticket],
    int,
    QueueRuleSet,
    Mapping[str, frozenset[str]],
    Sequence[Ticket],
]


def left_out_problems(fill: _Fill, waiting: Sequence[Ticket], expired_before: int) -> list[str]:
    """The partial fill's promise: each waiting ticket (unexpired, rated, not chosen)
    that some team's still-open slots could seat whole, with the session still legal,
    is a ticket left out.

    Notes: O(waiting x teams) rule checks, only when slots stay open.
    """
    request, filled, queued, closed_at_ms, rules, met, seated = fill
    new = {team.name: team.seats for team in filled}
    chosen = {seat.ticket_id for team in filled for seat in team.seats}
    rooms = {t.name: t.open_slots - len(new.get(t.name, ())) for t in request.teams}
    for ticket in waiting:
        size = len(ticket.players)
        if ticket.ticket_id in chosen or ticket.joined_at_ms <= expired_before:
            continue
        ratings = [seated_under(p, rules) for p in ticket.players]
        if size > max(rooms.values()) or None in ratings:
            continue
        seats = tuple(
            Seat(ticket.ticket_id, p.player_id, "", r or 0)
            for p, r in zip(ticket.players, ratings, strict=True)
        )
        for name, room in rooms.items():
            if size > room:
                continue
            trial = tuple(
                Team(t.name, (*new.get(t.name, ()), *(seats if t.name == name else ())))
                for t in request.teams
                if t.name in new or t.name == name
            )
            with_it = {**queued, ticket.ticket_id: ticket}
            if not _rule_problems(request, trial, with_it, closed_at_ms, rules, met, seated):
                return [
                    f"ticket {ticket.ticket_id} fits team {name}'s {room} open slots "
                    f"legally but was left out"
                ]
    return []


def _rule_problems(
    request: BackfillRequested,
    filled: tuple[Team, ...],
    queued: Mapping[str, Ticket],
    closed_at_ms: int,
    rules: QueueRuleSet,
    met: Mapping[str, frozenset[str]],
    seated: Sequence[Ticket] = (),
) -> list[str]:
    if rules.empty:
        return []
    new = {team.name: team.seats for team in filled}
    ratings = [
        [r for _, r in team.players] + [s.rating for s in new.get(team.name, ())]
        for team in request.teams
    ]
    tickets = [queued[t] for t in sorted({s.ticket_id for t in filled for s in t.seats})]
    players = [*session_players(request, seated), *(p for t in tickets for p in t.players)]
    latencies = [p.latency_to(request.region) for ticket in tickets for p in ticket.players]
    waited = waits_of(closed_at_ms, [ticket.joined_at_ms for ticket in tickets])
    problem = lineup_problem(rules, ratings, waited, latencies, players, met)
    return [] if problem is None else [f"session {request.session_id}: {problem}"]
