"""Completion of a team wave: the parties a strategy's grouping left out are searched
exhaustively, within a budget, for the matches it missed.

The strategies group parties by a sweep in rating order (and hold the newest back,
ADR 0038); with strict sizes, parties of several players or the queue's rules that sweep
can leave every party out although a valid match exists. Completion tries the left-out
parties' subsets in priority order (most waves waited, then log order), so the first
match it finds seats the longest-waiting parties it can, and among that subset's splits
the one of least imbalance (docs/adr/0102).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from matcher.teams.asymmetric import asymmetric_splits
from matcher.teams.imbalance import Imbalance, imbalance, team_rating_diff
from matcher.teams.model import Lineup, Party, TeamShape, lineup_with_roles, team_ratings
from matcher.teams.roles import seats_fillable
from matcher.teams.split import Split, split_table

#: Subsets and splits tried per wave at most: bounds a large wave whose left-out parties
#: admit no match (small waves are searched exhaustively well within it).
MAX_SPLITS = 5_000

Accept = Callable[[Sequence[Party], Lineup], bool]
Admit = Callable[[Sequence[Party]], bool]
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
) -> list[Lineup]:
    """``lineups`` plus every match completion finds among the parties they leave out.

    Only strict shapes are completed (every match has ``match_max`` players).
    ``accept`` judges a split; ``admit``, when given, a group before its splits are tried
    (what no split can mend, such as an attribute rule); ``value``, when given, ranks a
    group's splits instead of f.

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
        lineup = _first_match(parties, rest, shape, params, accept, admit, budget, value)
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
) -> Lineup | None:
    for subset in _subsets(parties, rest, shape.match_max):
        budget[0] -= 1  # a subset no split fits costs its packing test
        if budget[0] < 0:
            return None
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
            if lineup is None or not accept(group, lineup):
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
    for split in _splits(group, shape):
        yield lineup_with_roles(group, split, shape.roles)


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


def _subsets(parties: Sequence[Party], rest: Sequence[int], players: int) -> Iterator[list[int]]:
    """Subsets of ``rest`` with exactly ``players`` players, in lexicographic priority order."""
    chosen: list[int] = []

    def extend(start: int, total: int) -> Iterator[list[int]]:
        if total == players:
            yield list(chosen)
            return
        for position in range(start, len(rest)):
            size = parties[rest[position]].size
            if total + size <= players:
                chosen.append(rest[position])
                yield from extend(position + 1, total + size)
                chosen.pop()

    return extend(0, 0)
