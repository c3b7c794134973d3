"""The six factors of a match, each in [0, 1] with 1 best, and how they combine.

These scalar functions are the definition: the search's vectorised evaluator
(:mod:`matcher.multifactor.evaluate`) must agree with them to the last bit, and the
per-factor report of every match is computed here. Pair scores and penalties are
fixed-point integers (``config.UNIT``) so that sums are exact in any order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from matcher.core import LastMatch, Player
from matcher.multifactor.config import FACTORS, UNIT, MultifactorConfig
from matcher.peers import region_estimate_ms, round_trip_ms

#: A factor value: a float in the report, an array of candidates in the search.
Number = TypeVar("Number", float, npt.NDArray[np.float64])


def capped(rating: int, config: MultifactorConfig) -> int:
    """Rating clipped into ``[rating_floor, rating_ceiling]`` (used by team skill only)."""
    return min(max(rating, config.rating_floor), config.rating_ceiling)


def team_skill_score(
    team1: Sequence[int], team2: Sequence[int], config: MultifactorConfig
) -> float:
    """1 / (1 + gap between the teams' mean capped ratings / team_skill_scale).

    Teams have the same size, so the gap of means is |sum1 - sum2| / size. Strictly
    decreasing in the gap and never 0: a more balanced split always scores higher, however
    lopsided both are (a floor at 0 made every gap past the scale equally bad).

    >>> team_skill_score([1500, 1600], [1550, 1550], MultifactorConfig())
    1.0
    >>> team_skill_score([1700, 1700], [1600, 1600], MultifactorConfig(team_skill_scale=100))
    0.5

    Notes: O(players).
    """
    gap = abs(sum(capped(r, config) for r in team1) - sum(capped(r, config) for r in team2))
    return 1.0 / (1.0 + gap / (len(team1) * config.team_skill_scale))


def player_skill_score(ratings: Sequence[int], config: MultifactorConfig) -> float:
    """1 / (1 + mean |r_i - r_j| over all pairs of players / player_skill_scale).

    Strictly decreasing in the mean gap and never 0, as :func:`team_skill_score`.

    >>> player_skill_score([1000, 1100, 1200], MultifactorConfig(player_skill_scale=400))
    0.749...

    Notes: O(players^2).
    """
    total = sum(abs(a - b) for i, a in enumerate(ratings) for b in ratings[i + 1 :])
    pairs = len(ratings) * (len(ratings) - 1) // 2
    return 1.0 / (1.0 + total / pairs / config.player_skill_scale) if pairs else 1.0


def premade_steps(parties1: Sequence[int], parties2: Sequence[int]) -> int:
    """How many players must change party to give both teams the same party structure.

    Half the L1 distance of the party sizes sorted in decreasing order.

    >>> premade_steps([3], [2, 1]), premade_steps([3], [1, 1, 1]), premade_steps([2, 1], [1, 2])
    (1, 2, 0)
    """
    a, b = sorted(parties1, reverse=True), sorted(parties2, reverse=True)
    width = max(len(a), len(b))
    a, b = a + [0] * (width - len(a)), b + [0] * (width - len(b))
    return sum(abs(x - y) for x, y in zip(a, b, strict=True)) // 2


def premade_score(
    parties1: Sequence[int], parties2: Sequence[int], config: MultifactorConfig
) -> float:
    """1 for the same party structure, ``premade_small_score`` one step away, 0 at the most.

    Between one step and the largest possible difference (size - 1 steps: a full
    premade against solos) the score falls linearly; with teams of 2 one step is
    already the largest difference and scores 0.

    >>> cfg = MultifactorConfig()
    >>> [premade_score([3], other, cfg) for other in ([3], [2, 1], [1, 1, 1])]
    [1.0, 0.6, 0.0]

    Notes: O(players log players).
    """
    steps = premade_steps(parties1, parties2)
    most = sum(parties1) - 1
    if steps == 0:
        return 1.0
    if most <= 1:
        return 0.0
    return config.premade_small_score * (most - steps) / (most - 1)


def pair_ping_ms(a: Player, b: Player, config: MultifactorConfig) -> int:
    """Estimated round trip between two players: the best shared region, via it.

    ``min over regions both measured of (latency_a + latency_b)``; a pair without a
    shared measurement gets ``ping_unknown_ms``. With ``ping_peer`` = 1, a round trip
    either player measured to the other (``Player.peer_latency_ms``) comes first.

    >>> a = Player("a", (), latency_ms=(("eu", 30), ("us", 90)), peer_latency_ms=(("b", 45),))
    >>> b = Player("b", (), latency_ms=(("eu", 50),))
    >>> pair_ping_ms(a, b, MultifactorConfig()), pair_ping_ms(a, b, MultifactorConfig(ping_peer=1))
    (80, 45)
    """
    found = round_trip_ms(a, b) if config.ping_peer else region_estimate_ms(a, b)
    return config.ping_unknown_ms if found is None else found


def ping_units(ms: int, config: MultifactorConfig) -> int:
    """Perceived score of a round trip of ``ms`` on the configured curve, in ``UNIT``\\ s.

    >>> ping_units(100, MultifactorConfig()), ping_units(110, MultifactorConfig())
    (750000, 690000)
    """
    curve = config.ping_curve
    if ms >= curve[-1][0]:
        return round(curve[-1][1] * UNIT)
    for (x0, y0), (x1, y1) in pairwise(curve):
        if x0 <= ms < x1:
            return round((y0 + (y1 - y0) * (ms - x0) / (x1 - x0)) * UNIT)
    raise ValueError(f"ping {ms} ms is negative")


def ping_score(cross_pings_ms: Sequence[int], config: MultifactorConfig) -> float:
    """Mean perceived score over every (team1 player, team2 player) pair; teammates ignored.

    >>> ping_score([100, 100, 40, 40], MultifactorConfig())
    0.875
    """
    return sum(ping_units(ms, config) for ms in cross_pings_ms) / (len(cross_pings_ms) * UNIT)


def relation_penalty_units(
    a: str, b: str, now_teammates: bool, history: Mapping[str, LastMatch], config: MultifactorConfig
) -> int:
    """Penalty of putting ``a`` and ``b`` together (or against each other) again.

    The same relation as in either one's last match costs ``variation_repeat_penalty``;
    the other relation (former opponents now teammates, or the reverse) costs
    ``variation_swapped_penalty``; no encounter costs nothing.
    """
    repeat = round(config.variation_repeat_penalty * UNIT)
    swapped = round(config.variation_swapped_penalty * UNIT)
    worst = 0
    for me, other in ((a, b), (b, a)):
        last = history.get(me)
        if last is None:
            continue
        if other in last.teammates:
            worst = max(worst, repeat if now_teammates else swapped)
        elif other in last.opponents:
            worst = max(worst, swapped if now_teammates else repeat)
    return worst


def variation_score(
    team1: Sequence[Sequence[str]],
    team2: Sequence[Sequence[str]],
    history: Mapping[str, LastMatch],
    config: MultifactorConfig,
) -> float:
    """1 - mean relation penalty over all pairs of players of the match.

    Teams are given as parties (tuples of player ids); members of one party are
    never penalised for playing together again, since a party always does.

    >>> last = {"a": LastMatch("a", ("b",), ("c",))}
    >>> variation_score([["a"], ["b"]], [["c"], ["d"]], last, MultifactorConfig())
    0.666...

    Notes: O(players^2).
    """
    seats = [
        (pid, side, party)
        for side, team in enumerate((team1, team2))
        for party, members in enumerate(team)
        for pid in members
    ]
    total = 0
    for i, (a, side_a, party_a) in enumerate(seats):
        for b, side_b, party_b in seats[i + 1 :]:
            if side_a == side_b and party_a == party_b:
                continue
            total += relation_penalty_units(a, b, side_a == side_b, history, config)
    pairs = len(seats) * (len(seats) - 1) // 2
    return 1.0 - total / (pairs * UNIT)


def hosts_score(hosts: int, config: MultifactorConfig) -> float:
    """1 with two or more players able to host, ``hosts_one_score`` with one, else 0.

    >>> [hosts_score(n, MultifactorConfig()) for n in (0, 1, 2, 3)]
    [0.0, 0.5, 1.0, 1.0]
    """
    return 1.0 if hosts >= 2 else config.hosts_one_score if hosts == 1 else 0.0


def combine(factors: Sequence[Number], config: MultifactorConfig) -> Number:
    """Weighted average of the factors (in ``FACTORS`` order); works on floats and arrays.

    The operations and their order are fixed, so the scalar report and the vectorised
    search compute bit-identical totals.

    >>> combine([1.0, 1.0, 1.0, 0.0, 1.0, 0.0], MultifactorConfig())
    0.75
    """
    weights = config.weights()
    total = factors[0] * weights[0]
    for factor, weight in zip(factors[1:], weights[1:], strict=True):
        total = total + factor * weight
    return total / config.total_weight()


def transform(score: Number, config: MultifactorConfig) -> Number:
    """Concave transform of a match score: ``s - emphasis * (1 - s)^2`` (identity at 0).

    Concave and increasing on [0, 1], so raising a bad match gains more than raising
    a good one by the same amount; only + and * so every machine agrees to the bit.

    >>> transform(0.5, MultifactorConfig(worst_match_emphasis=1.0))
    0.25
    """
    emphasis = config.worst_match_emphasis
    if emphasis == 0:
        return score
    return score - (1.0 - score) * (1.0 - score) * emphasis


def wave_score(match_scores: Sequence[float], config: MultifactorConfig) -> float:
    """Mean of the transformed match scores (0 for a wave without matches).

    >>> wave_score([1.0, 0.5], MultifactorConfig())
    0.75
    """
    if not match_scores:
        return 0.0
    return sum(transform(score, config) for score in match_scores) / len(match_scores)


@dataclass(frozen=True, slots=True)
class MatchScore:
    """Total and per-factor scores of one match, in ``FACTORS`` order."""

    total: float
    factors: tuple[float, ...]

    def quality(self) -> tuple[tuple[str, float], ...]:
        """The ``Match.quality`` entries: ``score`` then ``factor.<name>``."""
        named = tuple(
            (f"factor.{name}", value) for name, value in zip(FACTORS, self.factors, strict=True)
        )
        return (("score", self.total), *named)
