"""Repeated pairings of a simulated run: whether a match puts together two players who
already played against each other earlier in the same run (a 1v1 rematch; in a team
game, any two opponents). Variety of opponents is what ``optimal_choice = "weighted"``
and the ``rematch`` rule trade quality for (docs/adr/0181)."""

from __future__ import annotations

from collections.abc import Sequence

from matcher.core import Match


def met_before(met: set[tuple[str, str]], match: Match) -> bool:
    """Whether two opponents of ``match`` are in ``met``; then remember its opponents.

    >>> from matcher.core import Seat, Team
    >>> def duel(a, b):
    ...     teams = (Team("t1", (Seat(a, a, "", 1),)), Team("t2", (Seat(b, b, "", 1),)))
    ...     return Match("m", teams, "map", "server", "channel")
    >>> met: set[tuple[str, str]] = set()
    >>> [met_before(met, duel(*p)) for p in (("a", "b"), ("b", "a"), ("a", "c"))]
    [False, True, False]

    Notes: O(seats^2) per match.
    """
    teams = [[seat.player_id for seat in team.seats] for team in match.teams]
    pairs = {
        (min(a, b), max(a, b))
        for i, mine in enumerate(teams)
        for theirs in teams[i + 1 :]
        for a in mine
        for b in theirs
    }
    repeated = not met.isdisjoint(pairs)
    met.update(pairs)
    return repeated


def repeat_percent(repeats: Sequence[bool]) -> float | None:
    """The percentage of matches that repeated a pairing (None for no matches).

    >>> repeat_percent([True, False, False, False]), repeat_percent([])
    (25.0, None)
    """
    return 100 * sum(repeats) / len(repeats) if repeats else None
