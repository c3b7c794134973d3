"""The per-factor report of a match, computed from its players with the scalar factors.

The search ranks matches with the vectorised evaluator; the report recomputes each
match from the definitions in :mod:`matcher.multifactor.factors`, and a test proves
the two agree bit for bit, so the numbers in ``Match.quality`` are the ones the
search optimised.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matcher.core import LastMatch, Player
from matcher.multifactor.config import MultifactorConfig
from matcher.multifactor.factors import (
    MatchScore,
    combine,
    hosts_score,
    pair_ping_ms,
    ping_score,
    player_skill_score,
    premade_score,
    team_skill_score,
    variation_score,
)

#: A team as parties: each party is the (player, rating) pairs of one ticket.
Team = Sequence[Sequence[tuple[Player, int]]]


def score_teams(
    team1: Team, team2: Team, history: Mapping[str, LastMatch], config: MultifactorConfig
) -> MatchScore:
    """Every factor of the match ``team1`` vs ``team2`` and its weighted total.

    >>> a, b = Player("a", (("r", 1500),)), Player("b", (("r", 1500),))
    >>> score_teams([[(a, 1500)]], [[(b, 1500)]], {}, MultifactorConfig()).factors
    (1.0, 1.0, 1.0, 0.45, 1.0, 0.0)

    Notes: O(players^2).
    """
    seats1 = [seat for party in team1 for seat in party]
    seats2 = [seat for party in team2 for seat in party]
    pings = [pair_ping_ms(a, b, config) for a, _ in seats1 for b, _ in seats2]
    factors = (
        team_skill_score([r for _, r in seats1], [r for _, r in seats2], config),
        player_skill_score([r for _, r in seats1 + seats2], config),
        premade_score([len(p) for p in team1], [len(p) for p in team2], config),
        ping_score(pings, config),
        variation_score(_ids(team1), _ids(team2), history, config),
        hosts_score(sum(p.can_host for p, _ in seats1 + seats2), config),
    )
    return MatchScore(total=combine(factors, config), factors=factors)


def _ids(team: Team) -> list[list[str]]:
    return [[player.player_id for player, _ in party] for party in team]


def rating_figures(team1: Sequence[int], team2: Sequence[int]) -> tuple[tuple[str, float], ...]:
    """The figures every team match carries: gap of mean ratings, best minus worst.

    Same definitions as the team queues', so dashboards compare strategies directly.

    >>> rating_figures([10, 20], [14, 18])
    (('team_rating_diff', 1.0), ('rating_spread', 10.0))
    """
    means = (sum(team1) / len(team1), sum(team2) / len(team2))
    everyone = [*team1, *team2]
    return (
        ("team_rating_diff", max(means) - min(means)),
        ("rating_spread", float(max(everyone) - min(everyone))),
    )
