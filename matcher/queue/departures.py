"""Tickets leaving a region when its wave closes: expired, or matched, and what the
region remembers of them (their ids as finished, each player's last match).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matcher.core import LastMatch, Match
from matcher.fastbuild import builder
from matcher.queue.estimate import rating_band
from matcher.queue.events import DequeueReason, WaveTick
from matcher.queue.outcomes import Dequeued
from matcher.queue.wave_close import matched_ticket_ids

if TYPE_CHECKING:
    from matcher.queue.fold import QueuedTicket, RegionQueue

# Built by the thousand when a big wave closes: fastbuild matters (docs/benchmarks/duel.md).
_make_dequeued = builder(Dequeued)
_make_last_match = builder(LastMatch)


def expire(queue: RegionQueue, expiring: list[QueuedTicket], tick: WaveTick) -> list[Dequeued]:
    """Take ``expiring`` out of the queue: each is dequeued EXPIRED at ``tick``."""
    out = []
    for queued in expiring:
        del queue.tickets[queued.ticket.ticket_id]
        queue._forget(queued.ticket, tick.tick_at_ms)
        out.append(
            Dequeued(
                queued.ticket.ticket_id,
                queue.queue,
                queue.region,
                DequeueReason.EXPIRED,
                queue.waves_waited(queued),
                tick.tick_at_ms,
                wave_id=tick.wave_id,
            )
        )
    return out


def remove_matched(
    queue: RegionQueue, matches: tuple[Match, ...], tick: WaveTick
) -> list[Dequeued]:
    """Take the matched tickets out of the state, in match order then ticket id order.

    Returns their dequeues, and tells the estimator each one's rating band and wait.
    A big wave matches most of the queue (10,000 tickets) in an order unrelated to
    the order they joined in, which is about the order they lie in memory: the
    tickets are read in join order (in match order, each read missed the cache:
    ~40 % slower), once.
    """
    ticket_ids, match_ids = matched_ticket_ids(matches)
    gone = set(ticket_ids)
    if len(gone) != len(ticket_ids):  # as deleting a ticket twice would
        raise KeyError(next(t for t in ticket_ids if ticket_ids.count(t) > 1))
    tickets = queue.tickets
    if not tickets.keys() >= gone:
        raise KeyError(next(t for t in ticket_ids if t not in tickets))
    waited_base = queue.waves_closed + 1  # this wave counts as waited
    if 2 * len(gone) < len(tickets):  # a few: looked up
        chosen = [(t, tickets[t]) for t in ticket_ids]
    else:
        chosen = [(t, q) for t, q in tickets.items() if t in gone]
    # (rating band, waves waited) of each; the estimator's histograms do not depend
    # on the order they are given in.
    taken = {t: (rating_band(q.ticket), waited_base - q.joined_wave) for t, q in chosen}
    joined = {t: q.ticket.joined_at_ms for t, q in chosen}
    drop(queue, gone, chosen)
    queue.estimator.observe_bands(list(taken.values()))
    at_ms, wave_id, name, region = tick.tick_at_ms, tick.wave_id, queue.queue, queue.region
    reason = DequeueReason.MATCHED
    out = [
        _make_dequeued(
            t, name, region, reason, taken[t][1], at_ms, match_id, wave_id, None, joined[t]
        )
        for t, match_id in zip(ticket_ids, match_ids, strict=True)
    ]
    queue.finished.finish_all(ticket_ids, at_ms)
    record_encounters(queue, matches)
    return out


def drop(queue: RegionQueue, ticket_ids: set[str], entries: list[tuple[str, QueuedTicket]]) -> None:
    """Forget queued tickets (``entries``: those of ``ticket_ids``) and their players.

    Both maps keep their order. When most of the queue goes, both are rebuilt from
    what stays rather than deleted from entry by entry; a player maps to its ticket,
    so the players to forget are those of a ticket that goes.
    """
    if 2 * len(ticket_ids) < len(queue.tickets):
        for ticket_id, entry in entries:
            del queue.tickets[ticket_id]
            for player in entry.ticket.players:
                queue.player_ticket.pop(player.player_id, None)
        return
    queue.tickets = {t: q for t, q in queue.tickets.items() if t not in ticket_ids}
    queue.player_ticket = {p: t for p, t in queue.player_ticket.items() if t not in ticket_ids}


def record_encounters(queue: RegionQueue, matches: tuple[Match, ...]) -> None:
    """Remember each matched player's mates and opponents (the strategies' last match)."""
    last_matches = queue.last_matches
    for match in matches:
        teams = match.teams
        if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
            first, second = teams[0].seats[0].player_id, teams[1].seats[0].player_id
            last_matches[first] = _make_last_match(first, (), (second,))
            last_matches[second] = _make_last_match(second, (), (first,))
            continue
        players = [tuple(seat.player_id for seat in team.seats) for team in teams]
        for index, mates in enumerate(players):
            foes = tuple(
                pid for other, team in enumerate(players) if other != index for pid in team
            )
            for player_id in mates:
                others = tuple(pid for pid in mates if pid != player_id)
                last_matches[player_id] = LastMatch(player_id, others, foes)
