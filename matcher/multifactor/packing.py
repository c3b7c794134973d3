"""Cutting an order of tickets into matches of two full teams, parties whole.

With solo tickets this is exactly "sort, then cut every 2n players"; with parties,
first-fit in the given order can leave a team short (a duo waiting for a solo that
went elsewhere). It then tries first-fit from the other end of the order, and then
both directions with bigger tickets first inside runs of 2, 4, 8, ... consecutive
tickets, so the order is kept as far as the parties allow (ADR 0053: putting bigger
tickets first over the whole order would group parties with players far from them in
rating). The last resort is the selection's own packing, feasible by construction.
"""

from __future__ import annotations

from matcher.multifactor.pool import Pool


def pack_matches(order: list[int], pool: Pool) -> list[list[int]]:
    """Group the pool's tickets into matches (lists of ticket indices), close to ``order``.

    Teams are filled first-fit in ``order`` (or close to it, see the module docstring),
    sorted by the mean rank of their tickets in ``order``, and paired two by two; the
    split into teams is the search's business.

    >>> from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
    >>> from matcher.multifactor.config import MultifactorConfig
    >>> from matcher.multifactor.pool import build_pool
    >>> def party(i, *ratings):
    ...     players = tuple(Player(f"p{i}{k}", (("mmr", r),)) for k, r in enumerate(ratings))
    ...     return WaitingTicket(Ticket(f"t{i}", "q", "eu", players, i), 0)
    >>> tickets = (party(0, 2000, 2000), party(1, 1900, 1900), party(2, 900), party(3, 1000))
    >>> queue = QueueProfile("q", "multifactor", ("a",), team_size=3)
    >>> wave = WaveSnapshot("q", "eu", "w", 1, 1, 0, tickets)
    >>> pool = build_pool(wave, queue, MultifactorConfig())
    >>> pack_matches([2, 3, 1, 0], pool)  # first-fit from the low end strands both duos
    [[1, 2, 0, 3]]

    Notes: O(tickets x open teams) per attempt, O(log tickets) attempts at most.
    """
    sizes = [len(players) for players in pool.ticket_players]
    teams = None
    window = 1
    while teams is None and window < 2 * len(order):
        shuffled = _bigger_first_within(order, sizes, window)
        teams = _first_fit(shuffled, sizes, pool.team_size)
        if teams is None:
            teams = _first_fit(shuffled[::-1], sizes, pool.team_size)
        window *= 2
    if teams is None:
        teams = [list(team) for team in pool.bins]
    rank = {ticket: r for r, ticket in enumerate(order)}
    teams.sort(
        key=lambda team: (sum(rank[t] for t in team) / len(team), min(rank[t] for t in team))
    )
    return [teams[i] + teams[i + 1] for i in range(0, len(teams) - 1, 2)]


def _bigger_first_within(order: list[int], sizes: list[int], window: int) -> list[int]:
    """``order`` with each run of ``window`` consecutive tickets sorted by decreasing size.

    >>> _bigger_first_within([0, 1, 2, 3, 4], [1, 2, 1, 3, 2], 2)
    [1, 0, 3, 2, 4]
    """
    runs = (order[start : start + window] for start in range(0, len(order), window))
    return [t for run in runs for t in sorted(run, key=lambda t: -sizes[t])]


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
