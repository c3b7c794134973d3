"""The bulk placement and ids of a wave equal the match-by-match functions they replace:
same maps, servers and ids, and the wave RNG left in the same state (same draws)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import QueueProfile, ServerRoute, derive_match_id
from matcher.placement import (
    Latencies,
    NoPlayableMap,
    choose_map,
    choose_server,
    derive_match_ids,
    place_matches,
)

MAPS = ("a", "b", "c", "d", "e")
REGIONS = ("eu", "na", "asia")
routes = st.lists(
    st.builds(
        ServerRoute,
        st.sampled_from(REGIONS),
        st.sampled_from(REGIONS),
        st.lists(st.sampled_from(("s1", "s2", "s3", "s4", "s5")), max_size=5).map(tuple),
    ),
    max_size=6,
)
profiles = st.builds(
    QueueProfile,
    queue=st.just("1v1"),
    strategy=st.just("optimal"),
    maps=st.lists(st.sampled_from(MAPS), min_size=1, max_size=5, unique=True).map(tuple),
    routes=routes.map(tuple),
    fallback_servers=st.lists(st.sampled_from(("f1", "f2", "f3")), min_size=1, max_size=3).map(
        tuple
    ),
)
# Vetoes leave one map, several, or (rarely) none; duplicates and unknown maps included.
vetoes = st.lists(st.sampled_from((*MAPS, "zz")), max_size=6).map(tuple)
region_pairs = st.tuples(st.sampled_from(REGIONS), st.sampled_from(REGIONS))


# A player's latencies to some of the regions (none: unmeasured).
player_latencies = st.lists(
    st.tuples(st.sampled_from(REGIONS), st.integers(0, 200)), max_size=3, unique_by=lambda x: x[0]
).map(tuple)
match_latencies = st.lists(player_latencies, min_size=2, max_size=4).map(tuple)


def one_by_one(
    rng: random.Random,
    profile: QueueProfile,
    banned: list[tuple[str, ...]],
    pairs: list[tuple[str, str]],
    measured: list[tuple[Latencies, ...]] | None = None,
) -> list[tuple[str, str]]:
    """The placement loop of every strategy before the bulk function."""
    measured = measured or [()] * len(banned)
    return [
        (choose_map(rng, profile.maps, veto), choose_server(rng, profile, *pair, latencies))
        for veto, pair, latencies in zip(banned, pairs, measured, strict=True)
    ]


@settings(max_examples=300, deadline=None)
@given(
    profile=profiles,
    matches=st.lists(st.tuples(vetoes, region_pairs, match_latencies), max_size=40),
    seed=st.integers(0, 2**64 - 1),
    with_latencies=st.booleans(),
)
def test_bulk_placement_draws_exactly_as_the_match_by_match_functions(
    profile: QueueProfile,
    matches: list[tuple[tuple[str, ...], tuple[str, str], tuple[Latencies, ...]]],
    seed: int,
    with_latencies: bool,
) -> None:
    banned = [veto for veto, _, _ in matches]
    pairs = [pair for _, pair, _ in matches]
    measured = [latencies for _, _, latencies in matches] if with_latencies else None
    old_rng, new_rng = random.Random(seed), random.Random(seed)
    try:
        expected = one_by_one(old_rng, profile, banned, pairs, measured)
    except NoPlayableMap:
        with pytest.raises(NoPlayableMap):
            place_matches(new_rng, profile, banned, pairs, measured)
        return
    assert place_matches(new_rng, profile, banned, pairs, measured) == expected
    assert new_rng.getstate() == old_rng.getstate()


def test_a_single_playable_map_still_costs_a_draw_and_a_single_server_none() -> None:
    profile = QueueProfile("1v1", "optimal", ("a", "b"), fallback_servers=("only",))
    rng = random.Random(3)
    place_matches(rng, profile, [("a",)], [("eu", "eu")])
    reference = random.Random(3)
    reference.randrange(1)
    assert rng.getstate() == reference.getstate()


def test_a_random_subclass_is_asked_for_its_own_draws() -> None:
    class Fixed(random.Random):
        def randrange(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
            return 0

    profile = QueueProfile("1v1", "optimal", ("a", "b", "c"), fallback_servers=("x", "y"))
    assert place_matches(Fixed(1), profile, [(), ()], [("eu", "eu")] * 2) == [("a", "x")] * 2


@settings(max_examples=300, deadline=None)
@given(
    wave=st.tuples(st.text(min_size=1), st.text(min_size=1), st.text(min_size=1)),
    groups=st.lists(st.lists(st.text(), max_size=4).map(tuple), max_size=8),
)
def test_bulk_match_ids_equal_derive_match_id(
    wave: tuple[str, str, str], groups: list[tuple[str, ...]]
) -> None:
    queue, region, wave_id = wave
    assert derive_match_ids(queue, region, wave_id, groups) == [
        derive_match_id(queue, region, wave_id, group) for group in groups
    ]
