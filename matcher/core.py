"""Value types shared by every strategy: tickets and a wave snapshot in, matches out.

Everything here is a frozen, slotted dataclass so that a wave's inputs and outputs
can be compared, hashed where it makes sense, and never mutated behind a caller's back.
Time, seeds and ids are fields, never read from the environment.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from matcher.event_size import player_share
from matcher.ruleset import NO_RULES, QueueRuleSet, parse_rules

#: Namespace of every derived match id (uuid5). Changing it changes every match id ever issued.
MATCH_ID_NAMESPACE = uuid.UUID("6f1c1f2e-5b8e-4d0c-9a57-77a0a7d3c0de")


@dataclass(frozen=True, slots=True)
class Player:
    """One person in a ticket.

    ``ratings`` maps a race or role to a rating, as sorted ``(name, rating)`` pairs.
    ``roles`` are the races/roles the player offers; empty means "every rated one".
    ``latency_ms`` holds measured ``(region, milliseconds)`` pairs, when known.
    ``can_host`` says the player can accept connections from everyone (open NAT), which
    peer-to-peer games need of their host; only the multifactor ``hosts`` factor reads it.
    ``attributes`` are free string attributes as sorted ``(name, value)`` pairs (language,
    platform...), read by a queue's attribute rules (matcher/rules).
    ``blocked`` are the ids of the players this one blocked, read by a queue's
    ``block_lists`` rule. ``deviation`` is the uncertainty of the ratings (None:
    unknown), read by a queue's ``deviation`` rule. ``numbers`` are numeric attributes as
    sorted ``(name, value)`` pairs (level, account age), read by the queue's ``number``
    rules (matcher/rulelogic.py).
    ``data`` is opaque data for the game server as sorted ``(name, value)`` pairs: no
    strategy or rule reads it; it only reaches the player's seat (:func:`seat_data`).
    ``peer_latency_ms`` holds measured round trips to other players as sorted
    ``(player_id, milliseconds)`` pairs (peer-to-peer games), read by the multifactor
    ``ping_peer`` and ``p2p_host_max_ms`` options.
    """

    player_id: str
    ratings: tuple[tuple[str, int], ...]
    roles: tuple[str, ...] = ()
    vetoed_maps: tuple[str, ...] = ()
    latency_ms: tuple[tuple[str, int], ...] = ()
    can_host: bool = False
    attributes: tuple[tuple[str, str], ...] = ()
    blocked: tuple[str, ...] = ()
    deviation: int | None = None
    numbers: tuple[tuple[str, float], ...] = ()
    data: tuple[tuple[str, str], ...] = ()
    peer_latency_ms: tuple[tuple[str, int], ...] = ()

    def attribute(self, name: str) -> str | None:
        """Return the player's string attribute ``name``, or None when not given."""
        for key, value in self.attributes:
            if key == name:
                return value
        return None

    def number(self, name: str) -> float | None:
        """Return the player's numeric attribute ``name``, or None when not given."""
        for key, value in self.numbers:
            if key == name:
                return value
        return None

    def rating(self, role: str) -> int | None:
        """Return the rating for ``role``, or None when the player has none."""
        for name, value in self.ratings:
            if name == role:
                return value
        return None

    def offered_roles(self) -> tuple[str, ...]:
        """Roles the player may take: the offered ones, else every rated one."""
        return self.roles if self.roles else tuple(name for name, _ in self.ratings)

    def latency_to(self, region: str) -> int | None:
        """Return the measured latency to ``region`` in ms, or None when unknown."""
        for name, value in self.latency_ms:
            if name == region:
                return value
        return None


@dataclass(frozen=True, slots=True)
class Ticket:
    """A request to be matched: one player, or a party that must stay together.

    ``data`` is the ticket's opaque data (sorted pairs), copied into each player's seat.
    """

    ticket_id: str
    queue: str
    region: str
    players: tuple[Player, ...]
    joined_at_ms: int
    party_id: str | None = None
    data: tuple[tuple[str, str], ...] = ()
    #: Higher goes first when a wave cannot match everyone (a queue's ``priority`` rule).
    priority: int = 0

    @property
    def size(self) -> int:
        return len(self.players)


