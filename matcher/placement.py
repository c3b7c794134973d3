"""Stage 7 of every strategy: map, server and channel of a match, from a seeded RNG.

Shared by all strategies so that the same wave seed gives the same placements no
matter which strategy paired the players.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from matcher.core import QueueProfile, ServerRoute

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


def channel_name(match_number: int) -> str:
    """Channel of the ``match_number``-th match of a wave (1-based): scevo01..scevo10.

    >>> [channel_name(n) for n in (1, 9, 10, 11, 20)]
    ['scevo01', 'scevo09', 'scevo10', 'scevo01', 'scevo10']
    """
    return _CHANNELS[match_number % CHANNEL_COUNT]


_CHANNELS = tuple(f"{CHANNEL_PREFIX}{slot or CHANNEL_COUNT:02d}" for slot in range(CHANNEL_COUNT))
