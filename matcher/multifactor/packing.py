"""Cutting an order of tickets into matches of two full teams, parties whole.

With solo tickets this is exactly "sort, then cut every 2n players"; with parties,
first-fit in the given order can leave a team short (a duo waiting for a solo that
went elsewhere), so it falls back to first-fit by decreasing size, then to the
selection's own packing, which is feasible by construction.
"""

from __future__ import annotations

from matcher.multifactor.pool import Pool


def pack_matches(order: list[int], pool: Pool) -> list[list[int]]:
    """Group the pool's tickets into matches (lists of ticket indices), close to ``order``.

    Teams are filled first-fit in ``order``, sorted by the mean rank of their tickets in
    ``order``, and paired two by two; the split into teams is the search's business.

    Notes: O(tickets x open teams).
    """
    sizes = [len(players) for players in pool.ticket_players]
    teams = _first_fit(order, sizes, pool.team_size)
    if teams is None:
        by_size = sorted(order, key=lambda t: -sizes[t])
        teams = _first_fit(by_size, sizes, pool.team_size)
    if teams is None:
        teams = [list(team) for team in pool.bins]
    rank = {ticket: r for r, ticket in enumerate(order)}
    teams.sort(
        key=lambda team: (sum(rank[t] for t in team) / len(team), min(rank[t] for t in team))
    )
    return [teams[i] + teams[i + 1] for i in range(0, len(teams) - 1, 2)]


def _first_fit(order: list[int], sizes: list[int], team_size: int) -> list[list[int]] | None:
    """Teams filled first-fit in ``order``; None unless every team ends up full.

    >>> _first_fit([0, 1, 2, 3], [2, 2, 1, 1], 3)
    [[0, 2], [1, 3]]
    >>> _first_fit([2, 3, 4, 0, 1, 5], [2, 2, 1, 1, 1, 1], 3) is None
    True
    """
    teams: list[list[int]] = []
    fill: list[int] = []
    open_teams: list[int] = []
    for ticket in order:
        size = sizes[ticket]
        slot = next((t for t in open_teams if fill[t] + size <= team_size), None)
        if slot is None:
            slot = len(teams)
            teams.append([])
            fill.append(0)
            open_teams.append(slot)
        teams[slot].append(ticket)
        fill[slot] += size
        if fill[slot] == team_size:
            open_teams.remove(slot)
    return None if open_teams else teams
