"""The multifactor p2p_host_max_ms option (docs/adr/0185) against brute force on small
waves: every match has a player with can_host whose round trip to every other player is
within the limit, its server names the one the rule picks, the live checker agrees, and
no group of the tickets left out could make a match with a host; with the option
ignored the checker finds the matches nobody could host.

The oracle's round trips are written here from the contract's words (TicketJoined
peer_latency_ms: the larger report of a pair, else the best region both measured), not
taken from matcher/peers.py."""

from __future__ import annotations

import math
import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveResult, WaveSnapshot
from matcher.multifactor.checks import multifactor_result_problems
from matcher.strategies import run_wave

REGIONS = {"eu": (0.0, 0.0), "us": (100.0, 0.0)}


def _ms(a: tuple[float, float], b: tuple[float, float]) -> int:
    return 5 + round(math.dist(a, b))


def small_wave(seed: int, team_size: int) -> WaveSnapshot:
    """Four to ten players in tickets of one (or two, for teams of two), at random points;
    about two pairs in three measured, by one or both players; a third able to host."""
    rng = random.Random(seed)
    sizes: list[int] = []
    while sum(sizes) < rng.randint(4, 10):
        sizes.append(rng.choice((1, 1, 2)) if team_size > 1 else 1)
    count = sum(sizes)
    points = [(rng.uniform(-40, 140), rng.uniform(-60, 60)) for _ in range(count)]
    peers: list[dict[str, int]] = [{} for _ in range(count)]
    for a, b in combinations(range(count), 2):
        if rng.random() < 0.65:
            for reporter, other in rng.choice((((a, b),), ((b, a),), ((a, b), (b, a)))):
                jitter = rng.randint(0, 15)
                peers[reporter][f"p{other}"] = _ms(points[a], points[b]) + jitter
    players = [
        Player(
            f"p{i}",
            (("mmr", 50 * rng.randint(26, 34)),),
            latency_ms=tuple(
                (r, _ms(points[i], at)) for r, at in REGIONS.items() if rng.random() < 0.8
            ),
            can_host=rng.random() < 0.35,
            peer_latency_ms=tuple(sorted(peers[i].items())),
        )
        for i in range(count)
    ]
    tickets, seat = [], 0
    for t, size in enumerate(sizes):
        members = tuple(players[seat : seat + size])
        seat += size
        tickets.append(WaitingTicket(Ticket(f"t{t}", "q", "eu", members, t), rng.randint(0, 2)))
    return WaveSnapshot("q", "eu", "w", 1, seed, 60_000, tuple(tickets))


def round_trip(a: Player, b: Player) -> int | None:
    reports = [ms for who, ms in a.peer_latency_ms if who == b.player_id]
    reports += [ms for who, ms in b.peer_latency_ms if who == a.player_id]
    if reports:
        return max(reports)
    theirs = dict(b.latency_ms)
    via = [ms + theirs[r] for r, ms in a.latency_ms if r in theirs]
    return min(via) if via else None


def worst_reach(host: Player, players: list[Player]) -> int | None:
    trips = [round_trip(host, p) for p in players if p is not host]
    return None if None in trips else max((t for t in trips if t is not None), default=0)


def hosts_of(players: list[Player], limit: int) -> list[tuple[int, int]]:
    """(worst round trip, seat) of every player who may host, best first."""
    found = []
    for seat, p in enumerate(players):
        reach = worst_reach(p, players) if p.can_host else None
        if reach is not None and reach <= limit:
            found.append((reach, seat))
    return sorted(found)


def left_hostable(wave: WaveSnapshot, result: WaveResult, team_size: int, limit: int) -> bool:
    """Whether tickets left out fill a match (every such group of 2n players splits into
    two teams of n here: tickets of one or two players) that someone could host."""
    left = [w.ticket for w in wave.tickets if w.ticket.ticket_id in set(result.unmatched)]
    for count in range(1, 2 * team_size + 1):
        for group in combinations(left, count):
            players = [p for t in group for p in t.players]
            if len(players) == 2 * team_size and hosts_of(players, limit):
                return True
    return False


def profile(team_size: int, limit: int | None) -> QueueProfile:
    options: dict[str, object] = {"weight_hosts": 1.0, "budget_evaluations": 500}
    if limit is not None:
        options["p2p_host_max_ms"] = limit
    return QueueProfile("q", "multifactor", ("m",), team_size=team_size, options=options)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    team_size=st.sampled_from((1, 2, 2)),
    limit=st.sampled_from((40, 70, 110)),
)
def test_every_match_has_a_host_and_none_is_left_possible(
    seed: int, team_size: int, limit: int
) -> None:
    wave = small_wave(seed, team_size)
    queue = profile(team_size, limit)
    result = run_wave(wave, queue)
    players = {p.player_id: p for w in wave.tickets for p in w.ticket.players}
    for match in result.matches:
        seated = [players[s.player_id] for team in match.teams for s in team.seats]
        hosts = hosts_of(seated, limit)
        assert hosts, f"seed {seed}: match {match.match_id} has no host"
        assert match.server == seated[hosts[0][1]].player_id, seed
    assert not left_hostable(wave, result, team_size, limit), f"seed {seed}: a match left"
    assert multifactor_result_problems(wave, queue, result) == [], seed
    assert run_wave(wave, queue) == result  # replayed identically: a function of the wave
    ignored = run_wave(wave, profile(team_size, None))
    unhostable = [
        m
        for m in ignored.matches
        if not hosts_of([players[s.player_id] for t in m.teams for s in t.seats], limit)
    ]
    if unhostable:
        problems = multifactor_result_problems(wave, queue, ignored)
        assert any("no player with can_host reaches every other" in p for p in problems)


def test_the_waves_exercise_the_checker() -> None:
    """Run after the property: some waves had a match nobody could host with the option off."""
    for seed in range(12):
        wave = small_wave(seed, 2)
        players = {p.player_id: p for w in wave.tickets for p in w.ticket.players}
        ignored = run_wave(wave, profile(2, None))
        if any(
            not hosts_of([players[s.player_id] for t in m.teams for s in t.seats], 40)
            for m in ignored.matches
        ):
            return
    raise AssertionError("no wave had an unhostable match: the checker was never exercised")
