"""Alman & McKay's imbalance of a game, and the quality figures every team match carries.

``f(X, Y) = alpha * |s_p(X) - s_p(Y)| + v_q(X u Y)`` (Alman & McKay, "Theoretical
Foundations of Team Matchmaking", AAMAS 2017): ``s_p`` is the p-norm of a team's
ratings (p = 1: the sum; p = inf: the best player), ``v_q`` the q-th-power mean absolute
deviation of the whole game from its mean (q = 2: standard deviation; q = inf: the
largest deviation). With more than two teams we take the largest pairwise strength
gap, which is the paper's f for two teams.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

INF = math.inf


@dataclass(frozen=True, slots=True)
class Imbalance:
    """Parameters of f: ``alpha`` >= 0 weighs team strength against game uniformity."""

    alpha: float = 1.0
    p: float = 1.0
    q: float = 2.0

    def rho(self, k: int) -> float:
        """Approximation ratio of the role-restricted interval game: 2 k^(1/q) (1 + alpha).

        >>> Imbalance(alpha=1.0, q=INF).rho(5)
        4.0
        """
        return 2.0 * _root(k, self.q) * (1.0 + self.alpha)

    def window(self, k: int) -> int:
        """Players (the anchor included) that hold some optimal game starting at the anchor.

        The paper's 4 (1 + alpha) k^(1 + 1/q), plus 2k so that the bound holds with
        the normalisation used here (proof in docs/adr/0033).

        >>> Imbalance(alpha=1.0, q=2.0).window(5)
        100
        >>> Imbalance(alpha=0.0, q=INF).window(1)
        6
        """
        return math.ceil(4.0 * (1.0 + self.alpha) * k * _root(k, self.q) + 2 * k - 1e-9)


def _root(k: int, q: float) -> float:
    return 1.0 if math.isinf(q) else float(k) ** (1.0 / q)


def strength(ratings: Sequence[float], p: float) -> float:
    """s_p: the p-norm of a team's ratings.

    >>> strength([3, 4], 1), strength([3, 4], 2), strength([3, 4], INF)
    (7.0, 5.0, 4.0)

    Notes: O(len(ratings)).
    """
    if not ratings:
        return 0.0
    if math.isinf(p):
        return float(max(abs(value) for value in ratings))
    if p == 1:
        return float(sum(abs(value) for value in ratings))
    return float(sum(abs(value) ** p for value in ratings) ** (1.0 / p))


def spread(ratings: Sequence[float], q: float) -> float:
    """v_q: q-th-power mean absolute deviation of ``ratings`` from their mean.

    >>> spread([1, 3], 2), spread([1, 2, 6], INF), spread([1, 3, 5, 7], 1)
    (1.0, 3.0, 2.0)

    Notes: O(len(ratings)).
    """
    if not ratings:
        return 0.0
    mean = sum(ratings) / len(ratings)
    deviations = [abs(value - mean) for value in ratings]
    if math.isinf(q):
        return max(deviations)
    if q == 1:
        return sum(deviations) / len(deviations)
    return float((sum(d**q for d in deviations) / len(deviations)) ** (1.0 / q))


def imbalance(teams: Sequence[Sequence[float]], params: Imbalance) -> float:
    """f of a game given each team's ratings.

    >>> imbalance([[10, 20], [14, 16]], Imbalance(alpha=1.0, p=1.0, q=INF))
    5.0

    Notes: O(players + teams^2).
    """
    strengths = [strength(team, params.p) for team in teams]
    gap = max(strengths) - min(strengths) if strengths else 0.0
    everyone = [value for team in teams for value in team]
    return params.alpha * gap + spread(everyone, params.q)


def team_rating_diff(teams: Sequence[Sequence[float]]) -> float:
    """Largest gap between two teams' mean ratings (the rebalance "distance").

    >>> team_rating_diff([[10, 20], [14, 18]])
    1.0
    """
    means = [sum(team) / len(team) for team in teams if team]
    return max(means) - min(means) if means else 0.0


def rating_spread(teams: Sequence[Sequence[float]]) -> float:
    """Best minus worst rating in the game.

    >>> rating_spread([[10, 20], [14, 18]])
    10.0
    """
    everyone = [value for team in teams for value in team]
    return float(max(everyone) - min(everyone)) if everyone else 0.0


def quality_of(
    teams: Sequence[Sequence[float]], params: Imbalance, extra: Sequence[tuple[str, float]] = ()
) -> tuple[tuple[str, float], ...]:
    """The quality figures of a team match, in a stable order.

    >>> dict(quality_of([[10, 20], [14, 18]], Imbalance(q=INF)))["imbalance"]
    7.5
    """
    sizes = [len(team) for team in teams]
    base = (
        ("team_rating_diff", team_rating_diff(teams)),
        ("rating_spread", rating_spread(teams)),
        ("imbalance", imbalance(teams, params)),
        ("member_count_diff", float(max(sizes) - min(sizes))),
    )
    return base + tuple(extra)
