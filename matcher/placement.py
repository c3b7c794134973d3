"""Stage 7 of every strategy: map, server and channel of a match, from a seeded RNG.

Shared by all strategies so that the same wave seed gives the same placements no
matter which strategy paired the players. The server is the latency-best region's when
every player measured one that hosts servers, else the route table's for the regions
(docs/adr/0105); the channel rotates over the region's matches across waves.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType

import numpy as np

from matcher.core import (
    Match,
    QueueProfile,
    ServerRoute,
    derive_match_id,
    namespaced_sha1,
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


#: One player's measured ``(region, milliseconds)`` pairs (:attr:`matcher.core.Player.latency_ms`).
Latencies = tuple[tuple[str, int], ...]


def choose_server(
    rng: random.Random,
    profile: QueueProfile,
    region_a: str,
    region_b: str,
    latencies: Sequence[Latencies] = (),
) -> str:
    """Pick the server of a match from :func:`match_servers`.

    With several servers the seeded RNG picks one; with one, it is not drawn from.

    >>> profile = QueueProfile("q", "optimal", ("m",), routes=(
    ...     ServerRoute("eu", "eu", ("fra",)), ServerRoute("na", "na", ("nyc",)),
    ...     ServerRoute("eu", "na", ("lon",))))
    >>> choose_server(random.Random(1), profile, "eu", "na")
    'lon'
    >>> choose_server(random.Random(1), profile, "eu", "na", [(("eu", 90), ("na", 20)),
    ...                                                      (("eu", 40), ("na", 60))])
    'nyc'
    """
    servers = match_servers(profile, region_a, region_b, latencies)
    if len(servers) == 1:
        return servers[0]
    return servers[rng.randrange(len(servers))]


def match_servers(
    profile: QueueProfile, region_a: str, region_b: str, latencies: Sequence[Latencies] = ()
) -> tuple[str, ...]:
    """The servers a match may be placed on.

    When every player measured (``latencies``, one entry per player) a region that hosts
    servers (a route from the region to itself), those of :func:`latency_region`;
    otherwise the route table's for the pair of regions, symmetric, falling back to
    ``profile.fallback_servers`` for an unknown pair.

    Notes: O(players * regions hosting servers).
    """
    region = latency_region(profile.routes, latencies) if latencies else None
    if region is not None:
        return _home_servers(profile.routes)[region]
    return _route_table(profile.routes).get(
        frozenset((region_a, region_b)), profile.fallback_servers
    )


def latency_region(routes: tuple[ServerRoute, ...], latencies: Sequence[Latencies]) -> str | None:
    """The region hosting servers that minimises the worst player's latency, or None.

    Only regions every player measured count (a player without a figure could be
    anywhere); ties go to the region whose servers are configured first.

    >>> routes = (ServerRoute("eu", "eu", ("fra",)), ServerRoute("na", "na", ("nyc",)),
    ...           ServerRoute("asia", "asia", ("tok",)))
    >>> latency_region(routes, [(("eu", 30), ("na", 80)), (("na", 40), ("eu", 70))])
    'eu'
    >>> latency_region(routes, [(("eu", 50), ("na", 50)), (("na", 50), ("eu", 50))])
    'eu'
    >>> latency_region(routes, [(("eu", 30),), ()]) is None
    True

    Notes: O(players * regions hosting servers).
    """
    best: str | None = None
    best_worst = 0
    for region in _home_servers(routes):
        worst = 0
        for measured in latencies:
            for name, ms in measured:
                if name == region:
                    worst = ms if ms > worst else worst
                    break
            else:  # this player did not measure the region
                break
        else:
            if best is None or worst < best_worst:
                best, best_worst = region, worst
    return best


def queue_servers(profile: QueueProfile) -> frozenset[str]:
    """Every server a match of the queue may be placed on: its routes' and fallback's."""
    return _queue_servers(profile.routes, profile.fallback_servers)


@functools.lru_cache(maxsize=64)
def _queue_servers(routes: tuple[ServerRoute, ...], fallback: tuple[str, ...]) -> frozenset[str]:
    return frozenset(fallback).union(*(route.servers for route in routes))


def region_servers(profile: QueueProfile, region: str) -> tuple[str, ...]:
    """The servers ``region`` hosts (its first route to itself); empty when none."""
    return _home_servers(profile.routes).get(region, ())


def has_home_servers(profile: QueueProfile) -> bool:
    """Whether some region of the queue hosts servers, so that latencies can choose one."""
    return bool(_home_servers(profile.routes))


@functools.lru_cache(maxsize=64)
def _home_servers(routes: tuple[ServerRoute, ...]) -> Mapping[str, tuple[str, ...]]:
    """The servers of each region hosting some (its first route to itself), in route order."""
    table: dict[str, tuple[str, ...]] = {}
    for route in routes:
        if route.servers and route.region_a == route.region_b:
            table.setdefault(route.region_a, route.servers)
    return MappingProxyType(table)


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
    latencies: Sequence[Sequence[Latencies]] | None = None,
) -> list[tuple[str, str]]:
    """Map and server of each match, drawn exactly as :func:`choose_map` then
    :func:`choose_server` would draw them, match after match (same RNG draws, same order).

    ``vetoes[i]`` are the maps vetoed by the players of match ``i``; ``regions[i]`` the
    region pair it is served for; ``latencies[i]``, when given, its players' latencies. A
    wave places thousands of matches with a handful of distinct veto sets and region
    pairs: each is resolved once, and a draw is ``randrange``'s own rejection sampling on
    ``getrandbits`` without its call layers.

    >>> profile = QueueProfile("1v1", "optimal", ("a", "b", "c"))
    >>> place_matches(random.Random(7), profile, [(), ("a", "b")], [("eu", "eu")] * 2)
    [('b', 'default'), ('c', 'default')]
    >>> rng = random.Random(7)
    >>> [(choose_map(rng, profile.maps, v), choose_server(rng, profile, "eu", "eu"))
    ...  for v in [(), ("a", "b")]]
    [('b', 'default'), ('c', 'default')]

    Notes: O(matches + distinct veto sets * maps + distinct region pairs), plus
    O(players * regions hosting servers) per match with latencies.
    """
    if latencies is None or not has_home_servers(profile):
        latencies = [()] * len(vetoes)  # no latency can choose: the route table does
    if type(rng) is not random.Random:  # a subclass may draw differently: ask it
        return [
            (choose_map(rng, profile.maps, banned), choose_server(rng, profile, *pair, measured))
            for banned, pair, measured in zip(vetoes, regions, latencies, strict=True)
        ]
    getrandbits = rng.getrandbits
    allowed_for: dict[tuple[str, ...], tuple[str, ...]] = {}
    servers_for: dict[tuple[str, str], tuple[str, ...]] = {}
    placed: list[tuple[str, str]] = []
    for banned, pair, measured in zip(vetoes, regions, latencies, strict=True):
        allowed = allowed_for.get(banned)
        if allowed is None:
            allowed = allowed_for[banned] = playable_maps(profile.maps, banned)
            if not allowed:
                raise NoPlayableMap("every map is vetoed by a player of the match")
        servers = match_servers(profile, *pair, measured) if measured else servers_for.get(pair)
        if servers is None:
            servers = servers_for[pair] = match_servers(profile, *pair)
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

    The wave's part of the hashed name is hashed once, and the UUID texts of the
    digests are written together (:func:`uuid5_texts`). The last ids derived are
    remembered: the checker re-derives every id the strategy just derived.

    >>> derive_match_ids("q", "eu", "1", [("b", "a")])
    ['41d6cd06-e5df-53d9-96c3-abbe51525d8e']
    >>> derive_match_id("q", "eu", "1", ("a", "b"))
    '41d6cd06-e5df-53d9-96c3-abbe51525d8e'

    Notes: O(total ticket ids).
    """
    prefix = "\x1f".join((queue, region, wave_id, ""))
    wave = namespaced_sha1(prefix)
    memo = _IDS
    ids: list[str] = []
    missing: list[tuple[int, tuple[str, str], bytes]] = []  # (place, memo key, digest)
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
            missing.append((len(ids), key, sha1.digest()))
        ids.append(match_id or "")  # a missing id is filled in below
    if missing:
        if len(memo) + len(missing) > _IDS_LIMIT:
            memo.clear()
        for (place, key, _), match_id in zip(
            missing, uuid5_texts([digest for _, _, digest in missing]), strict=True
        ):
            ids[place] = memo[key] = match_id
    return ids


