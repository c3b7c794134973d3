"""Stage 7, shared by every strategy: map, server and channel from the wave's seeded RNG."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import QueueProfile, ServerRoute
from matcher.placement import (
    Latencies,
    NoPlayableMap,
    channel_name,
    choose_map,
    choose_server,
    latency_region,
    match_servers,
)

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


HOSTED = QueueProfile(
    queue="1v1",
    strategy="optimal",
    maps=("a",),
    routes=(
        ServerRoute("eu", "na", ("atlantic",)),
        ServerRoute("na", "na", ("nyc-1", "nyc-2")),
        ServerRoute("eu", "eu", ()),  # no servers: eu hosts none through it...
        ServerRoute("eu", "eu", ("fra",)),  # ...but through this one
        ServerRoute("asia", "asia", ("tokyo",)),
        ServerRoute("eu", "eu", ("shadowed",)),  # the first route of a region wins
    ),
    fallback_servers=("anywhere",),
)
HOSTING = ("na", "eu", "asia")  # in configured order
REGIONS = (*HOSTING, "oce")  # oce is measured but hosts no server


def worst(latencies: list[Latencies], region: str) -> int | None:
    """The worst player's latency to ``region``; None when a player did not measure it."""
    found = [dict(measured).get(region) for measured in latencies]
    return None if None in found else max(v for v in found if v is not None)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(REGIONS), st.integers(0, 300), max_size=4).map(
            lambda d: tuple(d.items())
        ),
        min_size=1,
        max_size=10,
    )
)
def test_the_latency_region_minimises_the_worst_players_latency(
    latencies: list[Latencies],
) -> None:
    chosen = latency_region(HOSTED.routes, latencies)
    worsts = {region: worst(latencies, region) for region in HOSTING}
    measured = [region for region in HOSTING if worsts[region] is not None]
    if not measured:  # fall back on the route table
        assert chosen is None
        assert match_servers(HOSTED, "eu", "na", latencies) == ("atlantic",)
        return
    best = min(worsts[region] or 0 for region in measured)
    # The minimum, and of the regions at the minimum the first configured.
    assert chosen == next(region for region in measured if worsts[region] == best)
    home = {"na": ("nyc-1", "nyc-2"), "eu": ("fra",), "asia": ("tokyo",)}
    assert match_servers(HOSTED, "eu", "na", latencies) == home[chosen]
    assert latency_region(HOSTED.routes, list(reversed(latencies))) == chosen


def test_ties_go_to_the_region_configured_first() -> None:
    both = [(("eu", 40), ("na", 40)), (("na", 30), ("eu", 30))]
    assert latency_region(HOSTED.routes, both) == "na"
    swapped = (HOSTED.routes[3], HOSTED.routes[1])
    assert latency_region(swapped, both) == "eu"


def test_the_worst_player_decides_not_the_sum() -> None:
    # eu: worst 60 (sum 70); na: worst 55 (sum 110).
    pair = [(("eu", 10), ("na", 55)), (("eu", 60), ("na", 55))]
    assert latency_region(HOSTED.routes, pair) == "na"


def test_a_player_without_latencies_leaves_the_choice_to_the_route_table() -> None:
    pair = [(("eu", 10), ("na", 90)), ()]
    assert latency_region(HOSTED.routes, pair) is None
    assert choose_server(random.Random(1), HOSTED, "eu", "na", pair) == "atlantic"
    assert choose_server(random.Random(1), HOSTED, "eu", "oce", pair) == "anywhere"


def test_latencies_choose_nothing_in_a_queue_whose_regions_host_no_server() -> None:
    pair = [(("eu", 10),), (("eu", 20),)]
    assert latency_region(PROFILE.routes, pair) is None
    assert choose_server(random.Random(1), PROFILE, "eu", "na", pair) == "atlantic"


def test_the_latency_regions_servers_are_drawn_from_the_seeded_rng() -> None:
    near_na = [(("na", 20), ("eu", 90)), (("na", 25),)]
    draws = [choose_server(random.Random(seed), HOSTED, "eu", "eu", near_na) for seed in range(20)]
    assert set(draws) == {"nyc-1", "nyc-2"}
    again = [choose_server(random.Random(seed), HOSTED, "eu", "eu", near_na) for seed in range(20)]
    assert draws == again
