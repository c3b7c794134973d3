"""The arrival stream: sessions of players, drawn once per scenario from the seed.

A session is a party that arrives (a Poisson process per region, thinned by a
time-of-day curve), plays a geometric number of games and re-queues after each one.
Everything a variant could otherwise draw differently - a ticket's patience, the
length of a game - is drawn from a generator seeded by the ticket id, so every
variant of a scenario meets the same players behaving the same way.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from matcher.core import Player
from matcher.sim.config import DUEL, RegionSpec, Scenario
from matcher.sim.geography import with_peers

RATING_MIN, RATING_MAX = 0, 5_000
#: Spread of a party's members around the party's mean rating, as a share of the region's sd.
PARTY_SPREAD = 0.35
#: Difference between a player's sc2 and bw ratings when rated for both, in rating points.
CROSS_RACE_SD = 100.0
#: Spread of a player's role ratings, and of their skill dimensions, around their rating.
ROLE_SD = 80.0
DIMENSION_SD = 200.0


@dataclass(frozen=True, slots=True)
class Session:
    """A party's evening: its players, when it first queues and how many games it plays."""

    session_id: str
    region: str
    started_at_ms: int
    players: tuple[Player, ...]
    games: int


def draw_sessions(scenario: Scenario, seed: int) -> tuple[Session, ...]:
    """All sessions of ``scenario``, in start order (ties by id).

    >>> from matcher.sim.config import Behaviour, Variant
    >>> from matcher.queue.cadence import CadencePolicy
    >>> s = Scenario("s", "1v1", "duel", 1, (RegionSpec("eu", 120.0),), Behaviour(),
    ...              (Variant("v", "optimal", CadencePolicy()),), duration_s=600)
    >>> draw_sessions(s, 7) == draw_sessions(s, 7), 5 < len(draw_sessions(s, 7)) < 40
    (True, True)

    Notes: O(sessions x party size).
    """
    sessions = [
        session
        for region in scenario.regions
        for session in _region_sessions(scenario, region, seed)
    ]
    ordered = tuple(sorted(sessions, key=lambda s: (s.started_at_ms, s.session_id)))
    if scenario.peers is None:
        return ordered
    placed = with_peers([(s.region, s.players) for s in ordered], scenario.peers, seed)
    return tuple(replace(s, players=p) for s, p in zip(ordered, placed, strict=True))


def _region_sessions(scenario: Scenario, region: RegionSpec, seed: int) -> list[Session]:
    rng = random.Random(f"{seed}/{scenario.name}/{region.name}")
    peak = max(region.curve)
    peak_per_s = region.sessions_per_hour * peak / 3600.0
    out: list[Session] = []
    t = 0.0
    while True:
        # Thinning (Lewis & Shedler): candidates at the peak rate, kept with rate(t)/peak.
        t += rng.expovariate(peak_per_s)
        if t >= scenario.duration_s:
            return out
        if rng.random() * peak >= curve_at(region.curve, scenario.start_hour + t / 3600.0):
            continue
        session_id = f"{region.name}-{len(out)}"
        players = _party(scenario, region, rng, session_id)
        out.append(Session(session_id, region.name, int(t * 1000), players, _games(scenario, rng)))


def curve_at(curve: tuple[float, ...], hour: float) -> float:
    """The time-of-day multiplier at ``hour`` (wrapping at 24).

    >>> curve_at((1.0, 2.0), 13.5), curve_at((1.0, 2.0), 25.0)
    (2.0, 1.0)
    """
    return curve[int((hour % 24.0) * len(curve) / 24.0) % len(curve)]


def _party(
    scenario: Scenario, region: RegionSpec, rng: random.Random, session_id: str
) -> tuple[Player, ...]:
    weights = scenario.behaviour.party_weights
    size = rng.choices(range(1, len(weights) + 1), weights=weights)[0]
    centre = rng.gauss(region.rating_mean, region.rating_sd)
    spread = region.rating_sd * PARTY_SPREAD if size > 1 else 0.0
    players = []
    for index in range(size):
        rating = _clip(rng.gauss(centre, spread) if spread else centre)
        ratings = (
            _duel_ratings(scenario, rng, rating) if scenario.kind == DUEL else (("any", rating),)
        )
        if scenario.roles or scenario.skill_dimensions:
            players.append(_team_player(scenario, rng, f"{session_id}.p{index}", rating))
            continue
        players.append(Player(f"{session_id}.p{index}", ratings))
    return tuple(players)


def _team_player(scenario: Scenario, rng: random.Random, player_id: str, rating: int) -> Player:
    """A player of a role queue (one or two roles, a rating each) or rated per dimension."""
    if scenario.roles:
        offered = tuple(sorted(rng.sample(sorted(set(scenario.roles)), rng.choice((1, 2)))))
        rated = [(role, _clip(rng.gauss(rating, ROLE_SD))) for role in offered]
        return Player(player_id, tuple(rated), roles=offered)
    rated = [("any", rating)]
    rated += [(name, _clip(rng.gauss(rating, DIMENSION_SD))) for name in scenario.skill_dimensions]
    return Player(player_id, tuple(sorted(rated)))


def _duel_ratings(
    scenario: Scenario, rng: random.Random, rating: int
) -> tuple[tuple[str, int], ...]:
    which = rng.choices((0, 1, 2), weights=scenario.behaviour.race_weights)[0]
    if which == 0:
        return (("bw", rating),)
    if which == 1:
        return (("sc2", rating),)
    return (("bw", rating), ("sc2", _clip(rng.gauss(rating, CROSS_RACE_SD))))


def _games(scenario: Scenario, rng: random.Random) -> int:
    mean = scenario.behaviour.games_per_session
    if mean <= 1.0:
        return 1
    return 1 + geometric(rng.random(), 1.0 / mean)


def geometric(u: float, p: float) -> int:
    """Failures before the first success of chance ``p``, by inversion of uniform ``u``.

    >>> geometric(0.5, 0.5), geometric(0.2, 0.5), geometric(0.3, 1.0)
    (1, 2, 0)
    >>> geometric(0.5, 1e-300) == geometric(0.5, 0.0) == 1 << 62
    True
    """
    if p >= 1.0:
        return 0
    never = 1 << 62
    if p <= 0.0:
        return never
    failures = math.log(max(u, 1e-300)) / math.log1p(-p)
    # A chance too small to represent (denormal p) overflows: that is "never".
    return min(never, int(failures)) if math.isfinite(failures) else never


def patience_waves(seed: int, ticket_id: str, leave_per_wave: float) -> int:
    """How many waves a ticket waits before giving up (a very large number: never)."""
    return geometric(random.Random(f"{seed}/leave/{ticket_id}").random(), leave_per_wave)


def break_ms(seed: int, ticket_id: str, game_length_s: float) -> int:
    """Time from a ticket's match until its session queues again: the game, +-25%."""
    jitter = 0.75 + 0.5 * random.Random(f"{seed}/game/{ticket_id}").random()
    return int(game_length_s * 1000 * jitter)


def _clip(value: float) -> int:
    return int(min(RATING_MAX, max(RATING_MIN, round(value))))
