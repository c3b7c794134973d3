"""The live check of a queue's ``priority`` rule: no ticket left out of a wave could take
the seats of a lower-priority ticket of its size in a match and keep every rule
(docs/adr/0162).

It tries the same seats only (a re-split is the strategy's to search), and only in
matches without roles (a swap would have to re-deal them), which is what the team
strategies' priority pass always tries first, so a valid result never fails it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from matcher.core import Match, Player, Ticket, WaveResult, WaveSnapshot

#: Why a match of these seat ratings, seated players and join times breaks the queue's
#: rules, or None (matcher.rules.check, which calls this module, builds it).
Judge = Callable[[list[list[int]], list[Player], list[int]], str | None]
#: The seat rating a player gets in a queue without roles, None when they have none.
Rate = Callable[[Player], int | None]

#: Left-out tickets tried per matched ticket, highest priority first: bounds the check's
#: cost in a wave of many priorities (it then checks the likeliest breaches only).
MAX_TRIED = 8


def priority_problems(
    snapshot: WaveSnapshot,
    result: WaveResult,
    judge: Judge,
    rate: Rate,
    only_shape: tuple[int, int] | None = None,
) -> list[str]:
    """Every swap the ``priority`` rule required and ``result`` did not make.

    ``only_shape`` (team count, team size), when given, limits the check to matches of
    that shape: a queue's ``team_steps`` make smaller matches of long-waited tickets only,
    which a ticket that has not waited as long may not join whatever its priority.

    Notes: O(matched tickets x MAX_TRIED x seats).
    """
    tickets = {w.ticket.ticket_id: w.ticket for w in snapshot.tickets}
    left = [tickets[t] for t in result.unmatched if t in tickets]
    left.sort(key=lambda ticket: -ticket.priority)
    if not left:
        return []
    problems: list[str] = []
    for match in result.matches:
        if any(seat.role for team in match.teams for seat in team.seats):
            continue
        shape = (len(match.teams), max(len(team.seats) for team in match.teams))
        if only_shape is not None and shape != only_shape:
            continue
        for low_id in match.ticket_ids():
            low = tickets.get(low_id)
            if low is None:
                continue
            candidates = [t for t in left if t.priority > low.priority and t.size == low.size][
                :MAX_TRIED
            ]
            for high in candidates:
                swapped = _swapped(rate, match, tickets, low, high)
                if swapped is None:
                    continue
                teams, seated = swapped
                joined = [
                    (high if tid == low_id else tickets[tid]).joined_at_ms
                    for tid in match.ticket_ids()
                    if tid in tickets
                ]
                if judge(teams, seated, joined) is None:
                    problems.append(
                        f"match {match.match_id}: ticket {high.ticket_id} (priority "
                        f"{high.priority}) left out though it could take the seats of "
                        f"{low.ticket_id} (priority {low.priority}) (priority)"
                    )
                    break
    return problems


def _swapped(
    rate: Rate,
    match: Match,
    tickets: Mapping[str, Ticket],
    low: Ticket,
    high: Ticket,
) -> tuple[list[list[int]], list[Player]] | None:
    """The match's seat ratings and seated players with ``high`` in ``low``'s seats."""
    incoming = list(high.players)
    teams: list[list[int]] = []
    seated: list[Player] = []
    for team in match.teams:
        ratings: list[int] = []
        for seat in team.seats:
            if seat.ticket_id == low.ticket_id:
                player = incoming.pop(0)
                rating = rate(player)
                if rating is None:
                    return None
            else:
                ticket = tickets.get(seat.ticket_id)
                found = (
                    [p for p in ticket.players if p.player_id == seat.player_id] if ticket else []
                )
                if not found:
                    return None
                player, rating = found[0], seat.rating
            ratings.append(rating)
            seated.append(player)
        teams.append(ratings)
    return teams, seated
