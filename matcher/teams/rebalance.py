"""Rebalance: split a chosen set of parties into teams, the way AccelByte documents it.

The criterion, in order: the member-count difference between the largest and the
smallest team, then the distance between the teams' mean ratings (the largest gap
between two teams' means). Three methods:

* ``permutation`` (relaxed sizes, backfill): try party sequences; each sequence deals
  its parties to the teams in turn ("horizontally"), skipping full teams;
* ``combination`` (strict sizes, small matches): every way to fill team 1, then team 2
  ("vertically"); the best over all sequences is the best exact fill, which we
  enumerate directly (docs/adr/0031);
* ``greedy`` (strict sizes, large matches): parties by total rating, descending, each
  to the team with the lowest total that still has room.

Ties keep the first composition found. With roles, a composition is kept only if
every team can fill distinct role slots its players offer; with ``keeps`` (the queue's
rules that read teams, such as at least one healer per team), only if it keeps them, so
the best-balanced split that keeps them is chosen.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence

from matcher.teams.model import Keeps, Lineup, Party, TeamShape, lineup_with_roles, role_slots
from matcher.teams.split import Split, least_first, split_table

METHODS = ("auto", "permutation", "combination", "greedy")
#: "auto" uses combination up to this many players in the match, greedy above.
COMBINATION_MAX_PLAYERS = 12
#: Default cap on the sequences the permutation method tries (7! = 5040).
DEFAULT_MAX_SEQUENCES = 5040

Key = tuple[int, float]


def composition_key(teams: Sequence[Sequence[float]]) -> Key:
    """(member-count difference, distance between team mean ratings), smaller is better.

    The distance is rounded to 1e-9 so that equal compositions reached by different
    summation orders compare equal, keeping the first-found tie-break exact.

    >>> composition_key([[60, 60, 60, 40, 40, 70, 50], [50, 50, 50, 70, 70, 60, 40]])
    (0, 1.428571429)
    >>> composition_key([[70, 10], [40]])
    (1, 0.0)
    """
    sizes = [len(team) for team in teams]
    means = [sum(team) / len(team) for team in teams if team]
    distance = max(means) - min(means) if means else 0.0
    return (max(sizes) - min(sizes), round(distance, 9))


def choose_method(method: str, shape: TeamShape, players: int) -> str:
    """Resolve "auto": permutation for relaxed sizes, else combination up to 12 players.

    >>> choose_method("auto", TeamShape(2, 5, 5), 10), choose_method("auto", TeamShape(2, 7, 7), 14)
    ('combination', 'greedy')
    """
    if method != "auto":
        return method
    if not shape.strict:
        return "permutation"
    return "combination" if players <= COMBINATION_MAX_PLAYERS else "greedy"


def rebalance(
    parties: Sequence[Party],
    shape: TeamShape,
    method: str = "auto",
    rng: random.Random | None = None,
    max_sequences: int = DEFAULT_MAX_SEQUENCES,
    keeps: Keeps | None = None,
) -> Lineup | None:
    """Split ``parties`` (all of them) into the shape's teams with ``method``; None if impossible.

    ``keeps``, when given, refuses a split (greedy's one split, or the others' candidates).

    Notes: greedy O(n log n + n t); combination O(t^n) worst case (every exact fill);
    permutation O(min(n!, max_sequences) * n) for n parties and t teams.
    """
    players = sum(party.size for party in parties)
    chosen = choose_method(method, shape, players)
    if chosen == "greedy":
        lineup = greedy(parties, shape)
        return lineup if lineup is None or keeps is None or keeps(parties, lineup.teams) else None
    if chosen == "combination":
        return combination(parties, shape, keeps=keeps)
    if chosen == "permutation":
        return permutation(parties, shape, rng=rng, max_sequences=max_sequences, keeps=keeps)
    raise ValueError(f"method: unknown rebalance method {method!r} (known: {', '.join(METHODS)})")


def greedy(parties: Sequence[Party], shape: TeamShape) -> Lineup | None:
    """Parties by total rating descending, each to the lowest-total team with room.

    Ties: equal totals keep log order; equal team totals go to the lower team number.
    With roles, a team "has room" only if its players could still fill distinct slots.

    Notes: O(n log n + n t) for n parties and t teams (plus role checks, constant for
    fixed k).
    """
    order = sorted(range(len(parties)), key=lambda i: (-parties[i].total, parties[i].order))
    teams: list[list[int]] = [[] for _ in range(shape.team_count)]
    totals = [0] * shape.team_count
    fill = [0] * shape.team_count
    for index in order:
        party = parties[index]
        room = [
            t
            for t in range(shape.team_count)
            if fill[t] + party.size <= shape.size_max
            and _roles_fit(parties, teams[t], party, shape)
        ]
        if not room:
            return None
        target = min(room, key=lambda t: (totals[t], t))
        teams[target].append(index)
        totals[target] += party.total
        fill[target] += party.size
    if min(fill) < shape.size_min:
        return None
    return lineup_with_roles(parties, teams, shape.roles)


def _roles_fit(parties: Sequence[Party], team: list[int], party: Party, shape: TeamShape) -> bool:
    if not shape.roles:
        return True
    players = [p for i in team for p in parties[i].players] + list(party.players)
    return role_slots(players, shape.roles) is not None


def combination(
    parties: Sequence[Party],
    shape: TeamShape,
    existing: Sequence[Sequence[int]] = (),
    keeps: Keeps | None = None,
) -> Lineup | None:
    """The best exact fill of the teams by the rebalance criterion.

    Equivalent to filling team 1, then team 2, ... over every party sequence: each
    exact fill is what the sequence "team 1's parties, then team 2's, ..." produces,
    and a sequence that leaves a hole leaves a party out (docs/adr/0031).

    Notes: O(t^n) compositions in the worst case; fine below ~12 players.
    """
    base = _existing(existing, shape.team_count)
    splits = split_table(
        tuple(party.size for party in parties),
        shape.team_count,
        shape.size_min,
        shape.size_max,
        tuple(len(members) for members in base),
    )
    return _best_lineup(parties, shape, base, splits, keeps)


def _existing(existing: Sequence[Sequence[int]], team_count: int) -> list[tuple[int, ...]]:
    return [tuple(existing[t]) if t < len(existing) else () for t in range(team_count)]


def _key(
    totals: Sequence[int],
    sizes: Sequence[int],
    split: Split,
    base_totals: Sequence[int],
    base_sizes: Sequence[int],
) -> Key:
    # composition_key from party totals: the same sums, in the same order, and divisions.
    # Loops, not generators: this runs for every split of every group of the wave.
    counts: list[int] = []
    means: list[float] = []
    for t, team in enumerate(split):
        added, size = 0, base_sizes[t]
        for i in team:
            added += totals[i]
            size += sizes[i]
        total = base_totals[t] + added
        counts.append(size)
        if size:
            means.append(total / size)
    distance = max(means) - min(means) if means else 0.0
    return (max(counts) - min(counts), round(distance, 9))


def _best_lineup(
    parties: Sequence[Party],
    shape: TeamShape,
    base: Sequence[tuple[int, ...]],
    splits: Iterable[Split | None],
    keeps: Keeps | None = None,
) -> Lineup | None:
    """The first split of least key whose teams can fill their roles and that ``keeps``."""
    totals = [party.total for party in parties]
    sizes = [party.size for party in parties]
    base_totals = [sum(members) for members in base]
    base_sizes = [len(members) for members in base]
    if keeps is not None:
        unique = [split for split in dict.fromkeys(splits) if split is not None]
        keys = [_key(totals, sizes, split, base_totals, base_sizes) for split in unique]
        return _least_kept_lineup(parties, shape, unique, keys, keeps)
    best: tuple[Key, Split] | None = None
    seen: set[Split] = set()
    for split in splits:
        if split is None or split in seen:
            continue
        seen.add(split)
        key = _key(totals, sizes, split, base_totals, base_sizes)
        if best is not None and not key < best[0]:
            continue
        # Role checks are the costly part: only a split that would win pays for one.
        if shape.roles and lineup_with_roles(parties, split, shape.roles) is None:
            continue
        best = (key, split)
    return None if best is None else lineup_with_roles(parties, best[1], shape.roles)


def _least_kept_lineup(
    parties: Sequence[Party],
    shape: TeamShape,
    unique: Sequence[Split],
    keys: Sequence[Key],
    keeps: Keeps,
) -> Lineup | None:
    """:func:`_best_lineup`'s choice under ``keeps``, over the distinct splits in the order
    first seen and their keys: they are asked in order of (key, first seen), so most
    groups ask ``keeps`` (and the roles) once."""
    for position in least_first(keys):
        split = unique[position]
        if not keeps(parties, split):
            continue
        lineup = lineup_with_roles(parties, split, shape.roles)
        if lineup is not None or not shape.roles:
            return lineup
    return None


def permutation(
    parties: Sequence[Party],
    shape: TeamShape,
    existing: Sequence[Sequence[int]] = (),
    rng: random.Random | None = None,
    max_sequences: int = DEFAULT_MAX_SEQUENCES,
    capacities: Sequence[int] = (),
    keeps: Keeps | None = None,
) -> Lineup | None:
    """The best composition over party sequences dealt to the teams in turn.

    ``existing[t]`` are ratings of members already in team ``t`` (backfill of a running
    match); ``capacities[t]``, when given, is team ``t``'s own size limit (a running
    session's team may be smaller than the shape's), else ``shape.size_max``. Each
    sequence deals parties round-robin from the emptiest team (team 1 when all are
    empty), a party skipping teams without room for it; a sequence that cannot seat a
    party, or leaves a team below its minimum, yields nothing. All n! sequences are tried
    when n! <= ``max_sequences``; otherwise the descending-total order, the log order and
    seeded shuffles, up to ``max_sequences`` in all. When the parties fill the teams
    exactly, every exact fill is some sequence's deal (at each turn deal a party meant
    for the first team not yet full), so trying all n! finds the best exact fill.

    Notes: O(min(n!, max_sequences) * (n + t)) for n parties and t teams.
    """
    base = _existing(existing, shape.team_count)
    limits = tuple(capacities) or (shape.size_max,) * shape.team_count
    splits = (
        _deal(parties, seq, shape, base, limits) for seq in _sequences(parties, rng, max_sequences)
    )
    return _best_lineup(parties, shape, base, splits, keeps)


def _deal(
    parties: Sequence[Party],
    sequence: Sequence[int],
    shape: TeamShape,
    base: Sequence[tuple[int, ...]],
    limits: Sequence[int],
) -> Split | None:
    teams: list[list[int]] = [[] for _ in range(shape.team_count)]
    fill = [len(members) for members in base]
    # Dealing starts at the emptiest team, so a backfill tops up the short team first.
    turn = min(range(shape.team_count), key=lambda t: (fill[t], t))
    for index in sequence:
        size = parties[index].size
        for offset in range(shape.team_count):
            t = (turn + offset) % shape.team_count
            if fill[t] + size <= limits[t]:
                teams[t].append(index)
                fill[t] += size
                turn = t + 1
                break
        else:
            return None
    if min(fill) < shape.size_min:
        return None
    return tuple(tuple(team) for team in teams)


def _sequences(
    parties: Sequence[Party], rng: random.Random | None, max_sequences: int
) -> Iterable[tuple[int, ...]]:
    n = len(parties)
    if math.factorial(n) <= max_sequences:
        yield from itertools.permutations(range(n))
        return
    by_total = tuple(sorted(range(n), key=lambda i: (-parties[i].total, parties[i].order)))
    yield by_total
    yield tuple(range(n))
    shuffler = rng if rng is not None else random.Random(0)
    sequence = list(range(n))
    for _ in range(max(0, max_sequences - 2)):
        shuffler.shuffle(sequence)
        yield tuple(sequence)
