"""A tiny, obviously-correct strategy for testing the fold without depending on a real one."""

from __future__ import annotations

import random

import pytest

from matcher.core import (
    Match,
    Player,
    QueueProfile,
    Seat,
    Team,
    Ticket,
    WaveResult,
    WaveSnapshot,
    derive_match_id,
)
from matcher.placement import channel_name, choose_map, choose_server, playable_maps
from matcher.strategies import is_registered, register_strategy

PAIRS = "test-pairs-in-order"


def pair_in_order(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Pair tickets two by two in join order, when they share a playable map."""
    rng = random.Random(snapshot.seed)
    matches: list[Match] = []
    waiting = [w.ticket for w in snapshot.tickets]
    unmatched: list[str] = []
    while len(waiting) >= 2:
        a, b = waiting.pop(0), waiting.pop(0)
        vetoes = [m for t in (a, b) for p in t.players for m in p.vetoed_maps]
        if not playable_maps(profile.maps, vetoes):
            unmatched.append(a.ticket_id)
            waiting.insert(0, b)
            continue
        teams = tuple(
            Team(
                f"team{i}",
                tuple(Seat(t.ticket_id, p.player_id, "", p.ratings[0][1]) for p in t.players),
            )
            for i, t in enumerate((a, b), start=1)
        )
        matches.append(
            Match(
                derive_match_id(
                    snapshot.queue, snapshot.region, snapshot.wave_id, (a.ticket_id, b.ticket_id)
                ),
                teams,
                choose_map(rng, profile.maps, vetoes),
                choose_server(rng, profile, snapshot.region, snapshot.region),
                channel_name(snapshot.matches_placed + len(matches) + 1),
            )
        )
    unmatched.extend(t.ticket_id for t in waiting)
    return WaveResult(PAIRS, tuple(matches), tuple(unmatched))


if not is_registered(PAIRS):
    register_strategy(PAIRS, pair_in_order)


@pytest.fixture
def profile() -> QueueProfile:
    return QueueProfile(queue="duo", strategy=PAIRS, maps=("alpha", "beta"), team_size=2)


def make_ticket(
    ticket_id: str,
    *players: str,
    joined_at_ms: int = 1_000,
    rating: int = 1500,
    vetoes: tuple[str, ...] = (),
    queue: str = "duo",
    region: str = "eu",
) -> Ticket:
    names = players or (f"p-{ticket_id}",)
    return Ticket(
        ticket_id,
        queue,
        region,
        tuple(Player(n, (("any", rating),), vetoed_maps=vetoes) for n in names),
        joined_at_ms,
    )
