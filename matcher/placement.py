"""Stage 7 of every strategy: map, server and channel of a match, from a seeded RNG.

Shared by all strategies so that the same wave seed gives the same placements no
matter which strategy paired the players.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType

from matcher.core import (
    Match,
    QueueProfile,
    ServerRoute,
    derive_match_id,
    namespaced_sha1,
    uuid5_text_of,
)

CHANNEL_PREFIX = "scevo"
CHANNEL_COUNT = 10


class NoPlayableMap(ValueError):
    """Every map of the queue is vetoed by someone in the match."""


def choose_map(rng: random.Random, maps: tuple[str, ...], vetoes: Iterable[str]) -> str:
    """Draw a map uniformly from ``maps`` minus the union of the players' vetoes.

    The candidates keep the queue's configured order, so the draw depends only on
    the RNG state and the inputs.

    >>> choose_map(random.Random(1), ("a", "b", "c"), ["a", "c"])
    'b'
    """
    vetoed = set(vetoes)
    allowed = [name for name in maps if name not in vetoed] if vetoed else maps
    if not allowed:
        raise NoPlayableMap("every map is vetoed by a player of the match")
    return allowed[rng.randrange(len(allowed))]


def playable_maps(maps: tuple[str, ...], vetoes: Iterable[str]) -> tuple[str, ...]:
    vetoed = set(vetoes)
    return tuple(name for name in maps if name not in vetoed)


def choose_server(rng: random.Random, profile: QueueProfile, region_a: str, region_b: str) -> str:
    """Pick the server for a pair of regions from the profile's route table.

    The table is symmetric; with several servers for a pair, or an unknown pair
    (falling back to ``profile.fallback_servers``), the seeded RNG picks one.
    """
    servers = _route_table(profile.routes).get(
        frozenset((region_a, region_b)), profile.fallback_servers
    )
    if len(servers) == 1:
        return servers[0]
    return servers[rng.randrange(len(servers))]


@functools.lru_cache(maxsize=64)
def _route_table(routes: tuple[ServerRoute, ...]) -> Mapping[frozenset[str], tuple[str, ...]]:
    """The first route with servers of each region pair (a wave places thousands of matches)."""
    table: dict[frozenset[str], tuple[str, ...]] = {}
    for route in routes:
        if route.servers:
            table.setdefault(frozenset((route.region_a, route.region_b)), route.servers)
    return MappingProxyType(table)


def place_matches(
    rng: random.Random,
    profile: QueueProfile,
    vetoes: Sequence[tuple[str, ...]],
    regions: Sequence[tuple[str, str]],
) -> list[tuple[str, str]]:
    """Map and server of each match, drawn exactly as :func:`choose_map` then
    :func:`choose_server` would draw them, match after match (same RNG draws, same order).

    ``vetoes[i]`` are the maps vetoed by the players of match ``i``; ``regions[i]`` the
    region pair it is served for. A wave places thousands of matches with a handful of
    distinct veto sets and region pairs: each is resolved once, and a draw is
    ``randrange``'s own rejection sampling on ``getrandbits`` without its call layers.

    >>> profile = QueueProfile("1v1", "optimal", ("a", "b", "c"))
    >>> place_matches(random.Random(7), profile, [(), ("a", "b")], [("eu", "eu")] * 2)
    [('b', 'default'), ('c', 'default')]
    >>> rng = random.Random(7)
    >>> [(choose_map(rng, profile.maps, v), choose_server(rng, profile, "eu", "eu"))
    ...  for v in [(), ("a", "b")]]
    [('b', 'default'), ('c', 'default')]

    Notes: O(matches + distinct veto sets * maps + distinct region pairs).
    """
    if type(rng) is not random.Random:  # a subclass may draw differently: ask it
        return [
            (choose_map(rng, profile.maps, banned), choose_server(rng, profile, *pair))
            for banned, pair in zip(vetoes, regions, strict=True)
        ]
    getrandbits = rng.getrandbits
    allowed_for: dict[tuple[str, ...], tuple[str, ...]] = {}
    servers_for: dict[tuple[str, str], tuple[str, ...]] = {}
    placed: list[tuple[str, str]] = []
    for banned, pair in zip(vetoes, regions, strict=True):
        allowed = allowed_for.get(banned)
        if allowed is None:
            allowed = allowed_for[banned] = playable_maps(profile.maps, banned)
            if not allowed:
                raise NoPlayableMap("every map is vetoed by a player of the match")
        servers = servers_for.get(pair)
        if servers is None:
            servers = servers_for[pair] = _route_table(profile.routes).get(
                frozenset(pair), profile.fallback_servers
            )
        # choose_map draws even from a single map; choose_server does not.
        map_name = _draw(getrandbits, allowed)
        placed.append((map_name, servers[0] if len(servers) == 1 else _draw(getrandbits, servers)))
    return placed


def _draw(getrandbits: Callable[[int], int], options: tuple[str, ...]) -> str:
    """``options[rng.randrange(len(options))]``.

    CPython's ``randrange(n)`` is ``_randbelow(n)``: draw ``n.bit_length()`` bits until
    the value is below ``n``; tests/test_placement.py holds it to the real thing.
    """
    count = len(options)
    bits = count.bit_length()
    drawn = getrandbits(bits)
    while drawn >= count:
        drawn = getrandbits(bits)
    return options[drawn]


def derive_match_ids(
    queue: str, region: str, wave_id: str, tickets: Iterable[Sequence[str]]
) -> list[str]:
    """``derive_match_id(queue, region, wave_id, ids)`` for each ``ids`` of ``tickets``.

    The wave's part of the hashed name is hashed once, and the UUID text is cut from
    the digest's hex directly. The last ids derived are remembered: the checker
    re-derives every id the strategy just derived.

    >>> derive_match_ids("q", "eu", "1", [("b", "a")])
    ['41d6cd06-e5df-53d9-96c3-abbe51525d8e']
    >>> derive_match_id("q", "eu", "1", ("a", "b"))
    '41d6cd06-e5df-53d9-96c3-abbe51525d8e'

    Notes: O(total ticket ids).
    """
    prefix = "\x1f".join((queue, region, wave_id, ""))
    wave = namespaced_sha1(prefix)
    memo = _IDS
    ids = []
    for group in tickets:
        if len(group) == 2:  # a duel's two tickets: most matches
            first, second = group
            joined = f"{first}\x1f{second}" if first <= second else f"{second}\x1f{first}"
        elif group:
            joined = "\x1f".join(sorted(group))
        else:  # no separator after the wave id then
            ids.append(derive_match_id(queue, region, wave_id, ()))
            continue
        key = (prefix, joined)
        match_id = memo.get(key)
        if match_id is None:
            sha1 = wave.copy()
            sha1.update(joined.encode())
            match_id = uuid5_text_of(sha1)
            if len(memo) >= _IDS_LIMIT:
                memo.clear()
            memo[key] = match_id
        ids.append(match_id)
    return ids


def sorted_ticket_ids(match: Match) -> tuple[str, ...]:
    """``match.ticket_ids()``, without building a set for a duel's two seats.

    >>> from matcher.core import Seat, Team
    >>> seat = lambda ticket: Team(ticket, (Seat(ticket, "p" + ticket, "r", 1),))
    >>> sorted_ticket_ids(Match("m", (seat("t9"), seat("t1")), "map", "s", "c"))
    ('t1', 't9')
    """
    teams = match.teams
    if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
        first, second = teams[0].seats[0].ticket_id, teams[1].seats[0].ticket_id
        if first < second:
            return (first, second)
        if second < first:
            return (second, first)
    return match.ticket_ids()


# Ids by (wave prefix, joined ticket ids): a pure function's results, so remembering
# them changes no output; bounded (emptied when full) to about two big waves.
_IDS_LIMIT = 1 << 14
_IDS: dict[tuple[str, str], str] = {}


def channel_name(match_number: int) -> str:
    """Channel of the ``match_number``-th match of a wave (1-based): scevo01..scevo10.

    >>> [channel_name(n) for n in (1, 9, 10, 11, 20)]
    ['scevo01', 'scevo09', 'scevo10', 'scevo01', 'scevo10']
    """
    return _CHANNELS[match_number % CHANNEL_COUNT]


_CHANNELS = tuple(f"{CHANNEL_PREFIX}{slot or CHANNEL_COUNT:02d}" for slot in range(CHANNEL_COUNT))
