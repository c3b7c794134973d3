"""Snapshots of a region's queue as plain JSON-able values (lists, ints, strings).

The worker stores them in its state table; a snapshot plus the events after it
re-creates the queue exactly (tests/queue/test_records.py proves the round trip).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from matcher.core import LastMatch, Player, Ticket
from matcher.queue.estimate import WaitEstimator
from matcher.queue.finished import FinishedTickets
from matcher.queue.fold import RegionQueue
from matcher.queue.life_records import life_from_record, life_to_record
from matcher.queue.tickets import Lifecycle, QueuedTicket

RECORD_VERSION = 1


def _optional_items(p: Player) -> list[Any]:
    """A player's optional fields in their fixed order, the empty ones at the end left out."""
    items: list[Any] = [
        [list(a) for a in p.attributes],
        list(p.blocked),
        p.deviation,
        [list(n) for n in p.numbers],
        [list(d) for d in p.data],
        [list(peer) for peer in p.peer_latency_ms],
    ]
    while items and items[-1] in ([], None):
        items.pop()
    return items


def ticket_to_record(ticket: Ticket) -> list[Any]:
    # Optional trailing items (a player's attributes, a ticket's priority and data) only
    # when present: a snapshot without them keeps its earlier bytes. The usual ticket has
    # none, and every queued ticket is written at every snapshot: no call or list for
    # them, and its tuples go as they are (JSON writes a tuple as a list).
    players = []
    for p in ticket.players:
        row = [p.player_id, p.ratings, p.roles, p.vetoed_maps, p.latency_ms, p.can_host]
        if (
            p.attributes or p.blocked or p.numbers or p.data or p.peer_latency_ms
        ) or p.deviation is not None:
            row += _optional_items(p)
        players.append(row)
    record = [
        ticket.ticket_id,
        ticket.queue,
        ticket.region,
        ticket.party_id,
        ticket.joined_at_ms,
        players,
    ]
    priority, data = ticket.priority, ticket.data
    if priority or data:
        record.append(priority)
        if data:
            record.append([list(d) for d in data])
    return record


def ticket_from_record(record: list[Any]) -> Ticket:
    ticket_id, queue, region, party_id, joined_at_ms, players, *extra = record
    return Ticket(
        ticket_id=ticket_id,
        queue=queue,
        region=region,
        party_id=party_id,
        joined_at_ms=joined_at_ms,
        players=tuple(
            Player(
                player_id=pid,
                ratings=tuple((r, v) for r, v in ratings),
                roles=tuple(roles),
                vetoed_maps=tuple(vetoes),
                latency_ms=tuple((g, ms) for g, ms in latency),
                can_host=can_host,
                attributes=tuple((k, v) for k, v in (rest[0] if rest else ())),
                blocked=tuple(rest[1]) if len(rest) > 1 else (),
                deviation=rest[2] if len(rest) > 2 else None,
                numbers=tuple((k, v) for k, v in (rest[3] if len(rest) > 3 else ())),
                data=tuple((k, v) for k, v in (rest[4] if len(rest) > 4 else ())),
                peer_latency_ms=tuple((q, ms) for q, ms in (rest[5] if len(rest) > 5 else ())),
            )
            for pid, ratings, roles, vetoes, latency, can_host, *rest in players
        ),
        data=tuple((k, v) for k, v in (extra[1] if len(extra) > 1 else ())),
        priority=extra[0] if extra else 0,
    )


def queue_to_record(state: RegionQueue, *, with_finished: bool = True) -> dict[str, Any]:
    """Return a JSON-able snapshot of ``state``. Notes: O(tickets + remembered ids).

    ``with_finished=False`` leaves the remembered ids out (a worker's snapshot saves them
    apart, as journals: streams/worker/finished_log.py); :func:`queue_from_record` then
    rebuilds the queue with none.
    """
    record: dict[str, Any] = {
        "version": RECORD_VERSION,
        "queue": state.queue,
        "region": state.region,
        "tickets": [[ticket_to_record(q.ticket), q.joined_wave] for q in state.tickets.values()],
        "waves_closed": state.waves_closed,
        "last_sequence": state.last_sequence,
        "last_tick_at_ms": state.last_tick_at_ms,
        "last_interval_ms": state.last_interval_ms,
        "arrivals_since_tick": state.arrivals_since_tick,
        "arrival_rate_per_s": state.arrival_rate_per_s,
        "failing": state.failing,
        "meetings": [
            [pid, [[at, list(others)] for at, others in history]]
            for pid, history in state.meetings.items()
        ],
        "recent_matched_players": list(state.recent_matched_players),
        "last_matches": [
            [m.player_id, list(m.teammates), list(m.opponents)] for m in state.last_matches.values()
        ],
        "estimator": state.estimator.to_record(),
        "matches_placed": state.matches_placed,
    }
    life = state.life
    # A place's searching tickets may be all queued (nothing held): their places still
    # decide that a match holding one asks its search claim first.
    if (
        life.holds()
        or life.claimed
        or life.closed
        or life.backfills
        or life.places
        or life.refused
        or life.early_leaves
    ):
        record["life"] = life_to_record(state.life, ticket_to_record)
    if state.config is not None:  # absent under the worker's own configuration
        record["config"] = state.config
    if with_finished:
        record["finished"] = [[tid, at] for tid, at in state.finished.items()]
    return record


def queue_from_record(record: dict[str, Any]) -> RegionQueue:
    """Rebuild the queue :func:`queue_to_record` saved; reject a record of another version."""
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"version: snapshot version {record.get('version')!r} is not supported")
    tickets: dict[str, QueuedTicket] = {}
    player_ticket: dict[str, str] = {}
    for ticket_record, joined_wave in record["tickets"]:
        ticket = ticket_from_record(ticket_record)
        tickets[ticket.ticket_id] = QueuedTicket(ticket, joined_wave)
        for player in ticket.players:
            player_ticket[player.player_id] = ticket.ticket_id
    meetings = {
        pid: tuple((at, tuple(others)) for at, others in history)
        for pid, history in record.get("meetings", ())
    }
    last_matches = {
        pid: LastMatch(pid, tuple(mates), tuple(foes))
        for pid, mates, foes in record["last_matches"]
    }
    return RegionQueue(
        record["queue"],
        record["region"],
        tickets=tickets,
        player_ticket=player_ticket,
        finished=FinishedTickets((tid, at) for tid, at in record.get("finished", ())),
        waves_closed=record["waves_closed"],
        last_sequence=record["last_sequence"],
        last_tick_at_ms=record["last_tick_at_ms"],
        last_interval_ms=record["last_interval_ms"],
        recent_matched_players=deque(record["recent_matched_players"]),
        last_matches=last_matches,
        estimator=WaitEstimator.from_record(record["estimator"]),
        arrivals_since_tick=record.get("arrivals_since_tick", 0),
        arrival_rate_per_s=record.get("arrival_rate_per_s"),
        life=(
            life_from_record(record["life"], ticket_from_record)
            if "life" in record
            else Lifecycle()
        ),
        failing=record.get("failing"),
        meetings=meetings,
        matches_placed=record.get("matches_placed", 0),  # absent before channels rotated
        config=record.get("config"),
    )
