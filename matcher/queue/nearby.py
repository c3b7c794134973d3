"""Regions chosen from latency: a join's ``nearby`` turned into the places it searches
(docs/adr/0147).

Decided by the book of the join's own place from the join and the configuration the
region is under, so a replay chooses the same; the copies carry the chosen places
(``searches``), never ``nearby``.
"""

from __future__ import annotations

import math

from matcher.queue.events import Search, TicketJoined
from matcher.ruleset import Expansion

#: The most places one ticket searches (schemas.models.MAX_SEARCHES).
MAX_PLACES = 16
UNBOUNDED = "nearby: no max_latency_ms given and the queue has no max_latency_ms cap"


def choose(event: TicketJoined, regions: tuple[str, ...], cap: Expansion | None) -> TicketJoined:
    """``event`` with ``nearby`` turned into places: its own (and the ones it names)
    first, then every other region of ``regions`` (in configured order) that every
    player gave a latency for within the bound. Without a bound the join keeps
    ``nearby`` and its place refuses it (:data:`UNBOUNDED`).

    >>> from matcher.core import Player, Ticket
    >>> from matcher.queue.events import Nearby
    >>> p = Player("p", {"mmr": 1500}, latency_ms=(("eu", 20), ("na", 90), ("sa", 200)))
    >>> join = TicketJoined(Ticket("t", "1v1", "eu", (p,), 0), (), Nearby(60_000, 100))
    >>> [(s.region, s.open_after_ms) for s in choose(join, ("eu", "na", "sa", "ap"), None).searches]
    [('eu', 0), ('na', 60000)]
    """
    nearby, ticket = event.nearby, event.ticket
    assert nearby is not None
    bound: float | None = nearby.max_latency_ms
    if bound is None and cap is not None and math.isfinite(cap.widest):
        bound = cap.widest
    if bound is None:
        return event
    places = list(event.searches) or [Search(ticket.queue, ticket.region)]
    named = {(s.queue, s.region) for s in places}
    latencies = [dict(player.latency_ms) for player in ticket.players]
    for region in regions:
        if len(places) >= MAX_PLACES:
            break
        if (ticket.queue, region) in named:
            continue
        figures = [latency.get(region) for latency in latencies]
        if all(ms is not None and ms <= bound for ms in figures):
            places.append(Search(ticket.queue, region, nearby.open_after_ms))
    return TicketJoined(ticket, tuple(places) if len(places) > 1 else ())
