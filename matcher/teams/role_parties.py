"""Role intervals over parties: Alman & McKay's role-restricted games with parties kept whole.

The solo approximation (:mod:`matcher.teams.roles`) takes the shortest rating interval
holding distinct role representatives. Here every ticket is a *unit* ordered by its
mean matching rating, and an interval holds a game when some of its units, each party
whole on one team, fill both teams' role slots. The wave plays the game of least f in
the shortest such interval, removes it, and repeats until no interval holds a game
(``role_parties = "interval"``, docs/adr/0188). The games' intervals therefore never
shrink from one game to the next: the live checker holds the wave to that.

A window is searched depth first (each unit to the first team, the second or neither),
pruned by team sizes and by each team's role slots; a window whose players cannot
cover twice the slots of some role is skipped before any search. The search is bounded
by ``MAX_NODES`` per window; a wave that reaches it says so in its stats
(``role_interval_truncated``) and its left-over tickets go to the offline grouping.
"""

from __future__ import annotations

from collections.abc import Sequence

from matcher.teams.imbalance import Imbalance, imbalance
from matcher.teams.model import Lineup, Party, lineup_with_roles, team_ratings

#: Search nodes per window at most (a unit placed or skipped is one node).
MAX_NODES = 20_000


def unit_key(party: Party) -> tuple[float, int]:
    """Where a party sits on the rating line: its mean matching rating, then log order."""
    return (party.mean, party.order)


def interval_games(
    parties: Sequence[Party], roles: tuple[str, ...], params: Imbalance
) -> tuple[list[Lineup], bool]:
    """The wave's role-interval games (indices into ``parties``), in the order found, and
    whether a window search reached ``MAX_NODES``.

    >>> from matcher.core import Player
    >>> def unit(i, role, rating, size=1):
    ...     players = tuple(Player(f"p{i}{j}", ((role, rating),)) for j in range(size))
    ...     return Party(f"t{i}", players, (rating,) * size, 0, 0, i)
    >>> wave = [unit(0, "tank", 900), unit(1, "dps", 1000, 2), unit(2, "tank", 1010),
    ...         unit(3, "tank", 1020), unit(4, "dps", 1030, 2), unit(5, "tank", 2000)]
    >>> games, _ = interval_games(wave, ("tank", "dps", "dps"), Imbalance())
    >>> [game.teams for game in games]
    [((2, 4), (1, 3))]

    Notes: per game, O(n) windows (two pointers); a window is searched again only when
    the last game took one of its units (each search at most MAX_NODES).
    """
    order = sorted(range(len(parties)), key=lambda i: unit_key(parties[i]))
    intervals = _Intervals([parties[i] for i in order], roles, params)
    games: list[Lineup] = []
    while True:
        found = intervals.shortest_game()
        if found is None:
            return games, intervals.truncated
        teams = tuple(tuple(order[i] for i in team) for team in found.teams)
        games.append(Lineup(teams, found.roles))
        intervals.remove([i for team in found.teams for i in team])


class _Intervals:
    """The units still queued (in rating order) and, per start, the end of its shortest
    window holding a game, kept while no unit of that window is taken."""

    def __init__(self, units: Sequence[Party], roles: tuple[str, ...], params: Imbalance):
        self.units = units
        self.alive = [True] * len(units)
        self.search = _Search(units, roles, params)
        self.k = len(roles)
        self.ends: dict[int, int] = {}  # start -> first end whose window holds a game
        self.truncated = False

    def remove(self, taken: Sequence[int]) -> None:
        for position in taken:
            self.alive[position] = False
        lowest, highest = min(taken), max(taken)
        # A window that lost a unit may hold no game now: its start is searched again.
        self.ends = {
            lo: hi
            for lo, hi in self.ends.items()
            if self.alive[lo]
            and (hi < lowest or lo > highest or not any(lo <= p <= hi for p in taken))
        }

    def shortest_game(self) -> Lineup | None:
        """Two pointers over the queued units: the window's end only moves forward, since
        a window inside one that holds no game holds none either, and every game of a
        window whose shorter neighbour holds none seats the window's end."""
        living = [p for p, alive in enumerate(self.alive) if alive]
        where = {p: i for i, p in enumerate(living)}
        best: tuple[float, int, int] | None = None  # (interval, lo, hi) as indices of living
        end = 0
        for start, lo in enumerate(living):
            end = max(end, start)
            known = self.ends.get(lo)
            if known is not None:
                # No unit of that window was taken since: still the first with a game
                # (and never before the carried end, whose shorter windows hold none).
                end = where[known]
            else:
                while end < len(living):
                    game, cut = self.search.best_game(living[start : end + 1], self.k, True)
                    self.truncated = self.truncated or cut
                    if game is not None:
                        self.ends[lo] = living[end]
                        break
                    end += 1
                if end == len(living):
                    break  # a later start has fewer units: no interval from here on
            length = self.units[living[end]].mean - self.units[lo].mean
            if best is None or length < best[0]:
                best = (length, start, end)
        if best is None:
            return None
        # Only the shortest window is searched for its least f.
        game, cut = self.search.best_game(living[best[1] : best[2] + 1], self.k)
        self.truncated = self.truncated or cut
        assert game is not None  # the same window held a game a moment ago
        return game[1]


