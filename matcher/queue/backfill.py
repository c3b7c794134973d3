"""Backfill: fill the open slots of running sessions from the queue, at a wave's tick,
before the wave's own matches (docs/adr/0113).

Parties stay whole; each team's open slots are filled exactly, oldest queued tickets
first (join order), or the request waits for a later wave. Requests expire at the
first tick at or after their deadline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matcher.core import QueueProfile, Seat, Team, Ticket
from matcher.queue.events import DequeueReason, WaveTick
from matcher.queue.lifecycle import (
    BackfillCancelled,
    BackfillRequested,
    BackfillResult,
    LifecycleOutput,
    LifecycleRejected,
)
from matcher.queue.outcomes import Dequeued, Step

if TYPE_CHECKING:
    from matcher.queue.fold import QueuedTicket, QueueRules, RegionQueue


def request(queue: RegionQueue, event: BackfillRequested, profile: QueueProfile) -> Step:
    """Record (or replace) a session's request; refuse one the queue can never fill."""
    problem = _problem(event, profile)
    if problem is not None:
        raise LifecycleRejected(*problem)
    queue.life.backfills[event.session_id] = event
    return Step("backfill_requested")


def _problem(event: BackfillRequested, profile: QueueProfile) -> tuple[str, str, str] | None:
    if len(event.teams) > profile.team_count:
        return (
            "backfill_too_large",
            f"{len(event.teams)} teams, the queue {profile.queue} has {profile.team_count}",
            "teams",
        )
    for index, team in enumerate(event.teams):
        size = len(team.players) + team.open_slots
        if team.open_slots < 0 or size > profile.team_size:
            return (
                "backfill_too_large",
                f"team {team.name}: {len(team.players)} players and {team.open_slots} open "
                f"slots exceed the queue's team size {profile.team_size}",
                f"teams[{index}].open_slots",
            )
    if not any(team.open_slots for team in event.teams):
        return ("invalid_field", "no team has an open slot", "teams")
    return None


def cancel(queue: RegionQueue, event: BackfillCancelled) -> Step:
    if queue.life.backfills.pop(event.session_id, None) is None:
        raise LifecycleRejected(
            "unknown_session",
            f"no active backfill request for session {event.session_id} in "
            f"{queue.queue}/{queue.region}",
            "session_id",
        )
    return Step("backfill_cancelled")


def at_tick(
    queue: RegionQueue, tick: WaveTick, rules: QueueRules
) -> tuple[list[Dequeued], list[LifecycleOutput]]:
    """Expire the requests past their deadline, then fill the others in request order.

    Notes: O(requests x queued tickets) at worst; a request stops scanning once full.
    """
    dequeued: list[Dequeued] = []
    outputs: list[LifecycleOutput] = []
    now, backfills = tick.tick_at_ms, queue.life.backfills
    for session_id, event in list(backfills.items()):
        if event.deadline_at_ms is not None and event.deadline_at_ms <= now:
            del backfills[session_id]
            outputs.append(_result(queue, event, "EXPIRED", (), tick))
            continue
        chosen = _fill(queue, event, now - rules.ticket_ttl_ms)
        if chosen is None:
            continue
        del backfills[session_id]
        teams = tuple(
            Team(team.name, tuple(_seats(tickets)))
            for team, tickets in zip(event.teams, chosen, strict=True)
            if tickets
        )
        outputs.append(_result(queue, event, "FILLED", teams, tick))
        dequeued += _take(queue, [q for tickets in chosen for q in tickets], session_id, tick)
    return dequeued, outputs


def _fill(
    queue: RegionQueue, event: BackfillRequested, expired_before: int
) -> list[list[QueuedTicket]] | None:
    """Per team, the oldest parties that fill its open slots exactly; None if any cannot."""
    taken: set[str] = set()
    chosen: list[list[QueuedTicket]] = []
    for team in event.teams:
        room, picked = team.open_slots, []
        for ticket_id, queued in queue.tickets.items():
            if room == 0:
                break
            size = len(queued.ticket.players)
            if ticket_id in taken or size > room or queued.ticket.joined_at_ms <= expired_before:
                continue
            picked.append(queued)
            taken.add(ticket_id)
            room -= size
        if room:
            return None
        chosen.append(picked)
    return chosen


def _seats(tickets: list[QueuedTicket]) -> list[Seat]:
    return [
        Seat(q.ticket.ticket_id, p.player_id, "", _rating(q.ticket, p.player_id))
        for q in tickets
        for p in q.ticket.players
    ]


def _rating(ticket: Ticket, player_id: str) -> int:
    player = next(p for p in ticket.players if p.player_id == player_id)
    return max((value for _, value in player.ratings), default=0)


def _take(
    queue: RegionQueue, tickets: list[QueuedTicket], session_id: str, tick: WaveTick
) -> list[Dequeued]:
    out = []
    for queued in sorted(tickets, key=lambda q: q.ticket.ticket_id):
        ticket = queued.ticket
        del queue.tickets[ticket.ticket_id]
        queue._forget(ticket, tick.tick_at_ms)
        out.append(
            Dequeued(
                ticket.ticket_id,
                queue.queue,
                queue.region,
                DequeueReason.MATCHED,
                queue.waves_closed + 1 - queued.joined_wave,
                tick.tick_at_ms,
                session_id,
                tick.wave_id,
                f"backfill of session {session_id}",
            )
        )
    return out


def _result(
    queue: RegionQueue,
    event: BackfillRequested,
    outcome: str,
    teams: tuple[Team, ...],
    tick: WaveTick,
) -> BackfillResult:
    return BackfillResult(
        event.session_id, queue.queue, queue.region, outcome, teams, tick.tick_at_ms, tick.wave_id
    )
