"""Which parties play together: a wave cut into match-sized groups of close ratings.

Parties are sorted by mean rating and swept once; a group takes the next parties that
fit (a party too big for the room left, or for the team capacities, waits for the
next group) until it holds a full match, and is then handed to a splitter (a rebalance
method, or the optimal imbalance split). When the splitter finds no lineup (roles that
cannot be filled), the last party added is set aside for that group and the sweep
looks further; after ``2 x match size`` failures the group's first party is left out.
When the rules say what every party joining a group must be (the room left is all for
healers; the group's language is now the only way its rule can hold), the sweep jumps
to the next such party through an index of the wave's order, so the parties the group
cannot take are neither judged nor counted against its refusals.

Before the sweep, in a strict queue, the newest tickets (fewest waves waited, latest
in the log) are held back until the players left fill whole matches, so a wave never
leaves the longest-waiting tickets out just because of where they fall in the order.
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from matcher.rulelogic import carries
from matcher.teams.model import Lineup, Party, TeamShape

Splitter = Callable[[Sequence[Party]], Lineup | None]
#: Whether a party may join a group's members (a queue's rules, matcher/teams/ruled.py).
Fits = Callable[[Sequence[Party], Party], bool]


@dataclass(frozen=True, slots=True)
class Need:
    """What every player of a party joining a group must be for the group's rules to
    hold: carry ``value`` in ``attribute`` (``kind`` "carries"), give no other value of
    ``attribute`` than ``value`` ("only"), or have a latency to the region ``attribute``
    of at most ``value`` ms, or none known ("latency")."""

    kind: str
    attribute: str
    value: str | float

    def admits(self, party: Party) -> bool:
        # Plain loops: the sweep asks this of most parties of a wave, one player each.
        name, value = self.attribute, self.value
        if self.kind == "only":
            for player in party.players:
                given = player.attribute(name)
                if given is not None and given != value:
                    return False
        elif self.kind == "latency":
            limit = float(value)
            for player in party.players:
                ms = player.latency_to(name)
                if ms is not None and ms > limit:
                    return False
        else:
            for player in party.players:
                given = player.attribute(name)
                if given is None or not carries(given, str(value)):
                    return False
        return True


class GuidedFits(ABC):
    """A ``fits`` that also says what its group still needs of any party joining it
    (:class:`Need`, all of them): ``fits`` refuses every party one of them does not admit."""

    @abstractmethod
    def __call__(self, members: Sequence[Party], candidate: Party) -> bool: ...

    @abstractmethod
    def needs(self, members: Sequence[Party]) -> tuple[Need, ...]: ...

    def least_carriers(self) -> tuple[tuple[Callable[[Party], int], float], ...]:
        """Per rule every match must keep, whatever its wait: how many of a party's
        players carry what the rule counts, and the fewest carriers a match holds. A
        grouping whose parties left carry fewer can make no more matches."""
        return ()


#: Parties ``fits`` refuses before a group gives up: bounds the scan for a group that no
#: party of the rest can complete (the head is then left out), which would otherwise
#: read the whole wave for every head.
MAX_REFUSED_PER_MATCH_SEAT = 4


def group_parties(
    parties: Sequence[Party],
    shape: TeamShape,
    split: Splitter,
    fits: Fits | None = None,
    key: Callable[[Party], float] | None = None,
) -> list[Lineup]:
    """Cut ``parties`` into lineups (indices into ``parties``) with ``split``.

    ``fits``, when given, keeps a party out of a group it cannot join (the sweep then
    looks further), so groups are built within the queue's rules rather than refused.
    ``key``, when given, replaces the mean rating as the sweep's order (the queue's soft
    ``sort`` preferences, :func:`matcher.teams.ruled.preference_key`).

    Lineups come in ascending rating order. Every party is in at most one lineup.

    Notes: O(n log n) for the sort plus one pass; each group costs one ``split`` call
    (more when roles reject lineups). Parties held back or left out are simply absent.
    """
    by = key or _mean
    order = sorted(range(len(parties)), key=lambda i: (by(parties[i]), parties[i].order))
    if shape.strict:
        held = set(_held_back(parties, shape))
        order = [i for i in order if i not in held]
    taken = [False] * len(parties)
    lineups: list[Lineup] = []
    lanes = _Lanes(parties, order) if isinstance(fits, GuidedFits) else None
    head = 0
    # Players not yet taken at or after head (all of them: taken ones are never before it):
    # kept as a count, so that each failed group costs O(1) here, not a pass over the rest.
    left = sum(parties[i].size for i in order)
    # Likewise the carriers left of each rule every match must keep (a healer in each
    # team): once fewer are left than a match holds, every head left would fail.
    scarce = fits.least_carriers() if isinstance(fits, GuidedFits) else ()
    carriers = [list(map(count, parties)) for count, _ in scarce]
    carried = [sum(map(counts.__getitem__, order)) for counts in carriers]
    least = [fewest for _, fewest in scarce]
    while True:
        while head < len(order) and taken[order[head]]:
            head += 1
        if head == len(order) or any(map(operator.lt, carried, least)):
            return lineups
        group = _fill_group(parties, shape, order, head, taken, split, fits, lanes)
        if group is None:
            if left < shape.match_min:
                return lineups
            members = [order[head]]  # cannot complete a match: left out this wave
        else:
            members, lineup = group
            lineups.append(
                Lineup(
                    tuple(tuple(members[i] for i in team) for team in lineup.teams), lineup.roles
                )
            )
        for index in members:
            taken[index] = True
            left -= parties[index].size
            for rule, counts in enumerate(carriers):
                carried[rule] -= counts[index]


def _fill_group(
    parties: Sequence[Party],
    shape: TeamShape,
    order: Sequence[int],
    head: int,
    taken: Sequence[bool],
    split: Splitter,
    fits: Fits | None,
    lanes: _Lanes | None = None,
) -> tuple[list[int], Lineup] | None:
    """The first group from ``head`` that fills a match and splits; None if none does."""
    excluded: set[int] = set()
    for _ in range(2 * shape.match_max + 1):
        members = _collect(parties, shape, order, head, taken, excluded, fits, lanes)
        if members is None:
            return None
        lineup = split([parties[i] for i in members])
        if lineup is not None:
            return members, lineup
        if len(members) == 1:
            return None
        excluded.add(members[-1])
    return None


def _collect(
    parties: Sequence[Party],
    shape: TeamShape,
    order: Sequence[int],
    head: int,
    taken: Sequence[bool],
    excluded: set[int],
    fits: Fits | None = None,
    lanes: _Lanes | None = None,
) -> list[int] | None:
    members: list[int] = []
    # The members' parties, grown with ``members``: ``fits`` reads them for every
    # candidate, most of which it refuses.
    chosen: list[Party] = []
    sizes: list[int] = []
    count = 0
    refusals = MAX_REFUSED_PER_MATCH_SEAT * shape.match_max
    seats, solos = shape.team_count * shape.size_max, True
    guide = fits if lanes is not None and isinstance(fits, GuidedFits) else None
    # The positions of ``order`` still to visit: all of them, or once the group needs
    # something of every party that joins it, only those of the parties that have it.
    # The needs are asked at the group's first refusal after it grows (most groups grow
    # without one); they only grow with the group, so the positions stay the right ones.
    positions: Sequence[int] = range(head, len(order))
    step, asked = 0, False
    while step < len(positions):
        position = positions[step]
        step += 1
        index = order[position]
        if taken[index] or index in excluded:
            continue
        party = parties[index]
        size = party.size
        if count + size > shape.match_max:
            continue
        # Solos always pack while they fit in the seats (one to each team in turn).
        if not (solos and size == 1 and count < seats) and not packable(
            tuple(sorted((*sizes, size), reverse=True)), shape.team_count, shape.size_max
        ):
            continue
        if fits is not None and not fits(chosen, party):
            if guide is not None and lanes is not None and members and not asked:
                asked = True
                wanted = guide.needs(chosen)
                if wanted:
                    positions = lanes.of(wanted)
                    step = bisect_right(positions, position)
                    if not all(need.admits(party) for need in wanted):
                        continue  # a party the group cannot take: not a refusal of a fit
            refusals -= 1
            if refusals < 0 or not members:  # a head no group can take ends its search
                break
            continue
        members.append(index)
        chosen.append(party)
        sizes.append(size)
        solos = solos and size == 1
        count += size
        asked = False
        if count == shape.match_max:
            return members
    if not shape.strict and count >= shape.match_min and members:
        return members
    return None


class _Lanes:
    """Per set of needs, the positions in the sweep's order of the parties every need
    admits: built once per grouping when a group first needs it (a pass over the order),
    so a group that needs a healer goes from healer to healer."""

    def __init__(self, parties: Sequence[Party], order: Sequence[int]) -> None:
        self._parties, self._order = parties, order
        self._lanes: dict[tuple[Need, ...], list[int]] = {}

    def of(self, needs: tuple[Need, ...]) -> list[int]:
        lane = self._lanes.get(needs)
        if lane is None:
            parties, order, last = self._parties, self._order, needs[-1]
            wider = self.of(needs[:-1]) if len(needs) > 1 else range(len(order))
            lane = self._lanes[needs] = [p for p in wider if last.admits(parties[order[p]])]
        return lane


@lru_cache(maxsize=4096)
def packable(sizes: tuple[int, ...], bins: int, capacity: int) -> bool:
    """Whether parties of ``sizes`` (sorted descending) fit into ``bins`` teams of ``capacity``.

    >>> packable((3, 3, 3), 2, 5), packable((3, 3, 2, 2), 2, 5)
    (False, True)

    Notes: exponential in len(sizes) in the worst case, memoised; a match has few parties.
    """
    fill = [0] * bins

    def place(index: int) -> bool:
        if index == len(sizes):
            return True
        tried: set[int] = set()
        for b in range(bins):
            if fill[b] in tried or fill[b] + sizes[index] > capacity:
                continue
            tried.add(fill[b])
            fill[b] += sizes[index]
            if place(index + 1):
                return True
            fill[b] -= sizes[index]
        return False

    return place(0)


def _held_back(parties: Sequence[Party], shape: TeamShape) -> list[int]:
    """Newest parties whose players make the wave's surplus over whole matches."""
    surplus = sum(party.size for party in parties) % shape.match_max
    newest_first = sorted(
        range(len(parties)), key=lambda i: (parties[i].wait_cycles, -parties[i].order)
    )
    held: list[int] = []
    for index in newest_first:
        if surplus == 0:
            break
        if parties[index].size <= surplus:
            held.append(index)
            surplus -= parties[index].size
    return held


def _mean(party: Party) -> float:
    return party.mean
