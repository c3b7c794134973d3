"""Asymmetric teams: splits of a group into teams of their own sizes and role slots.

A queue with ``team_sizes`` (1 hunter against 4 survivors) or ``team_roles`` (attackers
and defenders with different roles) gives each team an exact size and, optionally, its
own role slots (:class:`~matcher.teams.model.TeamShape`). A split places every party of
the group whole on one team so that each team has exactly its size and can fill its
role slots; :func:`asymmetric_split` keeps the one with the smallest gap between the
teams' mean seat ratings (the rebalance criterion; the member counts are fixed).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from matcher.teams.model import Lineup, Party, TeamShape, role_slots, team_ratings
from matcher.teams.rebalance import composition_key

#: Splits tried per group at most: a group of many small parties over many teams has
#: exponentially many, and the first ones found are kept (parties are placed largest first).
MAX_SPLITS = 20_000


def asymmetric_splits(group: Sequence[Party], shape: TeamShape) -> Iterator[Lineup]:
    """Every split of ``group`` (all of it) into the shape's teams, at most MAX_SPLITS.

    >>> from matcher.core import Player
    >>> solo = lambda i, r: Party(f"t{i}", (Player(f"p{i}", (("x", r),)),), (r,), 0, 0, i)
    >>> shape = TeamShape(2, 1, 2, sizes=(1, 2))
    >>> [lineup.teams for lineup in asymmetric_splits([solo(0, 5), solo(1, 6), solo(2, 7)], shape)]
    [((0,), (1, 2)), ((1,), (0, 2)), ((2,), (0, 1))]

    Notes: O(t^n) assignments for n parties and t teams in the worst case, bounded.
    """
    if sum(party.size for party in group) != shape.match_max:
        return
    order = sorted(range(len(group)), key=lambda i: (-group[i].size, i))
    teams: list[list[int]] = [[] for _ in range(shape.team_count)]
    room = [shape.team_size_range(t)[1] for t in range(shape.team_count)]
    budget = [MAX_SPLITS]

    def place(position: int) -> Iterator[Lineup]:
        if budget[0] <= 0:
            return
        if position == len(order):
            budget[0] -= 1
            lineup = _with_roles(group, teams, shape)
            if lineup is not None:
                yield lineup
            return
        index = order[position]
        tried: set[tuple[int, tuple[str, ...]]] = set()
        for t in range(shape.team_count):
            # Two teams of the same room and roles that are both still empty are the same choice.
            same = (room[t], shape.roles_of(t)) if not teams[t] else None
            if room[t] < group[index].size or (same is not None and same in tried):
                continue
            if same is not None:
                tried.add(same)
            teams[t].append(index)
            room[t] -= group[index].size
            yield from place(position + 1)
            room[t] += group[index].size
            teams[t].pop()

    found = sorted(place(0), key=lambda lineup: lineup.teams)
    yield from found


def _with_roles(group: Sequence[Party], teams: list[list[int]], shape: TeamShape) -> Lineup | None:
    ordered = [sorted(team) for team in teams]
    seat_roles: list[tuple[str, ...]] = []
    for t, team in enumerate(ordered):
        players = [player for i in team for player in group[i].players]
        assigned = role_slots(players, shape.roles_of(t))
        if assigned is None:
            return None
        seat_roles.append(assigned)
    return Lineup(tuple(tuple(team) for team in ordered), tuple(seat_roles))


def asymmetric_split(group: Sequence[Party], shape: TeamShape) -> Lineup | None:
    """The split of ``group`` with the least gap between team mean ratings; None if none.

    Ties keep the first split in team order.
    """
    best: tuple[tuple[int, float], Lineup] | None = None
    for lineup in asymmetric_splits(group, shape):
        key = composition_key(team_ratings(group, lineup))
        if best is None or key < best[0]:
            best = (key, lineup)
    return None if best is None else best[1]
