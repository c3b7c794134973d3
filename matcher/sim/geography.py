"""Where simulated players sit: latencies to their region and round trips to each other.

Only for a scenario with ``[scenario.peers]`` (docs/simulator.md): every player gets a
point in a disc around their region's server, drawn from the scenario seed, and from the
points their ``latency_ms`` to the region, ``can_host``, and ``peer_latency_ms`` to the
players of the sessions starting nearest in time (the ones likely to queue with them).
A round trip is ``base_ms`` plus the distance, so the two kinds of latency are consistent.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

from matcher.core import Player
from matcher.sim.config import PeerSpec

Point = tuple[float, float]


#: The players of one session (a party) and its region, in start order.
Party = tuple[str, tuple[Player, ...]]


def with_peers(parties: list[Party], spec: PeerSpec, seed: int) -> list[tuple[Player, ...]]:
    """The players of each party (sessions in start order), placed and measured.

    >>> parties = [("eu", (Player(f"p{i}", (("any", 1500),)),)) for i in range(3)]
    >>> placed = with_peers(parties, PeerSpec(measured=1), 7)
    >>> [len(players[0].peer_latency_ms) for players in placed], placed[0][0].latency_ms[0][0]
    ([1, 1, 1], 'eu')

    Notes: O(players x measured log measured).
    """
    rng = random.Random(f"{seed}/peers")
    points: dict[str, Point] = {}
    hosts: dict[str, bool] = {}
    for _, players in parties:
        for player in players:
            angle, reach = rng.uniform(0.0, 2 * math.pi), spec.radius_ms * math.sqrt(rng.random())
            points[player.player_id] = (reach * math.cos(angle), reach * math.sin(angle))
            hosts[player.player_id] = rng.random() < spec.hosts

    def placed(region: str, player: Player, near: list[str]) -> Player:
        here = points[player.player_id]
        return replace(
            player,
            latency_ms=((region, _round_trip(here, (0.0, 0.0), spec)),),
            can_host=hosts[player.player_id],
            peer_latency_ms=tuple(
                sorted(
                    (other, _round_trip(here, points[other], spec))
                    for other in near
                    if other != player.player_id
                )
            ),
        )

    return [
        tuple(placed(region, p, _nearest_in_time(parties, index, spec.measured)) for p in players)
        for index, (region, players) in enumerate(parties)
    ]


def _nearest_in_time(parties: list[Party], index: int, count: int) -> list[str]:
    """Up to ``count`` other players of the parties of the same region nearest in start
    order: the party's own first, then alternately later and earlier parties."""
    region, own = parties[index]
    chosen = [p.player_id for p in own]
    wanted = count + len(own)
    later, earlier = index + 1, index - 1
    while len(chosen) < wanted and (later < len(parties) or earlier >= 0):
        for at in (later, earlier):
            if 0 <= at < len(parties) and parties[at][0] == region:
                chosen.extend(p.player_id for p in parties[at][1])
        later, earlier = later + 1, earlier - 1
    return chosen[:wanted]


def _round_trip(a: Point, b: Point, spec: PeerSpec) -> int:
    return round(spec.base_ms + math.dist(a, b))
