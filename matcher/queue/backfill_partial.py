"""Partial backfill fills (a queue's ``partial_backfill``, docs/adr/0192): when no legal
fill of every open slot exists, the legal fill of the most open slots, and the request
stays open for the rest.

Two passes, both judging the whole session (its players, the tickets earlier partial
fills seated, the new parties) by the queue's rules:

1. **Search.** Over the pool of :mod:`~matcher.queue.backfill_choice` (the oldest eligible
   parties), every set of parties whose sizes sum to a target, targets from the open
   slots less one downwards, each set placed on the teams with room in every way; the
   first target with a legal placement wins, within it the smallest
   :func:`~matcher.teams.rebalance.composition_key` (seat-count gap, then team mean gap),
   the older set on a tie. Bounded like a whole fill: ``MAX_FILLS`` sets and
   ``MAX_DEALS`` placements in all.
2. **Top-up.** Every other queued ticket, in join order, joins the first team with room
   for its whole party when the session stays legal with it, until a pass adds none: so
   no legal candidate is left out while a slot it fits stays open (the promise
   :func:`~matcher.queue.backfill_checks.backfill_problems` checks), pool or not.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from matcher.core import Player, Ticket
from matcher.queue.backfill_choice import (
    MAX_DEALS,
    MAX_FILLS,
    BackfillChoice,
    PassedOver,
    _exact_fills,
    _pool,
    seated_under,
    session_players,
)
from matcher.queue.lifecycle import BackfillRequested, BackfillTeam
from matcher.rules.check import NO_MEETINGS, lineup_problem, waits_of
from matcher.ruleset import QueueRuleSet
from matcher.teams.rebalance import Key, composition_key

#: New tickets per team (request order).
Placed = tuple[tuple[Ticket, ...], ...]


@dataclass(frozen=True, slots=True)
class _Session:
    """A running session whose open slots are being filled, and the rules it keeps."""

    request: BackfillRequested
    members: tuple[Player, ...]
    closed_at_ms: int
    rules: QueueRuleSet
    met: Mapping[str, frozenset[str]]

    def ratings(self, placed: Placed) -> list[list[int]]:
        return [
            [*(r for _, r in team.players), *_seat_ratings(tickets, self.rules)]
            for team, tickets in zip(self.request.teams, placed, strict=True)
        ]

    def problem(self, placed: Placed) -> str | None:
        """Why the session with ``placed`` breaks a rule, or None (as the checker judges)."""
        if self.rules.empty:
            return None
        new = [ticket for tickets in placed for ticket in tickets]
        waited = waits_of(self.closed_at_ms, [t.joined_at_ms for t in new])
        players = [*self.members, *(p for t in new for p in t.players)]
        latencies = [p.latency_to(self.request.region) for t in new for p in t.players]
        return lineup_problem(
            self.rules, self.ratings(placed), waited, latencies, players, self.met
        )


def _seat_ratings(tickets: Sequence[Ticket], rules: QueueRuleSet) -> list[int]:
    return [seated_under(p, rules) or 0 for t in tickets for p in t.players]


def choose_partial(
    request: BackfillRequested,
    tickets: Sequence[Ticket],
    closed_at_ms: int,
    expired_before: int,
    rules: QueueRuleSet,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    wave_id: str = "",
    seated: Sequence[Ticket] = (),
) -> BackfillChoice | None:
    """The legal fill of the most open slots of ``request`` from ``tickets`` (join order),
    short of all of them; None if no ticket can join. Call it when
    :func:`~matcher.queue.backfill_choice.choose_fill` found no whole fill.

    >>> from matcher.ruleset import parse_rules
    >>> solo = lambda t, r, at: Ticket(t, "3v3", "eu", (Player("p" + t, (("mmr", r),)),), at)
    >>> request = BackfillRequested("s", "3v3", "eu", (
    ...     BackfillTeam("red", (("r1", 1500),), 2), BackfillTeam("blue", (("b1", 1500),), 2)), 0)
    >>> queued = [solo("far", 2500, 1), solo("a", 1510, 2), solo("b", 1490, 3)]
    >>> choice = choose_partial(request, queued, 10_000, 0, parse_rules({"max_spread": 100}))
    >>> choice.teams
    (('red', ('a',)), ('blue', ('b',)))

    Notes: O(n) for the pool from n queued tickets, at most ``MAX_FILLS`` sets and
    ``MAX_DEALS`` placements, then O(n x t) rule checks per top-up pass for t teams
    (at most one pass per open slot, plus one).
    """
    rooms = tuple(team.open_slots for team in request.teams)
    members = session_players(request, seated)
    pool, passed = _pool(request, tickets, closed_at_ms, expired_before, rules, met, members)
    session = _Session(request, members, closed_at_ms, rules, met)
    by_id = {ticket.ticket_id: ticket for ticket in tickets}
    pool_tickets = [by_id[party.ticket_id] for party in pool]
    best, tried, cut = _search(session, pool_tickets, rooms)
    placed = best if best is not None else tuple(() for _ in rooms)
    placed, left = _top_up(session, placed, tickets, expired_before)
    if not any(placed):
        return None
    order = {ticket.ticket_id: n for n, ticket in enumerate(tickets)}
    youngest = max(order[t.ticket_id] for team in placed for t in team)
    reasons = {ticket.ticket_id: reason for _, ticket, reason in passed}
    reasons.update(left)
    chosen = {t.ticket_id for team in placed for t in team}
    return BackfillChoice(
        request.session_id,
        request.queue,
        request.region,
        request.at_ms,
        wave_id,
        tuple(
            (team.name, tuple(t.ticket_id for t in new))
            for team, new in zip(request.teams, placed, strict=True)
        ),
        composition_key([[r for _, r in team.players] for team in request.teams])[1],
        composition_key(session.ratings(placed))[1],
        tuple(
            PassedOver(t.ticket_id, t.joined_at_ms, reasons.get(t.ticket_id, _NOT_JUDGED))
            for t in tickets[:youngest]
            if t.ticket_id not in chosen
        ),
        len(pool),
        tried,
        not cut,
    )


_NOT_JUDGED = "a fill of more open slots without it came first"


def _search(
    session: _Session, pool: Sequence[Ticket], rooms: tuple[int, ...]
) -> tuple[Placed | None, int, bool]:
    """The best legal placement of the most pool tickets short of every open slot, the
    sets tried, and whether a cap cut the search."""
    best: tuple[Key, Placed] | None = None
    tried, deals = 0, 0
    sizes = [len(ticket.players) for ticket in pool]
    for target in range(sum(rooms) - 1, 0, -1):
        for fill in _exact_fills(sizes, target):
            if tried == MAX_FILLS or deals >= MAX_DEALS:
                return (None if best is None else best[1]), tried, True
            tried += 1
            for teams in _placements([sizes[i] for i in fill], rooms):
                if deals >= MAX_DEALS:
                    return (None if best is None else best[1]), tried, True
                deals += 1
                placed = tuple(
                    tuple(pool[fill[k]] for k, t in enumerate(teams) if t == team)
                    for team in range(len(rooms))
                )
                if session.problem(placed) is None:
                    key = composition_key(session.ratings(placed))
                    if best is None or key < best[0]:
                        best = (key, placed)
        if best is not None:
            break
    return (None if best is None else best[1]), tried, False


def _placements(sizes: Sequence[int], rooms: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every team index per party such that no team gets more than its room, lazily
    (the caller stops at its cap: a large team count has many).

    >>> list(_placements([2, 1], (2, 1)))
    [(0, 1)]
    >>> list(_placements([1, 1], (1, 1)))
    [(0, 1), (1, 0)]
    """

    def extend(k: int, left: list[int], chosen: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if k == len(sizes):
            yield chosen
            return
        for team, room in enumerate(left):
            if sizes[k] <= room:
                left[team] -= sizes[k]
                yield from extend(k + 1, left, (*chosen, team))
                left[team] += sizes[k]

    return extend(0, list(rooms), ())


def _top_up(
    session: _Session, placed: Placed, tickets: Sequence[Ticket], expired_before: int
) -> tuple[Placed, dict[str, str]]:
    """``placed`` with every queued ticket that still fits legally (join order, first team
    with room), and why each other one was left out."""
    rooms = [
        team.open_slots - sum(len(t.players) for t in new)
        for team, new in zip(session.request.teams, placed, strict=True)
    ]
    chosen = {t.ticket_id for team in placed for t in team}
    left: dict[str, str] = {}
    added = True
    while added and any(rooms):
        added = False
        for ticket in tickets:
            size = len(ticket.players)
            if ticket.ticket_id in chosen or size > max(rooms):
                continue
            if ticket.joined_at_ms <= expired_before:
                left[ticket.ticket_id] = "expires at this tick (ticket_ttl_ms)"
                continue
            if any(seated_under(p, session.rules) is None for p in ticket.players):
                left[ticket.ticket_id] = f"a player has no {session.rules.rating!r} rating"
                continue
            for team, room in enumerate(rooms):
                if size > room:
                    continue
                trial = tuple((*new, ticket) if n == team else new for n, new in enumerate(placed))
                problem = session.problem(trial)
                if problem is None:
                    placed, added = trial, True
                    rooms[team] -= size
                    chosen.add(ticket.ticket_id)
                    left.pop(ticket.ticket_id, None)
                    break
                left[ticket.ticket_id] = f"every team with room for it breaks a rule: {problem}"
            if not any(rooms):
                break
    return placed, left


def remaining(
    request: BackfillRequested, new: Sequence[tuple[str, tuple[tuple[str, int], ...]]]
) -> BackfillRequested:
    """``request`` after a partial fill: each team's new players (id, seat rating) join its
    players and leave its open slots; same session, time and deadline.

    >>> request = BackfillRequested("s", "q", "eu", (BackfillTeam("red", (("a", 1),), 2),), 0)
    >>> remaining(request, [("red", (("b", 2),))]).teams
    (BackfillTeam(name='red', players=(('a', 1), ('b', 2)), open_slots=1),)
    """
    seats = dict(new)
    teams = tuple(
        BackfillTeam(
            team.name,
            (*team.players, *seats.get(team.name, ())),
            team.open_slots - len(seats.get(team.name, ())),
        )
        for team in request.teams
    )
    return BackfillRequested(
        request.session_id,
        request.queue,
        request.region,
        teams,
        request.at_ms,
        request.deadline_at_ms,
    )
