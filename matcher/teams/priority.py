"""Priority tickets first: a team wave's lineups mended so that no party left out has a
higher priority than a matched party of its size it could replace (docs/adr/0162).

The sweep builds its groups by rating; this pass then swaps each left-out party, highest
priority first, into the match of the lowest-priority party of its size whose group,
re-split with the strategy's own splitter, still keeps every rule. A party it displaces
is tried again the same way, so the pass ends only when no such swap is left. Every swap
raises the matched priorities, so it ends; it keeps the number of matches and of seats,
and the strategy's completion then looks again for matches among the parties left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from matcher.teams.grouping import Splitter
from matcher.teams.model import Lineup, Party

#: Whether a re-split group may become a match (the strategy's acceptor).
Accept = Callable[[Sequence[Party], Lineup], bool]


def prioritized(
    parties: Sequence[Party],
    lineups: Sequence[Lineup],
    split: Splitter,
    accept: Accept,
    complete: Callable[[list[Lineup]], list[Lineup]] | None = None,
) -> list[Lineup]:
    """``lineups`` (indices into ``parties``) after every priority swap ``split`` allows,
    and every match ``complete`` then finds among the parties the swaps left out (they
    may fit together where the parties they replaced did not), swapped again in turn.

    Notes: without two priorities among the parties it costs O(parties); otherwise each
    left-out party tries each matched party of lower priority once, and again only in a
    lineup a swap has changed since.
    """
    result = list(lineups)
    if len({party.priority for party in parties}) < 2:
        return result
    while True:
        result = _swapped(parties, result, split, accept)
        more = complete(result) if complete is not None else result
        if len(more) == len(result):  # each round adds a match: it ends
            return result
        result = more


def _swapped(
    parties: Sequence[Party], lineups: Sequence[Lineup], split: Splitter, accept: Accept
) -> list[Lineup]:
    result = list(lineups)
    matched = {i for lineup in result for team in lineup.teams for i in team}
    # (party, the lineups it has still to try; None: every one)
    pending: list[tuple[int, set[int] | None]] = [
        (i, None) for i in range(len(parties)) if i not in matched
    ]
    tried: list[int] = []  # parties with no swap into any lineup as it is now
    while pending:
        pending.sort(key=lambda entry: (parties[entry[0]].priority, -parties[entry[0]].order))
        high, where = pending.pop()  # the highest priority, earliest in the log
        swap = _best_swap(parties, result, high, split, accept, where)
        if swap is None:
            tried.append(high)
            continue
        position, displaced, lineup = swap
        result[position] = lineup
        pending = [(i, None if w is None else w | {position}) for i, w in pending]
        pending += [(i, {position}) for i in tried]
        pending.append((displaced, None))
        tried = []
    return result


def _best_swap(
    parties: Sequence[Party],
    lineups: Sequence[Lineup],
    high: int,
    split: Splitter,
    accept: Accept,
    where: set[int] | None,
) -> tuple[int, int, Lineup] | None:
    """The first legal swap of ``high`` for a lower-priority party of its size in the
    lineups ``where`` (None: all), lowest priority (then latest in the log) first: the
    party in the other's seats, else the group re-split; (position, displaced, lineup)."""
    want = parties[high]
    places = [
        (position, index)
        for position, lineup in enumerate(lineups)
        if where is None or position in where
        for team in lineup.teams
        for index in team
        if parties[index].priority < want.priority and parties[index].size == want.size
    ]
    places.sort(key=lambda place: (parties[place[1]].priority, -parties[place[1]].order))
    for position, low in places:
        old = lineups[position]
        members = [high if i == low else i for team in old.teams for i in team]
        group = [parties[i] for i in members]
        local = {index: n for n, index in enumerate(members)}
        seated = Lineup(
            tuple(tuple(local[high if i == low else i] for i in team) for team in old.teams),
            old.roles,
        )
        # Same seats first: it is what the live checker tries (no roles to re-deal).
        lineup: Lineup | None = seated
        if any(role for roles in old.roles for role in roles) or not accept(group, seated):
            lineup = split(group)
        if lineup is None or not accept(group, lineup):
            continue
        teams = tuple(tuple(members[i] for i in team) for team in lineup.teams)
        return position, low, Lineup(teams, lineup.roles)
    return None
