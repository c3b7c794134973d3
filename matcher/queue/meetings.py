"""Who met whom, and when: the history a queue's rematch rule reads (matcher/rules).

Kept per player as their most recent matches, newest first, each ``(at_ms, the other
players of that match)``; only for queues with a rematch rule, bounded by one more than
its ``last`` and pruned past its ``within_s``. A match is recorded when its wave closes
and taken back if it is never played (a ready check that fails, a failed placement).
"""

from __future__ import annotations

from collections.abc import Iterable

from matcher.core import Match

#: A player's recent matches, newest first: ``((at_ms, other player ids), ...)``.
History = tuple[tuple[int, tuple[str, ...]], ...]


def record_meetings(
    meetings: dict[str, History], matches: Iterable[Match], at_ms: int, last: int
) -> None:
    """Add ``matches`` (closed at ``at_ms``) to every seated player's history.

    >>> from matcher.core import Seat, Team
    >>> match = Match("m", (Team("a", (Seat("t1", "p1", "", 1),)),
    ...                     Team("b", (Seat("t2", "p2", "", 1),))), "map", "s", "c")
    >>> book = {}
    >>> record_meetings(book, [match], 5_000, 2)
    >>> book["p1"]
    ((5000, ('p2',)),)
    """
    for match in matches:
        teams = match.teams
        if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
            first, second = teams[0].seats[0].player_id, teams[1].seats[0].player_id
            if first != second:  # a duel, nearly every match of a 1v1 queue: no loops
                meetings[first] = ((at_ms, (second,)), *meetings.get(first, ()))[:last]
                meetings[second] = ((at_ms, (first,)), *meetings.get(second, ()))[:last]
                continue
        seated = [seat.player_id for team in teams for seat in team.seats]
        for player_id in seated:
            others = tuple(other for other in seated if other != player_id)
            meetings[player_id] = ((at_ms, others), *meetings.get(player_id, ()))[:last]


def prune_meetings(meetings: dict[str, History], older_than_ms: int) -> dict[str, History]:
    """The histories with a match at or after ``older_than_ms`` (the others are forgotten)."""
    kept: dict[str, History] = {}
    for player_id, history in meetings.items():
        for entry in history:
            if entry[0] < older_than_ms:
                recent = tuple(entry for entry in history if entry[0] >= older_than_ms)
                if recent:
                    kept[player_id] = recent
                break
        else:  # nothing to forget (most histories): kept as it is, no copy
            kept[player_id] = history
    return kept


def forget_meeting(meetings: dict[str, History], player_ids: Iterable[str]) -> None:
    """Take back the newest meeting of ``player_ids`` (a match that was never played).

    Each player's newest entry is taken back when it names every other one of
    ``player_ids``: a player is held in one match at a time, so nothing newer was
    recorded for them since. The history keeps one entry more than the rule reads, so
    the meeting before it is still there.

    >>> book = {"p1": ((9, ("p2",)), (5, ("p3",))), "p2": ((9, ("p1",)),)}
    >>> forget_meeting(book, ["p1", "p2"])
    >>> book
    {'p1': ((5, ('p3',)),)}
    """
    players = list(player_ids)
    for player_id in players:
        history = meetings.get(player_id)
        mates = {other for other in players if other != player_id}
        if not history or not mates or not mates <= set(history[0][1]):
            continue
        if len(history) > 1:
            meetings[player_id] = history[1:]
        else:
            del meetings[player_id]
