"""The ``multifactor`` strategy: select, search, report, place.

select (priority order, full teams only) -> search (sorted start, swaps, seeded
restarts under an evaluation budget) -> report (per-factor scores of every match in
``Match.quality``) -> place (map, server, channel from the wave seed).
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from matcher.core import (
    Match,
    QueueProfile,
    Seat,
    Team,
    WaveResult,
    WaveSnapshot,
    derive_match_id,
)
from matcher.multifactor.complete import Plan, left_out_matches, ticket_index
from matcher.multifactor.config import MultifactorConfig, multifactor_settings
from matcher.multifactor.factors import wave_score
from matcher.multifactor.pool import Pool, build_pool
from matcher.multifactor.priority import prioritized_plans
from matcher.multifactor.report import rating_figures, score_teams
from matcher.multifactor.search import Search, SearchOutcome
from matcher.peers import choose_host
from matcher.placement import NoPlayableMap, channel_name, choose_map, choose_server
from matcher.rules.check import lineup_problem, met_recently, waits_of
from matcher.ruleset import QueueRuleSet

NAME = "multifactor"


def search_seed(snapshot: WaveSnapshot) -> int:
    """Seed of the search's restarts: derived from the wave seed, apart from placement's RNG.

    >>> search_seed(WaveSnapshot("q", "eu", "w", 1, 7, 0, ())) == 7 ^ 0x6D756C7469666163
    True
    """
    return snapshot.seed ^ 0x6D756C7469666163  # "multifac": keeps the two streams unrelated


def multifactor_strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close a wave with the weighted multi-factor score (see docs/multifactor.md).

    Raises OptionError (a ValueError naming the option) for a bad profile.

    >>> from matcher.core import Player, Ticket, WaitingTicket
    >>> tickets = tuple(WaitingTicket(Ticket(f"t{i}", "q", "eu",
    ...     (Player(f"p{i}", (("mmr", 1500 + 10 * i),)),), i), 0) for i in range(7))
    >>> profile = QueueProfile("q", NAME, ("arena",), team_size=3)
    >>> result = multifactor_strategy(WaveSnapshot("q", "eu", "w1", 1, 42, 0, tickets), profile)
    >>> len(result.matches), result.unmatched, [t.name for t in result.matches[0].teams]
    (1, ('t6',), ['team1', 'team2'])

    Notes: O(players^2) tables plus the search's budget of evaluations.
    """
    config = multifactor_settings(profile)
    pool = build_pool(snapshot, profile, config)
    outcome = Search(pool, config, search_seed(snapshot)).run()
    rules = profile.ruleset.counting()
    plans = _in_priority_order(pool, outcome)
    met = met_recently(snapshot, rules)
    kept = [
        plan
        for plan in plans
        if not _rule_problem(rules, snapshot, plan, met) and not _hostless(config, plan)
    ]
    missed = left_out_matches(snapshot, profile, config, rules, _ticket_ids(kept))
    planned, swapped = [*kept, *missed], False
    if rules.priority:  # priority tickets first (ADR 0195)
        mended = prioritized_plans(snapshot, profile, config, rules, planned, met)
        swapped = [id(plan) for plan in mended] != [id(plan) for plan in planned]
        planned = mended
    matches, dropped = _build_matches(snapshot, profile, config, planned)
    dropped += len(plans) - len(kept)
    used = {tid for match in matches for tid in match.ticket_ids()}
    unmatched = tuple(
        w.ticket.ticket_id for w in snapshot.tickets if w.ticket.ticket_id not in used
    )
    score = outcome.wave_score
    if missed or swapped:  # the published wave's score: the search's covers its own matches
        score = wave_score([m.quality_of("score") or 0.0 for m in matches], config)
    stats = (
        ("score", score),
        ("start_score", outcome.start_score),
        ("iterations", float(outcome.iterations)),
        ("restarts", float(outcome.restarts)),
        ("best_restart", float(outcome.best_restart)),
        ("evaluations", float(outcome.evaluations)),
        ("budget_evaluations", float(config.budget_evaluations)),
        ("vetoed_matches", float(dropped)),
        ("completed_matches", float(len(missed))),
        *rules.tally_stats(),
    )
    return WaveResult(NAME, tuple(matches), unmatched, stats)


def _in_priority_order(pool: Pool, outcome: SearchOutcome) -> list[Plan]:
    """The search's matches, most-waiting ticket first."""
    ticket_of = ticket_index(pool)
    ordered = sorted(outcome.matches, key=lambda m: min(ticket_of[p] for p in m[0] + m[1]))
    return [Plan(pool, ticket_of, team1, team2) for team1, team2 in ordered]


