"""Backfill: fill the open slots of running sessions from the queue, at a wave's tick,
before the wave's own matches (docs/adr/0113, 0114).

Which parties fill which team is :func:`matcher.queue.backfill_choice.choose_fill`'s
choice (S2's permutation method beside the session's players, under the queue's rules);
:func:`matcher.queue.backfill_checks.backfill_problems` checks it before anything is
taken. Requests expire at the first tick at or after their deadline, and at the latest
``ticket_ttl_ms`` after their ``requested_at_ms``, as a ticket does after it joined: a
session that ended without cancelling its request leaves nothing behind (docs/adr/0117).
"""

from __future__ import annotations

from matcher.core import Match, QueueProfile, Seat, Team, Ticket, seat_data
from matcher.queue.backfill_checks import backfill_problems
from matcher.queue.backfill_choice import BackfillChoice, choose_fill, seated_under
from matcher.queue.backfill_partial import choose_partial, remaining
from matcher.queue.events import DequeueReason, WaveTick
from matcher.queue.lifecycle import (
    BackfillCancelled,
    BackfillRequested,
    BackfillResult,
    BackfillTeam,
    LifecycleRejected,
)
from matcher.queue.outcomes import Draft
from matcher.queue.state import QueueRules, RegionState
from matcher.rules.check import NO_MEETINGS, met_recently
from matcher.ruleset import QueueRuleSet


def request(queue: RegionState, event: BackfillRequested, profile: QueueProfile) -> Draft:
    """Record (or replace) a session's request; refuse one the queue can never fill."""
    problem = _problem(event, profile)
    if problem is not None:
        raise LifecycleRejected(*problem)
    queue.life.request_backfill(event)
    return Draft("backfill_requested")


def _problem(event: BackfillRequested, profile: QueueProfile) -> tuple[str, str, str] | None:
    if len(event.teams) > profile.team_count:
        return (
            "backfill_too_large",
            f"{len(event.teams)} teams, the queue {profile.queue} has {profile.team_count}",
            "teams",
        )
    for index, team in enumerate(event.teams):
        size = len(team.players) + team.open_slots
        # Asymmetric teams: the session's teams in the queue's order, each its own size.
        limit = profile.team_sizes[index] if profile.team_sizes else profile.team_size
        if team.open_slots < 0 or size > limit:
            return (
                "backfill_too_large",
                f"team {team.name}: {len(team.players)} players and {team.open_slots} open "
                f"slots exceed the queue's team size {limit}",
                f"teams[{index}].open_slots",
            )
    if not any(team.open_slots for team in event.teams):
        return ("invalid_field", "no team has an open slot", "teams")
    return None


def open_for(
    queue: RegionState, matches: tuple[Match, ...], tick: WaveTick, profile: QueueProfile
) -> None:
    """Open a backfill for each match created below the queue's full shape (``auto_backfill``).

    The request is the platform's would be: the session is the match, each team keeps its
    seats and wants the rest of its size, the teams a team step left out are empty teams
    (``team<n>``). It is filled at the next ticks like any request, and cancelled by a
    BackfillCancelled of the match id; it lives as long as a ticket (ADR 0117).

    Notes: O(seats).
    """
    for match in matches:
        teams = [
            BackfillTeam(
                team.name,
                tuple((seat.player_id, seat.rating) for seat in team.seats),
                max(0, _team_size(profile, number) - len(team.seats)),
            )
            for number, team in enumerate(match.teams)
        ]
        teams += [
            BackfillTeam(f"team{number + 1}", (), _team_size(profile, number))
            for number in range(len(match.teams), profile.team_count)
        ]
        if any(team.open_slots for team in teams):
            event = BackfillRequested(
                match.match_id, queue.queue, queue.region, tuple(teams), tick.tick_at_ms
            )
            queue.life.request_backfill(event)


def _team_size(profile: QueueProfile, number: int) -> int:
    sizes = profile.team_sizes
    return sizes[number] if number < len(sizes) else profile.team_size


def cancel(queue: RegionState, event: BackfillCancelled) -> Draft:
    if not queue.life.cancel_backfill(event.session_id):
        raise LifecycleRejected(
            "unknown_session",
            f"no active backfill request for session {event.session_id} in "
            f"{queue.queue}/{queue.region}",
            "session_id",
        )
    return Draft("backfill_cancelled")


def expires_at(event: BackfillRequested, ticket_ttl_ms: int) -> int:
    """When ``event`` expires: its deadline, but no later than a ticket would.

    >>> from matcher.queue.lifecycle import BackfillTeam
    >>> team = BackfillTeam("red", (), 1)
    >>> expires_at(BackfillRequested("s", "q", "eu", (team,), 1_000), 60_000)
    61000
    >>> expires_at(BackfillRequested("s", "q", "eu", (team,), 1_000, 5_000), 60_000)
    5000
    """
    lifetime = event.at_ms + ticket_ttl_ms
    deadline = event.deadline_at_ms
    return lifetime if deadline is None else min(deadline, lifetime)


class InvalidBackfill(RuntimeError):
    """A fill its checker rejects: a bug, never published (the wave fails instead)."""


