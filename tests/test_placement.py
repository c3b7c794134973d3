"""Stage 7, shared by every strategy: map, server and channel from the wave's seeded RNG."""

from __future__ import annotations

import random

import pytest

from matcher.core import QueueProfile, ServerRoute
from matcher.placement import NoPlayableMap, channel_name, choose_map, choose_server

PROFILE = QueueProfile(
    queue="1v1",
    strategy="optimal",
    maps=("a", "b", "c"),
    routes=(
        ServerRoute("eu", "na", ()),  # no servers: ignored
        ServerRoute("eu", "na", ("atlantic",)),
        ServerRoute("na", "eu", ("shadowed",)),  # the first route of a pair wins
        ServerRoute("asia", "asia", ("tokyo-1", "tokyo-2", "tokyo-3")),
    ),
    fallback_servers=("anywhere",),
)


def test_a_route_serves_its_pair_in_either_order() -> None:
    rng = random.Random(1)
    assert choose_server(rng, PROFILE, "eu", "na") == "atlantic"
    assert choose_server(rng, PROFILE, "na", "eu") == "atlantic"


def test_an_unknown_pair_falls_back() -> None:
    assert choose_server(random.Random(1), PROFILE, "eu", "oce") == "anywhere"


def test_several_servers_are_drawn_from_the_seeded_rng() -> None:
    draws = [choose_server(random.Random(seed), PROFILE, "asia", "asia") for seed in range(30)]
    assert set(draws) == {"tokyo-1", "tokyo-2", "tokyo-3"}
    again = [choose_server(random.Random(seed), PROFILE, "asia", "asia") for seed in range(30)]
    assert draws == again


def test_maps_exclude_every_veto_and_keep_the_draw_deterministic() -> None:
    draws = {choose_map(random.Random(seed), PROFILE.maps, ["a", "c"]) for seed in range(20)}
    assert draws == {"b"}
    free = [choose_map(random.Random(seed), PROFILE.maps, ()) for seed in range(20)]
    assert set(free) == {"a", "b", "c"}
    with pytest.raises(NoPlayableMap):
        choose_map(random.Random(1), PROFILE.maps, ["a", "b", "c"])


def test_channels_cycle_through_ten() -> None:
    assert [channel_name(n) for n in range(1, 22)] == [
        *(f"scevo{n:02d}" for n in range(1, 11)),
        *(f"scevo{n:02d}" for n in range(1, 11)),
        "scevo01",
    ]