class _Search:
    """Window searches over one list of units, sharing which teams fill the role slots."""

    def __init__(self, units: Sequence[Party], roles: tuple[str, ...], params: Imbalance):
        self.units, self.roles, self.params = units, roles, params
        wanted = set(roles)
        # Per unit, each player's slots: the queue's roles they offer and are rated for.
        self.offers = [
            [
                frozenset(
                    r
                    for r in player.offered_roles()
                    if r in wanted and player.rating(r) is not None
                )
                for player in party.players
            ]
            for party in units
        ]
        self.filled: dict[tuple[int, ...], bool] = {}

    def fills(self, team: Sequence[int]) -> bool:
        """Whether the players of ``team`` (unit indices) take distinct slots of a team."""
        key = tuple(sorted(team))
        known = self.filled.get(key)
        if known is None:
            players = [offer for i in key for offer in self.offers[i]]
            known = self.filled[key] = _slot_matching(players, self.roles)
        return known

    def best_game(
        self, window: Sequence[int], k: int, first: bool = False
    ) -> tuple[tuple[float, Lineup] | None, bool]:
        """The least-f game among the units of ``window`` (positions, ascending) that seats
        its last unit (first on ties), or with ``first`` the first game found, and whether
        the search was cut short."""
        units, roles = self.units, self.roles
        hi = window[-1]
        if units[hi].size > k or not self._covers(window):
            return None, False
        others = list(window[:-1])
        # Players still placeable from each position down: prunes hopeless branches.
        below = [0]
        for unit in others:
            below.append(below[-1] + units[unit].size)
        best: tuple[float, Lineup] | None = None
        nodes = 0
        teams: tuple[list[int], list[int]] = ([hi], [])
        sizes = [units[hi].size, 0]

        def place(position: int) -> bool:
            nonlocal best, nodes
            nodes += 1
            if nodes > MAX_NODES:
                return False
            if sizes[0] == k and sizes[1] == k:
                # Parties in rating order on each team: the seats do not depend on the search.
                lineup = lineup_with_roles(units, [sorted(team) for team in teams], roles)
                if lineup is not None:
                    value = imbalance(team_ratings(units, lineup), self.params)
                    if best is None or value < best[0]:
                        best = (value, lineup)
                return not (first and best is not None)
            if position < 0 or sizes[0] + sizes[1] + below[position + 1] < 2 * k:
                return True
            unit = others[position]
            for side in (0, 1):  # the first team holds unit hi: no game is found twice
                if sizes[side] + units[unit].size <= k:
                    teams[side].append(unit)
                    sizes[side] += units[unit].size
                    if self.fills(teams[side]) and not place(position - 1):
                        return False
                    sizes[side] -= units[unit].size
                    teams[side].pop()
            return place(position - 1)

        complete = place(len(others) - 1) or (first and best is not None)
        return best, not complete

    def _covers(self, window: Sequence[int]) -> bool:
        """Whether the window's players, ignoring parties, can take both teams' slots."""
        players = [offer for i in window for offer in self.offers[i]]
        return len(players) >= 2 * len(self.roles) and _slot_matching(
            players, self.roles + self.roles
        )


def _slot_matching(players: Sequence[frozenset[str]], slots: tuple[str, ...]) -> bool:
    """Whether every player takes a distinct slot they offer (more slots than players is
    fine), or with more players than slots, every slot gets a distinct player.

    >>> _slot_matching([frozenset({"a"}), frozenset({"a", "b"})], ("a", "b"))
    True
    >>> _slot_matching([frozenset({"a"}), frozenset({"a"})], ("a", "b"))
    False

    Notes: Kuhn's augmenting paths, O(min side x edges).
    """
    if len(players) <= len(slots):
        left: Sequence[frozenset[str]] = players
        edges = [[s for s, role in enumerate(slots) if role in offer] for offer in left]
    else:
        edges = [[p for p, offer in enumerate(players) if role in offer] for role in slots]
    owner: dict[int, int] = {}

    def augment(node: int, seen: set[int]) -> bool:
        for other in edges[node]:
            if other not in seen:
                seen.add(other)
                if other not in owner or augment(owner[other], seen):
                    owner[other] = node
                    return True
        return False

    return all(augment(node, set()) for node in range(len(edges)))


def interval_order_problem(
    parties: Sequence[Party], matches_parties: Sequence[Sequence[str]]
) -> str | None:
    """Why a wave's games (each its ticket ids, in the published order) are not role
    intervals taken shortest first, or None.

    >>> from matcher.core import Player
    >>> solo = lambda i, r: Party(f"t{i}", (Player(f"p{i}", (("x", r),)),), (r,), 0, 0, i)
    >>> wave = [solo(0, 10), solo(1, 30), solo(2, 100), solo(3, 105)]
    >>> interval_order_problem(wave, [["t2", "t3"], ["t0", "t1"]]) is None
    True
    >>> interval_order_problem(wave, [["t0", "t1"], ["t2", "t3"]])
    'game 2 spans 5 rating points after a game of 20: role intervals go shortest first'

    Notes: O(seats).
    """
    means = {party.ticket_id: party.mean for party in parties}
    before: float | None = None
    for number, tickets in enumerate(matches_parties, 1):
        spans = [means[t] for t in tickets if t in means]
        length = max(spans) - min(spans) if spans else 0.0
        if before is not None and length < before - 1e-9:
            return (
                f"game {number} spans {length:g} rating points after a game of {before:g}:"
                " role intervals go shortest first"
            )
        before = length
    return None
