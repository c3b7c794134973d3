"""Builders of multifactor waves: hand-made tickets and hypothesis-generated ones."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from matcher.core import LastMatch, Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot

REGIONS = ("eu", "us")


def player(
    pid: str, rating: int = 1500, *, eu: int = 30, us: int | None = None, host: bool = False
) -> Player:
    latency = (("eu", eu),) if us is None else (("eu", eu), ("us", us))
    return Player(pid, (("mmr", rating),), latency_ms=latency, can_host=host)


def ticket(tid: str, *players: Player, wait: int = 0, joined: int = 0) -> WaitingTicket:
    return WaitingTicket(Ticket(tid, "q3", "eu", tuple(players), joined), wait)


def solo(i: int, rating: int = 1500, **kwargs: object) -> WaitingTicket:
    return ticket(f"t{i}", player(f"p{i}", rating, **kwargs), joined=i)  # type: ignore[arg-type]


def snapshot(
    tickets: list[WaitingTicket] | tuple[WaitingTicket, ...],
    history: tuple[LastMatch, ...] = (),
    seed: int = 7,
) -> WaveSnapshot:
    return WaveSnapshot("q3", "eu", "w1", 1, seed, 0, tuple(tickets), last_matches=history)


def profile(team_size: int = 3, **options: object) -> QueueProfile:
    return QueueProfile(
        "q3", "multifactor", ("arena", "ruins", "dock"), team_size=team_size, options=options
    )


def random_wave(
    seed: int, players: int, team_size: int = 3, parties: bool = True, history: bool = True
) -> WaveSnapshot:
    """A reproducible wave: mixed parties, two regions, a previous wave as history."""
    rng = random.Random(seed)
    tickets: list[WaitingTicket] = []
    made = 0
    while made < players:
        size = rng.choice((1, 1, 1, 2, 3)) if parties else 1
        size = min(size, team_size, players - made)
        centre = rng.randint(900, 2100)
        members = tuple(
            Player(
                f"p{made + k}",
                (("mmr", centre + rng.randint(-100, 100)),),
                latency_ms=tuple((r, rng.randint(10, 250)) for r in REGIONS if rng.random() < 0.8),
                vetoed_maps=("dock",) if rng.random() < 0.1 else (),
                can_host=rng.random() < 0.4,
            )
            for k in range(size)
        )
        tickets.append(
            ticket(f"t{len(tickets)}", *members, wait=rng.randrange(3), joined=len(tickets))
        )
        made += size
    pids = [p.player_id for w in tickets for p in w.ticket.players]
    last: list[LastMatch] = []
    if history:
        rng.shuffle(pids)
        for start in range(0, len(pids) - 5, 6):
            a, b = pids[start : start + 3], pids[start + 3 : start + 6]
            last += [LastMatch(x, tuple(y for y in a if y != x), tuple(b)) for x in a]
            last += [LastMatch(x, tuple(y for y in b if y != x), tuple(a)) for x in b]
    return snapshot(tickets, tuple(last), seed=seed)


waves = st.builds(
    random_wave,
    seed=st.integers(0, 10_000),
    players=st.integers(0, 40),
    team_size=st.sampled_from((1, 2, 3, 3, 4)),
    parties=st.booleans(),
    history=st.booleans(),
)
