"""What a wave close works out from its matches alone: which tickets leave, and the summary.

Pure functions of the wave's matches (and its snapshot, for the summary), kept apart
from :mod:`matcher.queue.fold`, whose state they feed.
"""

from __future__ import annotations

from matcher.core import Match, WaveResult, WaveSnapshot
from matcher.queue.events import WaveTick
from matcher.queue.outcomes import WaveSummary


def matched_ticket_ids(matches: tuple[Match, ...]) -> tuple[list[str], list[str]]:
    """Each matched ticket id, in match order then ticket id order, and its match's id.

    >>> from matcher.core import Seat, Team
    >>> seat = lambda ticket: Team(ticket, (Seat(ticket, "p" + ticket, "r", 1),))
    >>> matched_ticket_ids((Match("m", (seat("t9"), seat("t1")), "map", "s", "c"),))
    (['t1', 't9'], ['m', 'm'])

    Notes: O(seats); a duel's two tickets are ordered without building a set.
    """
    ticket_ids: list[str] = []
    match_ids: list[str] = []
    for match in matches:
        teams = match.teams
        match_id = match.match_id
        if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
            first, second = teams[0].seats[0].ticket_id, teams[1].seats[0].ticket_id
            if first < second:
                ticket_ids += (first, second)
                match_ids += (match_id, match_id)
                continue
            if second < first:
                ticket_ids += (second, first)
                match_ids += (match_id, match_id)
                continue
        ids = match.ticket_ids()
        ticket_ids += ids
        match_ids += [match_id] * len(ids)
    return ticket_ids, match_ids


def summarise(
    tick: WaveTick,
    snapshot: WaveSnapshot,
    players: int,
    result: WaveResult,
    expired: int,
    wave_number: int,
) -> WaveSummary:
    """The WaveClosed summary of ``result``; ``players`` is the snapshot's player count.

    >>> from matcher.core import Seat, Team
    >>> seat = lambda t, r: Team(t, (Seat(t, "p" + t, "r", r),))
    >>> match = Match("m", (seat("a", 1500), seat("b", 1530)), "map", "s", "c")
    >>> tick = WaveTick("q", "eu", "w1", 1, 5_000, "f", 1_000)
    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 5_000, ())
    >>> summary = summarise(tick, snapshot, 3, WaveResult("optimal", (match,), ("c",)), 0, 1)
    >>> summary.matched_players, summary.max_rating_diff, summary.unmatched
    (2, 30.0, 1)

    Notes: O(seats).
    """
    diffs: list[float] = []
    matched_players = 0
    for match in result.matches:
        teams = match.teams
        if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
            diffs.append(float(abs(teams[0].seats[0].rating - teams[1].seats[0].rating)))
            matched_players += 2  # rating_diff and the seat count of a duel, inline
        else:
            diffs.append(rating_diff(match))
            matched_players += sum(len(team.seats) for team in teams)
    return WaveSummary(
        queue=tick.queue,
        region=tick.region,
        wave_id=tick.wave_id,
        wave_number=wave_number,
        tickets_in_snapshot=len(snapshot.tickets),
        players_in_snapshot=players,
        matches=len(result.matches),
        matched_players=matched_players,
        unmatched=len(result.unmatched),
        expired=expired,
        avg_rating_diff=sum(diffs) / len(diffs) if diffs else None,
        min_rating_diff=min(diffs) if diffs else None,
        max_rating_diff=max(diffs) if diffs else None,
        strategy=result.strategy,
        config_fingerprint=tick.config_fingerprint,
        closed_at_ms=tick.tick_at_ms,
    )


def rating_diff(match: Match) -> float:
    """Largest difference between two teams' mean ratings (for 1v1: |bw - sc2|)."""
    teams = match.teams
    if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
        return float(abs(teams[0].seats[0].rating - teams[1].seats[0].rating))  # duels
    means = [sum(s.rating for s in t.seats) / len(t.seats) for t in match.teams if t.seats]
    return max(means) - min(means) if means else 0.0
