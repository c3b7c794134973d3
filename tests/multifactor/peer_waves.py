"""Waves whose players carry round trips to each other, from points on a plane (so the
measured round trips and the region latencies agree as a map would)."""

from __future__ import annotations

import math
import random

from matcher.core import Player, Ticket, WaitingTicket, WaveSnapshot

#: Regions as points of the plane; a round trip is 1 ms per unit of distance plus 10.
REGION_POINTS = {"eu": (0.0, 0.0), "us": (120.0, 0.0)}


def _ms(a: tuple[float, float], b: tuple[float, float]) -> int:
    return 10 + round(math.dist(a, b))


def peer_wave(
    seed: int, players: int, *, measured: float = 0.8, hosts: float = 0.4, spread: float = 150.0
) -> WaveSnapshot:
    """Solo tickets at random points; each pair measured with probability ``measured``
    (by one of the two players), each player able to host with probability ``hosts``."""
    rng = random.Random(seed)
    points = [
        (rng.uniform(-spread / 2, spread), rng.uniform(-spread / 2, spread / 2))
        for _ in range(players)
    ]
    peers: list[list[tuple[str, int]]] = [[] for _ in range(players)]
    for a in range(players):
        for b in range(a + 1, players):
            if rng.random() < measured:
                reporter, other = (a, b) if rng.random() < 0.5 else (b, a)
                peers[reporter].append((f"p{other}", _ms(points[a], points[b])))
    tickets = tuple(
        WaitingTicket(
            Ticket(
                f"t{i}",
                "q3",
                "eu",
                (
                    Player(
                        f"p{i}",
                        (("mmr", rng.randint(1300, 1700)),),
                        latency_ms=tuple(
                            sorted((r, _ms(points[i], at)) for r, at in REGION_POINTS.items())
                        ),
                        can_host=rng.random() < hosts,
                        peer_latency_ms=tuple(sorted(peers[i])),
                    ),
                ),
                i,
            ),
            rng.randint(0, 2),
        )
        for i in range(players)
    )
    return WaveSnapshot("q3", "eu", "w1", 1, seed, 0, tickets)