def uuid5_texts(digests: Sequence[bytes]) -> list[str]:
    """The uuid5 text of each SHA-1 digest (of the namespace and a name), written at once.

    :func:`matcher.core.uuid5_text_of` for many digests: the version and variant bits
    are set and the hex digits written for all of them with NumPy, then cut apart.

    >>> import hashlib, uuid
    >>> from matcher.core import MATCH_ID_NAMESPACE
    >>> digest = hashlib.sha1(MATCH_ID_NAMESPACE.bytes + b"x").digest()
    >>> uuid5_texts([digest]) == [str(uuid.uuid5(MATCH_ID_NAMESPACE, "x"))]
    True

    Notes: O(digests).
    """
    count = len(digests)
    if not count:
        return []
    raw = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(count, -1)[:, :16].copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x50  # version 5
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # the RFC 4122 variant (10xx)
    digits = np.empty((count, 32), dtype=np.uint8)
    digits[:, 0::2] = _HEX[raw >> 4]
    digits[:, 1::2] = _HEX[raw & 0x0F]
    text = np.full((count, 36), ord("-"), dtype=np.uint8)
    for start, stop, at in _UUID_GROUPS:
        text[:, at : at + stop - start] = digits[:, start:stop]
    joined = text.tobytes().decode("ascii")
    return [joined[at : at + 36] for at in range(0, 36 * count, 36)]


_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
#: Hex digits [start, stop) of a UUID and where they go in its text (8-4-4-4-12).
_UUID_GROUPS = ((0, 8, 0), (8, 12, 9), (12, 16, 14), (16, 20, 19), (20, 32, 24))


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
    """Channel of a region's ``match_number``-th match (1-based): scevo01..scevo10.

    The count runs across waves (:attr:`matcher.core.WaveSnapshot.matches_placed`), so
    a wave's first match goes on the channel after the previous wave's last one.

    >>> [channel_name(n) for n in (1, 9, 10, 11, 20)]
    ['scevo01', 'scevo09', 'scevo10', 'scevo01', 'scevo10']
    """
    return _CHANNELS[match_number % CHANNEL_COUNT]


_CHANNELS = tuple(f"{CHANNEL_PREFIX}{slot or CHANNEL_COUNT:02d}" for slot in range(CHANNEL_COUNT))
