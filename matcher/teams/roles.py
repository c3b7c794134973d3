"""Role-restricted games: Alman & McKay's rho-approximation by shortest role intervals.

With roles, finding the best game exactly is 3SUM-hard (Alman & McKay, AAMAS 2017).
Their approximation: among the players sorted by rating, take the shortest rating
interval that contains *distinct role representatives*, i.e. two players per role
slot of a team, all different; seat them and split each role's representatives
between the teams so that the strength gap is least. The game is within
rho = 2 k^(1/q) (1 + alpha) of the best game (docs/adr/0034).

Here the representatives are a bipartite matching of players to the 2k slots (a
player may offer several roles); the interval game is played by solo tickets, and
parties of a role queue go through the offline grouping instead (docs/teams.md), unless
``role_parties = "interval"`` plays them in intervals too (:mod:`matcher.teams.role_parties`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from matcher.core import Player
from matcher.teams.imbalance import Imbalance, imbalance


def slot_matching(players: Sequence[Player], slots: Sequence[str]) -> list[int] | None:
    """For each slot, the index of a distinct player who offers it and is rated for it.

    >>> a = Player("a", (("dps", 1),)); b = Player("b", (("dps", 1), ("tank", 1)))
    >>> slot_matching([a, b], ["tank", "dps"])
    [1, 0]
    >>> slot_matching([a, a], ["tank", "dps"]) is None
    True

    Notes: O(slots x edges) augmenting paths (Kuhn); slots = 2k. The augmenting search
    is a module function, not a closure calling itself (a reference cycle per call).
    """
    owner: dict[int, int] = {}  # player index -> slot index
    offers = [
        {role for role in player.offered_roles() if player.rating(role) is not None}
        for player in players
    ]
    for slot in range(len(slots)):
        if not _augment(slot, set(), slots, offers, owner):
            return None
    chosen = [0] * len(slots)
    for index, slot in owner.items():
        chosen[slot] = index
    return chosen


def _augment(
    slot: int, seen: set[int], slots: Sequence[str], offers: list[set[str]], owner: dict[int, int]
) -> bool:
    for index, roles in enumerate(offers):
        if slots[slot] in roles and index not in seen:
            seen.add(index)
            if index not in owner or _augment(owner[index], seen, slots, offers, owner):
                owner[index] = slot
                return True
    return False


def seats_fillable(players: Sequence[Player], roles: tuple[str, ...], team_count: int) -> bool:
    """Whether ``players``, exactly as many as ``team_count`` teams of ``roles`` seat, can
    each take a distinct seat they offer and are rated for, whatever the teams: when they
    cannot, no split of them fills every team's roles (:func:`model.role_slots`), and a
    splitter need not try one.

    >>> tank = Player("t", (("tank", 1),)); dps = Player("d", (("dps", 1),))
    >>> seats_fillable([tank, dps, tank, dps], ("tank", "dps"), 2)
    True
    >>> seats_fillable([dps, dps, tank, dps], ("tank", "dps"), 2)
    False

    Notes: one :func:`slot_matching`, O(k^2 x players) for teams of k.
    """
    slots = list(roles) * team_count
    return len(players) == len(slots) and slot_matching(players, slots) is not None


def shortest_role_interval(
    players: Sequence[Player], ratings: Sequence[int], roles: tuple[str, ...]
) -> tuple[int, int, list[int]] | None:
    """The shortest run ``lo..hi`` of ``players`` (sorted by ``ratings``) holding 2 x ``roles``.

    Returns (lo, hi, matched player per slot of ``roles + roles``); ties go to the
    lowest ``lo``. None when the whole list holds no representatives.

    Notes: two pointers, O(n) matchings of O(k) slots over at most n players each;
    O(n^2 k) worst case, O(n k^2) when intervals are short.
    """
    slots = list(roles) + list(roles)
    best: tuple[int, int, list[int]] | None = None
    hi = 0
    for lo in range(len(players)):
        hi = max(hi, lo + len(slots) - 1)
        matched = None
        while hi < len(players):
            matched = slot_matching(players[lo : hi + 1], slots)
            if matched is not None:
                break
            hi += 1
        if matched is None:
            break  # a later start has fewer players: no interval from here on
        if best is None or ratings[hi] - ratings[lo] < ratings[best[1]] - ratings[best[0]]:
            best = (lo, hi, [lo + index for index in matched])
    return best


def split_representatives(
    matched: Sequence[int], ratings: Sequence[int], roles: tuple[str, ...], params: Imbalance
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Split the slot holders into two teams, each filling ``roles``, with the least f.

    ``matched[s]`` holds slot ``s`` of ``roles + roles``. Returns the two teams as
    player indices in ``roles`` order.

    >>> split_representatives([0, 1, 2, 3], [10, 20, 12, 19], ("tank", "dps"), Imbalance())
    ((0, 1), (2, 3))

    Notes: O(prod over roles of C(2c, c)) for c slots per role; constant for fixed k.
    """
    by_role: dict[str, list[int]] = {}
    for slot, index in enumerate(matched):
        by_role.setdefault((roles + roles)[slot], []).append(index)
    names = list(dict.fromkeys(roles))
    choices = [
        [set(pick) for pick in itertools.combinations(by_role[name], roles.count(name))]
        for name in names
    ]
    best: tuple[float, tuple[tuple[int, ...], tuple[int, ...]]] | None = None
    for picks in itertools.product(*choices):
        first = _in_role_order(roles, names, [sorted(p) for p in picks])
        rest = [sorted(set(by_role[name]) - pick) for name, pick in zip(names, picks, strict=True)]
        second = _in_role_order(roles, names, rest)
        value = imbalance([[ratings[i] for i in first], [ratings[i] for i in second]], params)
        if best is None or value < best[0]:
            best = (value, (first, second))
    assert best is not None  # every role has 2c holders, so one split exists
    return best[1]


def _in_role_order(
    roles: tuple[str, ...], names: list[str], picks: list[list[int]]
) -> tuple[int, ...]:
    queues = {name: list(pick) for name, pick in zip(names, picks, strict=True)}
    return tuple(queues[role].pop(0) for role in roles)