@dataclass(frozen=True, slots=True)
class WaitingTicket:
    """A ticket as a wave sees it: with the number of waves it has already waited."""

    ticket: Ticket
    wait_cycles: int


@dataclass(frozen=True, slots=True)
class ServerRoute:
    """Servers that host a match between a player of ``region_a`` and one of ``region_b``."""

    region_a: str
    region_b: str
    servers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TeamStep:
    """A smaller match shape a ticket may be placed in once it has waited ``after_s``."""

    after_s: float
    team_count: int
    team_size: int


@dataclass(frozen=True)
class QueueProfile:
    """What a strategy needs to know about a queue; built once from the settings.

    ``options`` carries strategy-specific knobs; each strategy parses them into its
    own frozen config and rejects unknown or invalid ones with the field's name.
    ``rules`` are the queue's declarative limits (:mod:`matcher.rules`), the same
    for every strategy; ``ruleset`` is that table parsed when the profile is built (a
    bad table raises ValueError naming the rule), so no wave parses it again.
    """

    queue: str
    strategy: str
    maps: tuple[str, ...]
    routes: tuple[ServerRoute, ...] = ()
    fallback_servers: tuple[str, ...] = ("default",)
    team_count: int = 2
    team_size: int = 1
    team_size_min: int | None = None
    roles: tuple[str, ...] = ()
    options: Mapping[str, object] = field(default_factory=dict)
    #: The queue's rules table (matcher/rules), as configured: what the settings echo.
    rules: Mapping[str, object] = field(default_factory=dict)
    ruleset: QueueRuleSet = field(init=False, repr=False, compare=False)
    #: Smaller shapes after a wait (matcher/teams/steps.py); empty: the shape is fixed.
    team_steps: tuple[TeamStep, ...] = ()
    #: Asymmetric teams (matcher/teams/asymmetric.py): each team's size and role slots;
    #: empty: every team has ``team_size`` players and the ``roles`` slots.
    team_sizes: tuple[int, ...] = ()
    team_roles: tuple[tuple[str, ...], ...] = ()
    #: A match created below the queue's full shape opens a backfill of its empty seats
    #: (matcher/queue/backfill.py, ``open_for``).
    auto_backfill: bool = False
    #: A backfill request no whole fill meets takes the legal fill of the most open slots
    #: and stays open for the rest (matcher/queue/backfill_partial.py, docs/adr/0192).
    partial_backfill: bool = False
    #: The bytes of its match event each player's ids and data may take, or None when no
    #: join can outgrow it (matcher/event_size.py): read at every join, so kept.
    player_share: int | None = field(init=False, repr=False, compare=False)
    #: Whether a join is checked beyond its shape: against the rules or its share.
    checks_at_join: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ruleset", parse_rules(self.rules) if self.rules else NO_RULES)
        largest = sum(self.team_sizes) if self.team_sizes else self.team_count * self.team_size
        roles = (*self.roles, *(role for team in self.team_roles for role in team))
        share = player_share(largest, self.team_count, roles)
        object.__setattr__(self, "player_share", share)
        object.__setattr__(self, "checks_at_join", bool(self.rules) or share is not None)


@dataclass(frozen=True, slots=True)
class LastMatch:
    """Who a player last played with and against; the queue state keeps it per player."""

    player_id: str
    teammates: tuple[str, ...]
    opponents: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WaveSnapshot:
    """The queue of one (queue, region) exactly at the log position of its wave tick.

    ``tickets`` are in log (join) order, which strategies use as the stable tie-break.
    """

    queue: str
    region: str
    wave_id: str
    wave_number: int
    seed: int
    closed_at_ms: int
    tickets: tuple[WaitingTicket, ...]
    active_population: int = 0
    last_matches: tuple[LastMatch, ...] = ()
    #: Queued players' recent matches (newest first, ``(at_ms, other player ids)``), for
    #: a queue with a rematch rule; empty otherwise (matcher/queue/meetings.py).
    meetings: tuple[tuple[str, tuple[tuple[int, tuple[str, ...]], ...]], ...] = ()
    #: Matches the region placed before this wave (the fold's count): the wave's n-th
    #: match goes on channel ``channel_name(matches_placed + n)`` (matcher/placement.py).
    matches_placed: int = 0