def _ticket_ids(plans: list[Plan]) -> set[str]:
    return {
        plan.pool.tickets[plan.ticket_of[p]].ticket_id
        for plan in plans
        for p in plan.team1 + plan.team2
    }


def _build_matches(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    config: MultifactorConfig,
    plans: list[Plan],
) -> tuple[list[Match], int]:
    """The planned matches in order; drops any with no playable map."""
    rng = random.Random(snapshot.seed)
    history = {m.player_id: m for m in snapshot.last_matches}
    matches: list[Match] = []
    dropped = 0
    for pool, ticket_of, team1, team2 in plans:
        sides = [_parties(pool, ticket_of, seats) for seats in (team1, team2)]
        vetoes = [v for seats in (team1, team2) for p in seats for v in pool.players[p].vetoed_maps]
        try:
            map_name = choose_map(rng, profile.maps, vetoes)
        except NoPlayableMap:
            dropped += 1
            continue
        host = _host_id(config, Plan(pool, ticket_of, team1, team2))
        if host is not None:
            server = host
        else:
            first = [pool.tickets[ticket_of[seats[0]]] for seats in (team1, team2)]
            latencies = [pool.players[p].latency_ms for seats in (team1, team2) for p in seats]
            server = choose_server(rng, profile, first[0].region, first[1].region, latencies)
        teams = tuple(
            _team(f"team{i}", pool, ticket_of, seats)
            for i, seats in enumerate((team1, team2), start=1)
        )
        ticket_ids = tuple(sorted({seat.ticket_id for team in teams for seat in team.seats}))
        seated = [
            [[(pool.players[p], pool.ratings[p]) for p in party] for party in side]
            for side in sides
        ]
        report = score_teams(seated[0], seated[1], history, config)
        matches.append(
            Match(
                match_id=derive_match_id(
                    snapshot.queue, snapshot.region, snapshot.wave_id, ticket_ids
                ),
                teams=teams,
                map_name=map_name,
                server=server,
                channel=channel_name(snapshot.matches_placed + len(matches) + 1),
                quality=report.quality()
                + rating_figures(
                    [pool.ratings[p] for p in team1], [pool.ratings[p] for p in team2]
                ),
            )
        )
    return matches, dropped


def _rule_problem(
    rules: QueueRuleSet, snapshot: WaveSnapshot, plan: Plan, met: Mapping[str, frozenset[str]]
) -> str | None:
    """Why a match the search chose breaks the queue's rules (it is then dropped)."""
    if rules.empty:
        return None
    pool, ticket_of, team1, team2 = plan
    seats = team1 + team2
    joined = [pool.tickets[ticket_of[p]].joined_at_ms for p in seats]
    latencies = [pool.players[p].latency_to(snapshot.region) for p in seats]
    ratings = [[pool.ratings[p] for p in team] for team in (team1, team2)]
    seated = [pool.players[p] for p in seats]
    waited = waits_of(snapshot.closed_at_ms, joined)
    return lineup_problem(rules, ratings, waited, latencies, seated, met)


def _host_id(config: MultifactorConfig, plan: Plan) -> str | None:
    """With ``p2p_host_max_ms``: the host's player id (the match's server), else None."""
    if not config.p2p_host_max_ms:
        return None
    pool, _, team1, team2 = plan
    host = choose_host([pool.players[p] for p in team1 + team2], config.p2p_host_max_ms)
    return None if host is None else host.player_id


def _hostless(config: MultifactorConfig, plan: Plan) -> bool:
    """True when ``p2p_host_max_ms`` finds nobody to host the match (it is not made)."""
    return bool(config.p2p_host_max_ms) and _host_id(config, plan) is None


def _parties(pool: Pool, ticket_of: dict[int, int], seats: tuple[int, ...]) -> list[list[int]]:
    parties: dict[int, list[int]] = {}
    for p in seats:
        parties.setdefault(ticket_of[p], []).append(p)
    return list(parties.values())


def _team(name: str, pool: Pool, ticket_of: dict[int, int], seats: tuple[int, ...]) -> Team:
    return Team(
        name,
        tuple(
            Seat(
                pool.tickets[ticket_of[p]].ticket_id, pool.players[p].player_id, "", pool.ratings[p]
            )
            for p in seats
        ),
    )
