"""The team model on top of :mod:`matcher.core`: a queue's team shape and its parties.

A *party* is one ticket of 1..k players, matched as a unit: its players always sit on
one team. A *shape* is what a team queue asks for: how many teams, how many players
per team (strict, or a min/max range) and which role slots each team must fill.
A *lineup* is a proposed split of some parties into the teams of one match, with the
role of every seat; :mod:`matcher.teams.build` turns it into a :class:`~matcher.core.Match`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from matcher.core import Player, QueueProfile, WaveSnapshot


@dataclass(frozen=True, slots=True)
class TeamShape:
    """What one match of a team queue looks like.

    ``roles`` are the role slots of each team (a role may repeat, e.g. three "dps");
    empty means the queue has no roles. With roles, ``size_max == len(roles)``.
    An asymmetric shape gives each team its own exact size (``sizes``) and, optionally,
    its own role slots (``team_roles``); ``size_min``/``size_max`` are then the smallest
    and the largest team.
    """

    team_count: int
    size_min: int
    size_max: int
    roles: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    team_roles: tuple[tuple[str, ...], ...] = ()

    @property
    def strict(self) -> bool:
        return bool(self.sizes) or self.size_min == self.size_max

    @property
    def match_max(self) -> int:
        return sum(self.sizes) if self.sizes else self.team_count * self.size_max

    @property
    def match_min(self) -> int:
        return sum(self.sizes) if self.sizes else self.team_count * self.size_min

    @property
    def role_rated(self) -> bool:
        """Whether seats are rated by their role (a player's seat rating depends on the split)."""
        return bool(self.roles or self.team_roles)

    def team_size_range(self, team: int) -> tuple[int, int]:
        """The least and most players team ``team`` (0-based) may have."""
        if self.sizes:
            return self.sizes[team], self.sizes[team]
        return self.size_min, self.size_max

    def roles_of(self, team: int) -> tuple[str, ...]:
        """The role slots of team ``team`` (0-based); empty without roles."""
        return self.team_roles[team] if self.team_roles else self.roles


def team_shape(profile: QueueProfile) -> TeamShape:
    """Read and validate the team shape of ``profile``; ValueError names the bad field.

    >>> team_shape(QueueProfile("5v5", "rebalance", ("m",), team_size=5))
    TeamShape(team_count=2, size_min=5, size_max=5, roles=(), sizes=(), team_roles=())
    >>> team_shape(QueueProfile("q", "rebalance", ("m",), team_size=2, roles=("a",)))
    Traceback (most recent call last):
    ValueError: roles: 1 role slots for teams of 2 players; give exactly team_size slots
    """
    if profile.team_count < 2:
        raise ValueError(f"team_count: must be at least 2 (got {profile.team_count})")
    if profile.team_size < 1:
        raise ValueError(f"team_size: must be at least 1 (got {profile.team_size})")
    size_min = profile.team_size if profile.team_size_min is None else profile.team_size_min
    if not 1 <= size_min <= profile.team_size:
        raise ValueError(
            f"team_size_min: must be between 1 and team_size={profile.team_size} (got {size_min})"
        )
    if profile.roles and len(profile.roles) != profile.team_size:
        raise ValueError(
            f"roles: {len(profile.roles)} role slots for teams of {profile.team_size} players;"
            " give exactly team_size slots"
        )
    if profile.team_sizes or profile.team_roles:
        return _asymmetric_shape(profile)
    return TeamShape(profile.team_count, size_min, profile.team_size, tuple(profile.roles))


def _asymmetric_shape(profile: QueueProfile) -> TeamShape:
    team_roles = tuple(tuple(roles) for roles in profile.team_roles)
    sizes = tuple(profile.team_sizes) or tuple(len(roles) for roles in team_roles)
    count, size = profile.team_count, profile.team_size
    if len(sizes) != count:
        raise ValueError(f"team_sizes: {len(sizes)} sizes for team_count = {count}")
    if any(not 1 <= n <= size for n in sizes) or max(sizes) != size:
        raise ValueError(
            f"team_sizes: each 1..team_size, the largest = team_size = {size} (got {list(sizes)})"
        )
    if profile.team_size_min is not None:
        raise ValueError("team_size_min: not with team_sizes (each team has its own exact size)")
    if profile.roles:
        raise ValueError("roles: with team_sizes or team_roles, give each team's in team_roles")
    if team_roles and len(team_roles) != count:
        raise ValueError(f"team_roles: {len(team_roles)} teams for team_count = {count}")
    for team, roles in enumerate(team_roles):
        if len(roles) != sizes[team]:
            raise ValueError(
                f"team_roles.{team}: {len(roles)} role slots for a team of {sizes[team]}"
                " (one per seat)"
            )
    return TeamShape(count, min(sizes), size, (), sizes, team_roles)


def matching_rating(player: Player, roles: tuple[str, ...]) -> int | None:
    """The rating a player is matched on: their best among the queue's roles they offer.

    A queue without roles uses the player's best rating. Ties go to the name first in
    the player's ratings (the same rule as the multifactor strategy). None when the
    player has no rating for any role they offer.

    >>> matching_rating(Player("p", (("healer", 1400), ("tank", 1600))), ())
    1600
    >>> matching_rating(Player("p", (("healer", 1400), ("tank", 1600))), ("healer", "dps"))
    1400
    """
    allowed = set(roles) & set(player.offered_roles()) if roles else None
    rated = [value for name, value in player.ratings if allowed is None or name in allowed]
    return max(rated) if rated else None


@dataclass(frozen=True, slots=True)
class Party:
    """One ticket as the team strategies see it.

    ``ratings`` are the players' matching ratings, in ticket order; ``order`` is the
    ticket's position in the snapshot (log order), the stable tie-break everywhere.
    """

    ticket_id: str
    players: tuple[Player, ...]
    ratings: tuple[int, ...]
    joined_at_ms: int
    wait_cycles: int
    order: int
    #: The ticket's priority (``Ticket.priority``), read under a queue's ``priority`` rule.
    priority: int = 0

    @property
    def size(self) -> int:
        return len(self.players)

    @property
    def total(self) -> int:
        return sum(self.ratings)

    @property
    def mean(self) -> float:
        return self.total / len(self.ratings)


def parties_of(
    snapshot: WaveSnapshot, shape: TeamShape
) -> tuple[tuple[Party, ...], tuple[str, ...]]:
    """Split a wave's tickets into playable parties and the ids of unplayable tickets.

    A ticket is unplayable in this queue when it has more players than a team holds,
    when one of its players has no rating for a role they offer, or when its players
    cannot fill distinct role slots of one team. Unplayable tickets stay queued.

    Notes: O(players) time (role checks are per party, constant for fixed k).
    """
    playable: list[Party] = []
    unplayable: list[str] = []
    every_role = tuple(dict.fromkeys(r for roles in shape.team_roles for r in roles))
    rated_by = every_role or shape.roles
    for order, waiting in enumerate(snapshot.tickets):
        ticket = waiting.ticket
        ratings = [matching_rating(player, rated_by) for player in ticket.players]
        usable = (
            0 < ticket.size <= shape.size_max
            and all(value is not None for value in ratings)
            and (not shape.roles or role_slots(ticket.players, shape.roles) is not None)
            and (not shape.team_roles or _fits_a_team(ticket.players, shape))
        )
        if not usable:
            unplayable.append(ticket.ticket_id)
            continue
        playable.append(
            Party(
                ticket.ticket_id,
                ticket.players,
                tuple(value for value in ratings if value is not None),
                ticket.joined_at_ms,
                waiting.wait_cycles,
                order,
                ticket.priority,
            )
        )
    return tuple(playable), tuple(unplayable)


def _fits_a_team(players: Sequence[Player], shape: TeamShape) -> bool:
    return any(
        len(players) <= len(roles) and role_slots(players, roles) is not None
        for roles in shape.team_roles
    )


def role_slots(players: Sequence[Player], roles: tuple[str, ...]) -> tuple[str, ...] | None:
    """Give each player a distinct slot of ``roles`` they offer and are rated for.

    Among the feasible assignments, the one with the highest total rating is returned
    (ties: the first found, trying slots in ``roles`` order), as one role per player in
    ``players`` order; None when no assignment exists. An empty ``roles`` gives "" to
    everyone.

    >>> tank = Player("a", (("tank", 1500), ("dps", 1700)))
    >>> dps = Player("b", (("dps", 1600),))
    >>> role_slots([tank, dps], ("tank", "dps", "dps"))
    ('dps', 'dps')
    >>> role_slots([tank, dps], ("tank", "healer")) is None
    True

    Notes: O(r^n) for n players and r distinct roles, with pruning; n <= team size.
    The search is a module function, not a closure calling itself: such a closure is a
    reference cycle, garbage only the cyclic collector frees, and a wave calls this
    thousands of times with that collector paused (streams/worker/folding.py).
    """
    if not roles:
        return tuple("" for _ in players)
    free = Counter(roles)
    return _assigned([_rated_roles(player, free) for player in players], free)


def _assigned(
    options: Sequence[list[tuple[str, int]]], free: Counter[str]
) -> tuple[str, ...] | None:
    """The best assignment of slots ``free`` to players with these ``options``, or None;
    ``free`` is as it was once the search returns."""
    best = _best_slots(options, free, [], 0, 0, None)
    return None if best is None else best[1]


def every_role_slots(players: Sequence[Player], roles: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every way :func:`role_slots` could seat ``players``, one per multiset of seat
    ratings (the rules read a team's seat ratings, not which seat holds which), highest
    total first (ties: the order :func:`role_slots` searches in): what a split's teams
    may be seated as when its best-rated seating breaks a rating rule.

    >>> flex = Player("a", (("tank", 1100), ("dps", 1000)))
    >>> other = Player("b", (("tank", 1200), ("dps", 1000)))
    >>> every_role_slots([flex, other], ("tank", "dps"))
    [('dps', 'tank'), ('tank', 'dps')]

    Notes: O(r^n) for n players and r distinct roles, n <= team size.
    """
    if not roles:
        return [tuple("" for _ in players)]
    free = Counter(roles)
    found: dict[tuple[int, ...], tuple[int, tuple[str, ...]]] = {}
    _all_slots([_rated_roles(player, free) for player in players], free, [], [], found)
    ranked = sorted(found.values(), key=lambda seated: -seated[0])
    return [assignment for _, assignment in ranked]


def _all_slots(
    options: Sequence[list[tuple[str, int]]],
    free: Counter[str],
    chosen: list[str],
    values: list[int],
    found: dict[tuple[int, ...], tuple[int, tuple[str, ...]]],
) -> None:
    """:func:`every_role_slots`'s depth-first search: the first assignment of each
    multiset of seat ratings, keyed by it, into ``found``."""
    if len(chosen) == len(options):
        found.setdefault(tuple(sorted(values)), (sum(values), tuple(chosen)))
        return
    for role, value in options[len(chosen)]:
        if free[role] > 0:
            free[role] -= 1
            chosen.append(role)
            values.append(value)
            _all_slots(options, free, chosen, values, found)
            values.pop()
            chosen.pop()
            free[role] += 1


#: Per player of a party, (role, rating) for each role of the queue they can be seated in.
RoleOptions = tuple[list[tuple[str, int]], ...]


def role_options(party: Party, roles: tuple[str, ...]) -> RoleOptions:
    """What :func:`lineup_with_roles` reads of ``party`` for each split it is in: each
    player's offered and rated roles among ``roles`` (in their order), with the ratings."""
    free = Counter(roles)
    return tuple(_rated_roles(player, free) for player in party.players)


def _best_slots(
    options: Sequence[list[tuple[str, int]]],
    free: Counter[str],
    chosen: list[str],
    index: int,
    total: int,
    best: tuple[int, tuple[str, ...]] | None,
) -> tuple[int, tuple[str, ...]] | None:
    """:func:`role_slots`'s depth-first search from player ``index``: ``best`` or a
    better complete assignment (strictly higher total; the first found on ties)."""
    if index == len(options):
        return (total, tuple(chosen)) if best is None or total > best[0] else best
    for role, value in options[index]:
        if free[role] > 0:
            free[role] -= 1
            chosen.append(role)
            best = _best_slots(options, free, chosen, index + 1, total + value, best)
            chosen.pop()
            free[role] += 1
    return best


def _rated_roles(player: Player, slots: Counter[str]) -> list[tuple[str, int]]:
    offered = set(player.offered_roles())
    seen: list[tuple[str, int]] = []
    for role in slots:
        value = player.rating(role)
        if role in offered and value is not None:
            seen.append((role, value))
    return seen


def seat_rating(player: Player, role: str) -> int:
    """The rating of ``player`` on a seat with ``role`` ("" = queue without roles)."""
    if role:
        value = player.rating(role)
        if value is None:
            raise ValueError(f"player {player.player_id} has no rating for role {role!r}")
        return value
    best = matching_rating(player, ())
    assert best is not None  # a Player always carries at least one rating
    return best


@dataclass(frozen=True, slots=True)
class Lineup:
    """Parties per team (indices into the wave's parties) and each seat's role.

    ``roles[t]`` has one role per player of team ``t``, in seat order (parties in
    ``teams[t]`` order, players in ticket order).
    """

    teams: tuple[tuple[int, ...], ...]
    roles: tuple[tuple[str, ...], ...]


#: Whether a split (teams of indices into a group) keeps the queue's rules that read
#: teams (:func:`matcher.teams.ruled.team_rule_keeper`): the splitters choose the
#: best-balanced split among those that do.
Keeps = Callable[[Sequence[Party], Sequence[Sequence[int]]], bool]


def lineup_with_roles(
    parties: Sequence[Party],
    teams: Sequence[Sequence[int]],
    roles: tuple[str, ...],
    options: Sequence[RoleOptions] = (),
) -> Lineup | None:
    """Complete a split of parties into teams with seat roles; None if a team cannot fill them.

    ``options``: each party's :func:`role_options`, when the caller tries many splits of
    the same parties (the same seats as without them).

    >>> solo = Party("t", (Player("p", (("x", 5),)),), (5,), 0, 0, 0)
    >>> lineup_with_roles([solo, solo], [[0], [1]], ())
    Lineup(teams=((0,), (1,)), roles=(('',), ('',)))
    """
    seat_roles: list[tuple[str, ...]] = []
    free = Counter(roles) if options and roles else None
    for team in teams:
        if free is not None:
            assigned = _assigned([each for index in team for each in options[index]], free)
        else:
            players = [player for index in team for player in parties[index].players]
            assigned = role_slots(players, roles)
        if assigned is None:
            return None
        seat_roles.append(assigned)
    return Lineup(tuple(tuple(team) for team in teams), tuple(seat_roles))


def team_ratings(parties: Sequence[Party], lineup: Lineup) -> tuple[tuple[int, ...], ...]:
    """Seat ratings of each team of ``lineup`` (role ratings in a role queue)."""
    result: list[tuple[int, ...]] = []
    for team, roles in zip(lineup.teams, lineup.roles, strict=True):
        players = [player for index in team for player in parties[index].players]
        result.append(
            tuple(seat_rating(player, role) for player, role in zip(players, roles, strict=True))
        )
    return tuple(result)