@dataclass(frozen=True, slots=True)
class Seat:
    """One player's place in a match; ``data`` is :func:`seat_data`, attached after the
    strategy decided (strategies build seats without it)."""

    ticket_id: str
    player_id: str
    role: str
    rating: int
    data: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class Match:
    """A match created by a wave. ``quality`` holds named figures (rating diff, factor scores)."""

    match_id: str
    teams: tuple[Team, ...]
    map_name: str
    server: str
    channel: str
    quality: tuple[tuple[str, float], ...] = ()

    def ticket_ids(self) -> tuple[str, ...]:
        return tuple(sorted({seat.ticket_id for team in self.teams for seat in team.seats}))

    def quality_of(self, name: str) -> float | None:
        for key, value in self.quality:
            if key == name:
                return value
        return None


@dataclass(frozen=True, slots=True)
class WaveResult:
    """What a strategy decided for one wave; ``unmatched`` are ticket ids left queued."""

    strategy: str
    matches: tuple[Match, ...]
    unmatched: tuple[str, ...]
    stats: tuple[tuple[str, float], ...] = ()

    def stat(self, name: str) -> float | None:
        for key, value in self.stats:
            if key == name:
                return value
        return None


def seat_data(ticket: Ticket, player: Player) -> tuple[tuple[str, str], ...]:
    """The data a player's seat carries: the ticket's merged with the player's (the
    player's entry wins on a shared name), sorted by name (docs/adr/0173).

    >>> player = Player("p-1", (("bw", 1500),), data=(("skin", "red"),))
    >>> ticket = Ticket("t-1", "1v1", "eu", (player,), 0, data=(("build", "1.4"), ("skin", "x")))
    >>> seat_data(ticket, player)
    (('build', '1.4'), ('skin', 'red'))
    """
    if not ticket.data:
        return player.data
    if not player.data:
        return ticket.data
    return tuple(sorted((dict(ticket.data) | dict(player.data)).items()))


Strategy = Callable[[WaveSnapshot, QueueProfile], WaveResult]
"""A strategy is a pure function of a wave snapshot and the queue's profile."""


def derive_seed(queue: str, region: str, wave_id: str) -> int:
    """Return the wave's 64-bit RNG seed, derived from what names the wave.

    >>> derive_seed("1v1", "eu", "7") == derive_seed("1v1", "eu", "7")
    True
    """
    digest = hashlib.sha256(f"{queue}\x1f{region}\x1f{wave_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def derive_match_id(queue: str, region: str, wave_id: str, ticket_ids: tuple[str, ...]) -> str:
    """Return the deterministic id of a match: uuid5 of the wave and its sorted tickets.

    A redelivered wave yields the same ids, so consumers can de-duplicate.

    >>> derive_match_id("q", "eu", "1", ("b", "a")) == derive_match_id("q", "eu", "1", ("a", "b"))
    True
    """
    name = "\x1f".join((queue, region, wave_id, *sorted(ticket_ids)))
    return uuid5_text(name)


_NAMESPACED_SHA1 = hashlib.sha1(MATCH_ID_NAMESPACE.bytes, usedforsecurity=False)


def uuid5_text(name: str) -> str:
    """``str(uuid.uuid5(MATCH_ID_NAMESPACE, name))``, without building UUID objects.

    A large wave derives (and its checker re-derives) one id per match, so the UUID objects
    it skips add up (figures: docs/benchmarks/code-figures.md).

    >>> uuid5_text("x") == str(uuid.uuid5(MATCH_ID_NAMESPACE, "x"))
    True
    """
    return uuid5_text_of(namespaced_sha1(name))


def namespaced_sha1(name: str) -> hashlib._Hash:
    """SHA-1 over the match id namespace and ``name``; update it to extend the name."""
    sha1 = _NAMESPACED_SHA1.copy()
    sha1.update(name.encode("utf-8"))
    return sha1


def uuid5_text_of(sha1: hashlib._Hash) -> str:
    """The uuid5 text of a SHA-1 over the namespace and a name, cut from its hex digest."""
    text = sha1.hexdigest()
    # Version 5 in the 13th hex digit; the RFC 4122 variant (10xx) in the 17th.
    return f"{text[:8]}-{text[8:12]}-5{text[13:16]}-{_VARIANT[text[16]]}{text[17:20]}-{text[20:32]}"


_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}
