"""Completion of a team wave: the parties a strategy's grouping left out are searched
exhaustively, within a budget, for the matches it missed.

The strategies group parties by a sweep in rating order (and hold the newest back,
ADR 0038); with strict sizes, parties of several players or the queue's rules that sweep
can leave every party out although a valid match exists. Completion tries the left-out
parties' subsets in priority order (most waves waited, then log order), so the first
match it finds seats the longest-waiting parties it can, and among that subset's splits
the one of least imbalance (docs/adr/0102).

A caller that knows which first parties no subset can be admitted with (the queue's rules
that adding players never mends, :func:`matcher.teams.ruled.group_admission`) passes
``hopeless``: the search then skips those subsets together and charges the budget for
each of them, so it finds what the one-by-one search finds and stops where it stops.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

from matcher.teams.asymmetric import asymmetric_splits
from matcher.teams.imbalance import Imbalance, imbalance, team_rating_diff
from matcher.teams.model import (
    Lineup,
    Party,
    TeamShape,
    every_role_slots,
    lineup_with_roles,
    role_options,
    team_ratings,
)
from matcher.teams.roles import seats_fillable
from matcher.teams.split import Split, split_table

#: Subsets and splits tried per wave at most: bounds a large wave whose left-out parties
#: admit no match (small waves are searched exhaustively well within it).
MAX_SPLITS = 5_000

Accept = Callable[[Sequence[Party], Lineup], bool]
Admit = Callable[[Sequence[Party]], bool]
#: Whether no group holding these parties (a subset's first parties, in its order) plus
#: any parties joined at or after the given time (ms) passes ``admit``.
Hopeless = Callable[[Sequence[Party], int], bool]
#: The value a split is chosen by (least first), when not the imbalance f.
Value = Callable[[Sequence[Party], Lineup], float]


def complete(
    parties: Sequence[Party],
    lineups: Sequence[Lineup],
    shape: TeamShape,
    params: Imbalance,
    accept: Accept,
    admit: Admit | None = None,
    value: Value | None = None,
    hopeless: Hopeless | None = None,
    *,
    reseat: Accept | None = None,
) -> list[Lineup]:
    """``lineups`` plus every match completion finds among the parties they leave out.

    Only strict shapes are completed (every match has ``match_max`` players).
    ``accept`` judges a split; ``admit``, when given, a group before its splits are tried
    (what no split can mend, such as an attribute rule); ``value``, when given, ranks a
    group's splits instead of f; ``hopeless``, when given, must be implied by ``admit``
    failing for every group it describes. ``reseat``, when given: ``accept`` reads the
    seats' ratings (a rating limit in a role queue), and ``reseat`` judges the rest of it;
    a split ``accept`` refuses in its best-rated seating and ``reseat`` takes is tried in
    its other seatings (:func:`~matcher.teams.model.every_role_slots`), each charged to
    the budget as a split.

    >>> from matcher.core import Player
    >>> duo = lambda i, r: Party(f"t{i}", tuple(Player(f"p{i}{j}", (("x", r),))
    ...     for j in range(2)), (r, r), 0, 0, i)
    >>> solo = lambda i, r: Party(f"t{i}", (Player(f"p{i}", (("x", r),)),), (r,), 0, 0, i)
    >>> wave = [duo(0, 10), duo(1, 10), solo(2, 10), solo(3, 10)]
    >>> complete(wave, [], TeamShape(2, 3, 3), Imbalance(), lambda g, l: True)
    [Lineup(teams=((0, 2), (1, 3)), roles=(('', '', ''), ('', '', '')))]

    Notes: at most MAX_SPLITS subsets and splits, each O(match size).
    """
    if not shape.strict:
        return list(lineups)
    taken = {i for lineup in lineups for team in lineup.teams for i in team}
    rest = sorted(
        (i for i in range(len(parties)) if i not in taken),
        key=lambda i: (-parties[i].wait_cycles, parties[i].order),
    )
    budget = [MAX_SPLITS]
    found: list[Lineup] = list(lineups)
    while sum(parties[i].size for i in rest) >= shape.match_max and budget[0] > 0:
        lineup = _first_match(
            parties, rest, shape, params, accept, admit, budget, value, hopeless, reseat
        )
        if lineup is None:
            break
        found.append(lineup)
        used = {i for team in lineup.teams for i in team}
        rest = [i for i in rest if i not in used]
    return found


def _first_match(
    parties: Sequence[Party],
    rest: Sequence[int],
    shape: TeamShape,
    params: Imbalance,
    accept: Accept,
    admit: Admit | None,
    budget: list[int],
    value_of: Value | None = None,
    hopeless: Hopeless | None = None,
    reseat: Accept | None = None,
) -> Lineup | None:
    for subset, count in _subsets(parties, rest, shape.match_max, hopeless):
        budget[0] -= count  # a subset no split fits costs its packing test
        if budget[0] < 0:
            return None
        if subset is None:
            continue  # ``count`` subsets, every one refused by ``admit``
        group = [parties[i] for i in subset]
        if admit is not None and not admit(group):
            continue
        best: tuple[float, Lineup] | None = None
        if _roles_unfillable(group, shape):
            # Each of its splits would fail its roles and cost the budget one, as before.
            budget[0] -= len(_splits(group, shape))
            if budget[0] < 0:
                return None
            continue
        for lineup in _lineups(group, shape):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if lineup is None:
                continue
            if not accept(group, lineup):
                seated = reseat is not None and reseat(group, lineup)
                lineup = _reseated(group, lineup, shape, accept, budget) if seated else None
                if budget[0] < 0:
                    return None
                if lineup is None:
                    continue
            ratings = team_ratings(group, lineup)
            # Teams of different sizes compare by their means: f compares team totals.
            if value_of is not None:
                value = value_of(group, lineup)
            elif shape.sizes:
                value = team_rating_diff(ratings)
            else:
                value = imbalance(ratings, params)
            if best is None or value < best[0]:
                best = (value, lineup)
        if best is not None:
            lineup = best[1]
            teams = tuple(tuple(subset[i] for i in team) for team in lineup.teams)
            return Lineup(teams, lineup.roles)
    return None


def _lineups(group: Sequence[Party], shape: TeamShape) -> Iterator[Lineup | None]:
    """Every split of ``group`` into the shape's full teams (None: one whose roles fail)."""
    if shape.sizes:
        yield from asymmetric_splits(group, shape)
        return
    options = [role_options(party, shape.roles) for party in group] if shape.roles else []
    for split in _splits(group, shape):
        yield lineup_with_roles(group, split, shape.roles, options)


