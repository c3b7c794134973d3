"""The checker beside the multifactor strategy.

:func:`multifactor_result_problems` applies the team queues' checker
(:func:`matcher.teams.checks.team_result_problems`: the rules common to all strategies,
team names, sizes, seat ratings, rating figures), then its own: exactly two teams of
exactly ``team_size`` seats; seats without a role carrying the player's best rating;
a quality report whose every factor and total are what the definitions in
:mod:`matcher.multifactor.factors` give for those seats; the wave's published score is
the mean of its matches' (transformed) scores; and, in a wave of solo players with no
match lost to map vetoes, the matched players are exactly the longest-waiting ones
(under the queue's ``priority`` rule, but for those displaced by a ticket of higher
priority, ADR 0195).
"""

from __future__ import annotations

import math

from matcher.core import LastMatch, Match, Player, QueueProfile, WaveResult, WaveSnapshot
from matcher.multifactor.config import FACTORS, MultifactorConfig, OptionError, parse_config
from matcher.multifactor.factors import wave_score
from matcher.multifactor.pool import player_rating
from matcher.multifactor.report import rating_figures, score_teams
from matcher.peers import choose_host
from matcher.teams.checks import team_result_problems

REQUIRED_QUALITY = (
    "score",
    *(f"factor.{name}" for name in FACTORS),
    "team_rating_diff",
    "rating_spread",
    "imbalance",
)
_TOLERANCE = 1e-9


def multifactor_result_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """Return every way ``result`` breaks the common or the multifactor rules (empty if none).

    >>> snap = WaveSnapshot("q", "eu", "1", 1, 0, 0, ())
    >>> multifactor_result_problems(snap, QueueProfile("q", "multifactor", ("m",)),
    ...                             WaveResult("multifactor", (), ()))
    []

    Notes: O(players + sum over matches of players^2).
    """
    problems = team_result_problems(snapshot, profile, result)
    try:
        config = parse_config(profile.options)
    except OptionError as error:
        return [*problems, f"profile: {error}"]
    players = {
        (w.ticket.ticket_id, p.player_id): p for w in snapshot.tickets for p in w.ticket.players
    }
    history = {m.player_id: m for m in snapshot.last_matches}
    for match in result.matches:
        problems.extend(_match_problems(match, profile, config, players, history))
    problems.extend(_wave_problems(snapshot, profile, config, result))
    return problems


def _match_problems(
    match: Match,
    profile: QueueProfile,
    config: MultifactorConfig,
    players: dict[tuple[str, str], Player],
    history: dict[str, LastMatch],
) -> list[str]:
    where = f"match {match.match_id}"
    names = tuple(team.name for team in match.teams)
    if names != ("team1", "team2"):
        return [f"{where}: teams are {names}, expected ('team1', 'team2')"]
    problems = [
        f"{where}: {team.name} has {len(team.seats)} players, expected {profile.team_size}"
        for team in match.teams
        if len(team.seats) != profile.team_size
    ]
    sides: list[list[list[tuple[Player, int]]]] = []
    for team in match.teams:
        parties: dict[str, list[tuple[Player, int]]] = {}
        for seat in team.seats:
            player = players.get((seat.ticket_id, seat.player_id))
            if player is None:
                return problems  # the common rules report seats outside the wave
            if seat.role != "" or seat.rating != player_rating(player):
                problems.append(f"{where}: seat of {seat.player_id} is not ('', best rating)")
            parties.setdefault(seat.ticket_id, []).append((player, seat.rating))
        sides.append(list(parties.values()))
    if problems:
        return problems
    seated = [players[(s.ticket_id, s.player_id)] for team in match.teams for s in team.seats]
    problems.extend(_host_problems(match, config, seated))
    report = score_teams(sides[0], sides[1], history, config)
    ratings = [[seat.rating for seat in team.seats] for team in match.teams]
    expected = (*report.quality(), *rating_figures(ratings[0], ratings[1]))
    for name, value in expected:
        published = match.quality_of(name)
        if published is None:
            problems.append(f"{where}: quality lacks {name!r}")
        elif not abs(published - value) <= _TOLERANCE:
            problems.append(f"{where}: {name} is {published} but the seats give {value}")
    problems.extend(
        f"{where}: {name} {value} outside [0, 1]"
        for name, value in report.quality()
        if not 0.0 <= value <= 1.0
    )
    return problems


def _host_problems(match: Match, config: MultifactorConfig, seated: list[Player]) -> list[str]:
    """With ``p2p_host_max_ms``: a player with can_host reaches every other within the
    limit, and the match's server names the one :func:`choose_host` picks (docs/adr/0185)."""
    if not config.p2p_host_max_ms:
        return []
    where = f"match {match.match_id}"
    host = choose_host(seated, config.p2p_host_max_ms)
    if host is None:
        return [
            f"{where}: no player with can_host reaches every other within "
            f"p2p_host_max_ms={config.p2p_host_max_ms}"
        ]
    if match.server != host.player_id:
        return [f"{where}: server {match.server!r} is not its peer host {host.player_id!r}"]
    return []


def _wave_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, config: MultifactorConfig, result: WaveResult
) -> list[str]:
    problems: list[str] = []
    dropped = result.stat("vetoed_matches")
    published = result.stat("score")
    scores = [match.quality_of("score") for match in result.matches]
    if dropped == 0 and published is not None and None not in scores:
        expected = wave_score([s for s in scores if s is not None], config)
        if not math.isclose(published, expected, rel_tol=1e-12, abs_tol=1e-12):
            problems.append(f"wave score {published} is not the mean of its matches' ({expected})")
    solos = all(
        w.ticket.size == 1 and player_rating(w.ticket.players[0]) is not None
        for w in snapshot.tickets
    )
    if solos and dropped == 0 and profile.team_size >= 1:
        ranked = sorted(enumerate(snapshot.tickets), key=lambda i: (-i[1].wait_cycles, i[0]))
        match_size = 2 * profile.team_size
        cut = len(ranked) // match_size * match_size
        expected_ids = {w.ticket.ticket_id for _, w in ranked[:cut]}
        matched = {tid for match in result.matches for tid in match.ticket_ids()}
        priority = {w.ticket.ticket_id: w.ticket.priority for w in snapshot.tickets}
        came, went = matched - expected_ids, expected_ids - matched
        if matched != expected_ids and not (
            profile.ruleset.priority and displaced_by_priority(came, went, priority)
        ):
            problems.append("the matched solo players are not the longest-waiting ones")
    return problems


def displaced_by_priority(came: set[str], went: set[str], priority: dict[str, int]) -> bool:
    """Whether the tickets that ``came`` in place of those that ``went`` can each be
    paired with a distinct one of lower priority (the priority swaps' chains: each swap
    puts a higher priority in a lower one's seats).

    >>> displaced_by_priority({"a", "b"}, {"c", "d"}, {"a": 3, "b": 1, "c": 0, "d": 2})
    True
    >>> displaced_by_priority({"a"}, {"c"}, {"a": 1, "c": 1})
    False
    """
    higher = sorted(priority[t] for t in came)
    lower = sorted(priority[t] for t in went)
    return len(higher) == len(lower) and all(h > w for h, w in zip(higher, lower, strict=True))
