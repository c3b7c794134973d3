"""What a held match tells the other places of its tickets that search several places:
their search ends there, pauses while the match is held or resumes when it is not made,
or their search claim is given back (docs/adr/0145, 0197, 0204).

Used by the tentative matches of :mod:`matcher.queue.searches` and by the ready checks
and placements of :mod:`matcher.queue.held`; a region with no such ticket (``places``
empty) writes nothing here.
"""

from __future__ import annotations

from collections.abc import Mapping

from matcher.core import Ticket
from matcher.queue.claims import ClaimDecided, ClaimReleased, SearchHeld
from matcher.queue.events import Search
from matcher.queue.state import QueuedTicket, RegionState

MATCHED_ELSEWHERE = "matched_elsewhere"
LEFT = "left"


def notices(
    queue: RegionState,
    ticket: Ticket,
    searches: tuple[Search, ...],
    at_ms: int,
    match_id: str | None,
    ended: str,
) -> list[ClaimDecided]:
    """Tell every other place of ``ticket`` that its search there ends."""
    first, here = ticket.players[0].player_id, (ticket.ticket_id, queue.queue, queue.region)
    return [
        ClaimDecided(
            first, ticket.ticket_id, s.queue, s.region, False, at_ms, here, match_id, ended
        )
        for s in searches
        if (s.queue, s.region) != (queue.queue, queue.region)
    ]


def _searching_among(
    queue: RegionState, tickets: Mapping[str, QueuedTicket]
) -> list[tuple[str, Ticket, tuple[Search, ...]]]:
    """(ticket id, ticket, places) of the tickets among ``tickets`` that search several
    places, in ticket id order."""
    places = queue.life.places
    if not places:  # no ticket here searches elsewhere: nothing to sort
        return []
    return [(t, q.ticket, places[t]) for t, q in sorted(tickets.items()) if t in places]


def end_elsewhere(
    queue: RegionState,
    tickets: Mapping[str, QueuedTicket],
    at_ms: int,
    match_id: str | None,
    ended: str,
) -> list[ClaimDecided]:
    """The end notices of every searching ticket among ``tickets``, in ticket id order."""
    out: list[ClaimDecided] = []
    for _, ticket, searches in _searching_among(queue, tickets):
        out += notices(queue, ticket, searches, at_ms, match_id, ended)
    return out


def give_back(
    queue: RegionState,
    tickets: Mapping[str, QueuedTicket],
    at_ms: int,
    match_id: str,
) -> list[ClaimReleased]:
    """Release the search claims ``match_id`` holds for the searching tickets among
    ``tickets`` (in ticket id order): they search again, here and in their other places."""
    return [
        ClaimReleased(
            ticket.players[0].player_id, ticket_id, queue.queue, queue.region, at_ms, match_id
        )
        for ticket_id, ticket, _ in _searching_among(queue, tickets)
    ]


def hold_elsewhere(
    queue: RegionState,
    tickets: Mapping[str, QueuedTicket],
    at_ms: int,
    match_id: str,
    held: bool,
) -> list[SearchHeld]:
    """Tell every other place of the searching tickets among ``tickets`` (in ticket id
    order) that ``match_id`` holds them through its ready check or placement (``held``),
    or gave them back: their search there pauses, or resumes."""
    here = (queue.queue, queue.region)
    return [
        SearchHeld(
            ticket.players[0].player_id, ticket_id, s.queue, s.region, match_id, here, held, at_ms
        )
        for ticket_id, ticket, searches in _searching_among(queue, tickets)
        for s in searches
        if (s.queue, s.region) != here
    ]
