"""Who met whom, and when: the history a queue's rematch rule reads (matcher/rules).

Kept per player as their most recent matches, newest first, each ``(at_ms, the other
players of that match)``; only for queues with a rematch rule, bounded by its ``last``
and pruned past its ``within_s``.
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
        seated = [seat.player_id for team in match.teams for seat in team.seats]
        for player_id in seated:
            others = tuple(other for other in seated if other != player_id)
            meetings[player_id] = ((at_ms, others), *meetings.get(player_id, ()))[:last]


def prune_meetings(meetings: dict[str, History], older_than_ms: int) -> dict[str, History]:
    """The histories with a match at or after ``older_than_ms`` (the others are forgotten)."""
    kept: dict[str, History] = {}
    for player_id, history in meetings.items():
        recent = tuple(entry for entry in history if entry[0] >= older_than_ms)
        if recent:
            kept[player_id] = recent
    return kept
