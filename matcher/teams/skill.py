"""Multi-dimensional skill for game-queue: several named ratings per player, one imbalance.

With ``skill_dimensions = {aim = 1.0, tactics = 0.5}`` every player is read on each
named rating of their ratings map (no new field: the map already holds named ratings).
The imbalance of a game is the weighted sum of Alman & McKay's f per dimension,
``F(X, Y) = sum_d w_d * f(X_d, Y_d)``, so each dimension's team gap and spread count
at its weight, and a single dimension of weight 1 is f itself (docs/adr/0189). Players
are ordered, seated and held to the queue's rules on their *composite* rating, the
weighted mean ``sum_d w_d r_d / sum_d w_d`` rounded to an integer, kept under the
rating key :data:`COMPOSITE`. A ticket with a player lacking a dimension cannot play
in the queue and stays queued.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from matcher.core import Player, WaveSnapshot
from matcher.teams.imbalance import Imbalance, imbalance
from matcher.teams.model import Lineup, Party
from matcher.teams.split import team_splits

#: (name, weight) per dimension, in the order the option lists them.
Dimensions = tuple[tuple[str, float], ...]
#: The rating key a player's composite rating is seated under.
COMPOSITE = "skill"
#: A seated player's ratings per dimension, by (ticket id, player id).
Vectors = Mapping[tuple[str, str], tuple[int, ...]]


def parse_dimensions(value: object) -> Dimensions:
    """The ``skill_dimensions`` option: a table of rating names to weights > 0.

    >>> parse_dimensions({"aim": 1.0, "tactics": 0.5})
    (('aim', 1.0), ('tactics', 0.5))
    >>> parse_dimensions({"aim": 0})
    Traceback (most recent call last):
    ValueError: options.skill_dimensions: weight of 'aim' must be a number > 0 (got 0)
    """
    where = "options.skill_dimensions"
    if not isinstance(value, Mapping) or not value:
        raise ValueError(f"{where}: must be a table of rating names to weights (got {value!r})")
    dimensions = []
    for name, weight in value.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}: rating names must be non-empty strings (got {name!r})")
        number = isinstance(weight, int | float) and not isinstance(weight, bool)
        if not number or not math.isfinite(weight) or weight <= 0:
            raise ValueError(f"{where}: weight of {name!r} must be a number > 0 (got {weight!r})")
        dimensions.append((name, float(weight)))
    return tuple(dimensions)


def skill_vector(player: Player, dimensions: Dimensions) -> tuple[int, ...] | None:
    """The player's rating in each dimension, or None when one is missing.

    >>> skill_vector(Player("p", (("aim", 1600), ("tactics", 1400))), (("aim", 1.0),))
    (1600,)
    """
    values = [player.rating(name) for name, _ in dimensions]
    if any(value is None for value in values):
        return None
    return tuple(value for value in values if value is not None)


def composite(vector: Sequence[int], dimensions: Dimensions) -> int:
    """The weighted mean of a player's dimensions, rounded: the rating they are seated on.

    >>> composite((1600, 1300), (("aim", 1.0), ("tactics", 0.5)))
    1500
    """
    total = sum(weight for _, weight in dimensions)
    return round(sum(value * w for value, (_, w) in zip(vector, dimensions, strict=True)) / total)


def skill_imbalance(
    teams: Sequence[Sequence[Sequence[int]]], dimensions: Dimensions, params: Imbalance
) -> float:
    """F: the weighted sum over dimensions of f on that dimension's ratings.

    ``teams[t][s]`` is the vector of seat ``s`` of team ``t``.

    >>> skill_imbalance([[(10, 0)], [(14, 4)]], (("a", 1.0), ("b", 0.5)), Imbalance(q=math.inf))
    9.0

    Notes: O(dimensions x players).
    """
    return sum(
        weight * imbalance([[seat[d] for seat in team] for team in teams], params)
        for d, (_, weight) in enumerate(dimensions)
    )


def skilled_snapshot(
    snapshot: WaveSnapshot, dimensions: Dimensions
) -> tuple[WaveSnapshot, dict[tuple[str, str], tuple[int, ...]]]:
    """``snapshot`` with every player rated on their composite alone, and their vectors.

    Tickets with a player lacking a dimension are left out (the strategy's result lists
    them as unmatched from the whole wave).

    Notes: O(players x dimensions).
    """
    vectors: dict[tuple[str, str], tuple[int, ...]] = {}
    kept = []
    for waiting in snapshot.tickets:
        ticket = waiting.ticket
        found = [skill_vector(player, dimensions) for player in ticket.players]
        if any(vector is None for vector in found):
            continue
        players = []
        for player, vector in zip(ticket.players, found, strict=True):
            assert vector is not None
            vectors[(ticket.ticket_id, player.player_id)] = vector
            rated = ((COMPOSITE, composite(vector, dimensions)),)
            players.append(replace(player, ratings=rated, roles=()))
        kept.append(replace(waiting, ticket=replace(ticket, players=tuple(players))))
    return replace(snapshot, tickets=tuple(kept)), vectors


def lineup_vectors(
    parties: Sequence[Party], lineup: Lineup, vectors: Vectors
) -> list[list[tuple[int, ...]]]:
    """Each team's seat vectors, in seat order."""
    return [
        [
            vectors[(parties[i].ticket_id, player.player_id)]
            for i in team
            for player in parties[i].players
        ]
        for team in lineup.teams
    ]


def skill_split(
    group: Sequence[Party], k: int, dimensions: Dimensions, params: Imbalance, vectors: Vectors
) -> Lineup | None:
    """The split of all ``group`` into two teams of ``k`` with the least F (first on ties).

    Notes: O(C(2k, k)) splits for solos, fewer with parties; each O(dimensions x 2k).
    """
    best: tuple[float, Lineup] | None = None
    for teams in team_splits([party.size for party in group], 2, k, k):
        lineup = Lineup(
            teams, tuple(tuple("" for i in team for _ in group[i].players) for team in teams)
        )
        value = skill_imbalance(lineup_vectors(group, lineup, vectors), dimensions, params)
        if best is None or value < best[0]:
            best = (value, lineup)
    return None if best is None else best[1]