def _reseated(
    group: Sequence[Party], lineup: Lineup, shape: TeamShape, accept: Accept, budget: list[int]
) -> Lineup | None:
    """The first other seating of ``lineup``'s split (best-rated first) that ``accept``
    takes, each tried charged to ``budget``; None when none is."""
    seatings = [
        every_role_slots([p for i in team for p in group[i].players], shape.roles_of(number))
        for number, team in enumerate(lineup.teams)
    ]
    for roles in itertools.product(*seatings):
        if roles == lineup.roles:
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return None
        seated = Lineup(lineup.teams, roles)
        if accept(group, seated):
            return seated
    return None


def _splits(group: Sequence[Party], shape: TeamShape) -> tuple[Split, ...]:
    """The splits :func:`_lineups` tries for a symmetric shape, in its order."""
    sizes = tuple(p.size for p in group)
    return split_table(sizes, shape.team_count, shape.size_max, shape.size_max, ())


def _roles_unfillable(group: Sequence[Party], shape: TeamShape) -> bool:
    """Whether no split of ``group`` (a full match of a symmetric role shape) fills its
    roles: then every split :func:`_lineups` yields is None."""
    if not shape.roles or shape.sizes:
        return False
    players = [player for party in group for player in party.players]
    return not seats_fillable(players, shape.roles, shape.team_count)


def _subsets(
    parties: Sequence[Party], rest: Sequence[int], players: int, hopeless: Hopeless | None
) -> Iterator[tuple[list[int] | None, int]]:
    """Subsets of ``rest`` with exactly ``players`` players, in lexicographic priority
    order, each with 1; a run of them that ``hopeless`` rules out as (None, its length)."""
    sizes = [parties[i].size for i in rest]
    # ways[p][s]: how many subsets of rest[p:] hold exactly s players.
    ways = [[0] * (players + 1) for _ in range(len(rest) + 1)]
    ways[len(rest)][0] = 1
    # earliest[p]: the earliest join among rest[p:] (what a group may still add).
    earliest = [0] * (len(rest) + 1)
    earliest[len(rest)] = 2**63
    for p in range(len(rest) - 1, -1, -1):
        after, row, size = ways[p + 1], ways[p], sizes[p]
        for s in range(players + 1):
            row[s] = after[s] + (after[s - size] if s >= size else 0)
        earliest[p] = min(earliest[p + 1], parties[rest[p]].joined_at_ms)
    chosen: list[int] = []

    def extend(start: int, total: int) -> Iterator[tuple[list[int] | None, int]]:
        if total == players:
            yield list(chosen), 1
            return
        for position in range(start, len(rest)):
            size = sizes[position]
            if total + size > players or not ways[position + 1][players - total - size]:
                continue
            chosen.append(rest[position])
            if (
                hopeless is not None
                and total + size < players
                and hopeless([parties[i] for i in chosen], earliest[position + 1])
            ):
                yield None, ways[position + 1][players - total - size]
            else:
                yield from extend(position + 1, total + size)
            chosen.pop()

    return extend(0, 0)
