"""The per-factor report of a match, computed from its players with the scalar factors.

The search ranks matches with the vectorised evaluator; the report recomputes each
match from the definitions in :mod:`matcher.multifactor.factors`, and a test proves
the two agree bit for bit, so the numbers in ``Match.quality`` are the ones the
search optimised.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matcher.core import LastMatch, Match, Player
from matcher.multifactor.config import FACTORS, MultifactorConfig
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
from matcher.peers import reachable_hosts
from matcher.teams.imbalance import Imbalance, quality_of

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
        hosts_score(_hosts(seats1 + seats2, config), config),
    )
    return MatchScore(total=combine(factors, config), factors=factors)


def _hosts(seats: Sequence[tuple[Player, int]], config: MultifactorConfig) -> int:
    """Players able to host: with ``p2p_host_max_ms``, only those who reach everyone."""
    if config.p2p_host_max_ms:
        return len(reachable_hosts([p for p, _ in seats], config.p2p_host_max_ms))
    return sum(p.can_host for p, _ in seats)


def _ids(team: Team) -> list[list[str]]:
    return [[player.player_id for player, _ in party] for party in team]


def rating_figures(team1: Sequence[int], team2: Sequence[int]) -> tuple[tuple[str, float], ...]:
    """The figures every team match carries (the team queues' own function and defaults).

    Published so dashboards compare strategies directly, and so the team queues'
    checker (:func:`matcher.teams.checks.team_result_problems`) accepts these matches.

    >>> dict(rating_figures([10, 20], [14, 18]))["team_rating_diff"]
    1.0

    Notes: O(players).
    """
    return quality_of([list(team1), list(team2)], Imbalance())


def format_report(matches: Sequence[Match]) -> str:
    """A text table of every match's total and per-factor scores, worst match first.

    Worst first because the usual question is "why did this match score low": the
    factor columns answer it, and the last line gives each factor's wave mean.

    >>> m = Match("m1", (), "arena", "s", "c", (("score", 0.5), ("factor.ping", 0.25)))
    >>> print(format_report([m]))  # doctest: +NORMALIZE_WHITESPACE
    match     score  team_skill player_skill premades ping  variation hosts
    m1        0.500  -          -            -        0.250 -         -
    mean      0.500  -          -            -        0.250 -         -

    Notes: O(matches x factors).
    """
    columns = ("score", *(f"factor.{name}" for name in FACTORS))
    header = ["match", *(name.removeprefix("factor.") for name in columns)]
    rows = [
        [m.match_id[:8], *(_cell(m.quality_of(c)) for c in columns)] for m in _worst_first(matches)
    ]
    means = [_mean([m.quality_of(c) for m in matches]) for c in columns]
    rows.append(["mean", *(_cell(v) for v in means)])
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    )


def _worst_first(matches: Sequence[Match]) -> list[Match]:
    return sorted(matches, key=lambda m: (m.quality_of("score") or 0.0, m.match_id))


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None
