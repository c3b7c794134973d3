"""Offline partitioning of a whole wave: sort, cut into groups of 2k, split each optimally.

Alman & McKay's offline algorithm: players in rating order, consecutive groups of 2k
players, each group split into the two teams of least imbalance f. The cut is
:func:`matcher.teams.grouping.group_parties` (which also keeps parties whole, holds the
newest tickets back from a partial last game, and skips groups whose roles cannot be
filled); the split is exact over every split of the group (:func:`optimal_split`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from matcher.teams.games import Unit, game_of
from matcher.teams.grouping import Fits, Splitter, group_parties
from matcher.teams.imbalance import Imbalance, imbalance
from matcher.teams.model import (
    Keeps,
    Lineup,
    Party,
    TeamShape,
    lineup_with_roles,
    role_options,
    team_ratings,
)
from matcher.teams.roles import seats_fillable
from matcher.teams.split import team_splits


def optimal_split(
    parties: Sequence[Party], shape: TeamShape, params: Imbalance, keeps: Keeps | None = None
) -> Lineup | None:
    """The split of all ``parties`` into two teams of k with the least f (first on ties).

    With roles, a split counts only if each team can fill its role slots, and seats
    take the role assignment of highest total rating (:func:`model.role_slots`); with
    ``keeps`` (the queue's rules that read teams), only if it keeps them.

    >>> from matcher.core import Player
    >>> solo = lambda i, r: Party(f"t{i}", (Player(f"p{i}", (("any", r),)),), (r,), 0, 0, i)
    >>> optimal_split([solo(0, 10), solo(1, 20), solo(2, 30), solo(3, 40)],
    ...               TeamShape(2, 2, 2), Imbalance()).teams
    ((0, 3), (1, 2))

    Notes: O(C(2k, k)) splits for solos (the gap alone decides, v_q is fixed by the
    group) and every role-feasible split with roles; constant for fixed k.
    """
    if not shape.roles:
        units = [Unit(i, party.ratings, 0.0) for i, party in enumerate(parties)]
        # Units are at their parties' positions, so a game's split is the parties'.
        allowed = None if keeps is None else lambda *split: keeps(parties, split)
        game = game_of(units, shape.size_max, params, 0.0, allowed)
        return None if game is None else game.lineup()
    best: tuple[float, Lineup] | None = None
    sizes = [party.size for party in parties]
    if sum(sizes) == shape.team_count * len(shape.roles) and not seats_fillable(
        [player for party in parties for player in party.players], shape.roles, shape.team_count
    ):
        return None  # no split fills the roles (no healer enough): none is tried
    options = [role_options(party, shape.roles) for party in parties]  # read by every split
    for split in team_splits(sizes, shape.team_count, shape.size_min, shape.size_max):
        lineup = lineup_with_roles(parties, split, shape.roles, options)
        if lineup is None:
            continue
        value = imbalance(team_ratings(parties, lineup), params)
        if (best is None or value < best[0]) and (keeps is None or keeps(parties, split)):
            best = (value, lineup)
    return None if best is None else best[1]


def partition_wave(
    parties: Sequence[Party],
    shape: TeamShape,
    params: Imbalance,
    wrap: Callable[[Splitter], Splitter] | None = None,
    fits: Fits | None = None,
    key: Callable[[Party], float] | None = None,
    split_with: Splitter | None = None,
    keeps: Keeps | None = None,
) -> list[Lineup]:
    """Games of the wave: consecutive groups of 2k players in rating order, split optimally.

    ``wrap`` may refuse a group's split and ``fits`` a party's place in a group (the
    queue's rules: matcher/teams/ruled.py); ``key`` orders the sweep instead of the rating;
    ``split_with`` replaces the split by f (the vector imbalance: matcher/teams/skill.py);
    ``keeps`` refuses the splits that break the rules reading teams (:func:`optimal_split`).

    Notes: O(n log n) for the sort plus O(1) per group for fixed k; this is the paper's
    rho-approximation of the best partition of the whole wave.
    """

    def split(group: Sequence[Party]) -> Lineup | None:
        return optimal_split(group, shape, params, keeps)

    chosen: Splitter = split if split_with is None else split_with
    return group_parties(parties, shape, wrap(chosen) if wrap else chosen, fits, key)