def at_tick(
    queue: RegionState, tick: WaveTick, rules: QueueRules, profile: QueueProfile, draft: Draft
) -> tuple[BackfillChoice, ...]:
    """Expire the requests past their deadline or lifetime, then fill the others in
    request order; return how each was filled.

    Every fill is checked before any ticket is taken: on a bad one nothing changes and
    :class:`InvalidBackfill` is raised. The dequeues and results go to ``draft``. Under
    the queue's ``partial_backfill`` a request no whole fill meets gets the legal fill of
    the most open slots (:mod:`matcher.queue.backfill_partial`) and stays open for the
    rest, its new players among the session's (docs/adr/0192).

    Notes: O(requests x (n + the choice's bounded search)) for n queued tickets.
    """
    now, ruleset = tick.tick_at_ms, profile.ruleset
    expired_before = now - rules.ticket_ttl_ms
    avoided = ruleset.rematch or ruleset.block_lists
    met = met_recently(queue.snapshot(tick), ruleset) if avoided else NO_MEETINGS
    taken: set[str] = set()
    plans: list[tuple[BackfillRequested, BackfillChoice | None, tuple[Team, ...]]] = []
    for event in queue.life.backfills.values():
        if expires_at(event, rules.ticket_ttl_ms) <= now:
            plans.append((event, None, ()))
            continue
        paused = queue.life.paused  # held by another place's match: not here to take
        free = [
            q.ticket
            for ticket_id, q in queue.tickets.items()
            if ticket_id not in taken and ticket_id not in paused
        ]
        seated = queue.life.backfill_seated.get(event.session_id, ())
        choice = choose_fill(event, free, now, expired_before, ruleset, met, tick.wave_id, seated)
        if choice is None and profile.partial_backfill:
            choice = choose_partial(
                event, free, now, expired_before, ruleset, met, tick.wave_id, seated
            )
        if choice is None:
            continue
        teams = _teams(queue, choice, ruleset)
        if rules.verify_waves:
            chosen = {seat.ticket_id for team in teams for seat in team.seats}
            queued = {t: queue.tickets[t].ticket for t in chosen if t in queue.tickets}
            problems = backfill_problems(
                event,
                teams,
                queued,
                now,
                expired_before,
                ruleset,
                met,
                taken,
                seated,
                free if profile.partial_backfill else None,
            )
            if problems:
                raise InvalidBackfill(f"backfill of session {event.session_id}: {problems[0]}")
        taken.update(seat.ticket_id for team in teams for seat in team.seats)
        plans.append((event, choice, teams))
    return _apply(queue, plans, tick, draft)


def _apply(
    queue: RegionState,
    plans: list[tuple[BackfillRequested, BackfillChoice | None, tuple[Team, ...]]],
    tick: WaveTick,
    draft: Draft,
) -> tuple[BackfillChoice, ...]:
    choices: list[BackfillChoice] = []
    for event, choice, teams in plans:
        if choice is None:
            queue.life.cancel_backfill(event.session_id)
            draft.life.append(_result(queue, event, "EXPIRED", (), tick))
            continue
        draft.life.append(_result(queue, event, "FILLED", teams, tick))
        chosen = [queue.tickets[seat.ticket_id] for team in teams for seat in team.seats]
        unique = {q.ticket.ticket_id: q for q in chosen}.values()
        left = remaining(
            event, [(t.name, tuple((s.player_id, s.rating) for s in t.seats)) for t in teams]
        )
        if any(team.open_slots for team in left.teams):  # a partial fill: the rest stays open
            seated = queue.life.backfill_seated.get(event.session_id, ())
            queue.life.fill_backfill_partly(left, (*seated, *(q.ticket for q in unique)))
        else:
            queue.life.cancel_backfill(event.session_id)
        session_id, at_ms, wave_id = event.session_id, tick.tick_at_ms, tick.wave_id
        detail = f"backfill of session {session_id}"
        draft.dequeued += [
            queue.finish(
                queued,
                DequeueReason.MATCHED,
                at_ms,
                closing=1,
                match_id=session_id,
                wave_id=wave_id,
                detail=detail,
            )
            for queued in sorted(unique, key=lambda q: q.ticket.ticket_id)
        ]
        choices.append(choice)
    return tuple(choices)


def _teams(queue: RegionState, choice: BackfillChoice, rules: QueueRuleSet) -> tuple[Team, ...]:
    """The new seats per team that received players (request order), each at the rating the
    queue's rules rate its player by (the confidence bound under a deviation rule) and with
    its data for the game server, as the wave's own matches seat them."""
    return tuple(
        Team(
            name,
            tuple(
                _seats([queue.tickets[t].ticket for t in ticket_ids if t in queue.tickets], rules)
            ),
        )
        for name, ticket_ids in choice.teams
        if ticket_ids
    )


def _seats(tickets: list[Ticket], rules: QueueRuleSet) -> list[Seat]:
    return [
        Seat(
            ticket.ticket_id,
            player.player_id,
            "",
            seated_under(player, rules) or 0,
            seat_data(ticket, player),
        )
        for ticket in tickets
        for player in ticket.players
    ]


def _result(
    queue: RegionState,
    event: BackfillRequested,
    outcome: str,
    teams: tuple[Team, ...],
    tick: WaveTick,
) -> BackfillResult:
    return BackfillResult(
        event.session_id, queue.queue, queue.region, outcome, teams, tick.tick_at_ms, tick.wave_id
    )
