"""Team shapes relaxed after a wait: a wave closed again at each of a queue's ``team_steps``.

A queue may list smaller shapes a ticket accepts once it has waited long enough (FlexMatch
expansions on ``minPlayers``, Nakama count ranges)::

    team_steps = [{ after_s = 60, team_count = 3 }, { after_s = 120, team_count = 2 }]

A wave is first closed at the queue's own shape; then, step by step, the tickets it left
unmatched that have waited at least the step's ``after_s`` are closed again at the step's
shape by the same strategy, under the same rules. A match is thus held to the shape of its
least waited ticket, as a rule limit is (docs/rules.md), and nobody who has not waited that
long is put in a smaller match (docs/adr/0155).
"""

from __future__ import annotations

from dataclasses import replace

from matcher.core import Match, QueueProfile, Strategy, WaveResult, WaveSnapshot
from matcher.rules.check import waited_s
from matcher.teams.build import build_result
from matcher.teams.model import TeamShape, team_shape
from matcher.teams.step_config import step_profile

#: Stats the result recomputes over all its matches (matcher.teams.build.build_result).
_COUNTED = frozenset({"matches", "players_matched", "share_matched"})


def step_shapes(profile: QueueProfile) -> tuple[tuple[float, QueueProfile, TeamShape], ...]:
    """Each step's ``after_s``, profile and shape, in the queue's order."""
    found = []
    for step in profile.team_steps:
        stepped = step_profile(profile, step)
        found.append((step.after_s, stepped, team_shape(stepped)))
    return tuple(found)


def waited_at_least(snapshot: WaveSnapshot, after_s: float, among: frozenset[str]) -> WaveSnapshot:
    """``snapshot`` with only the tickets of ``among`` that have waited ``after_s`` at its close."""
    closed = snapshot.closed_at_ms
    return replace(
        snapshot,
        tickets=tuple(
            waiting
            for waiting in snapshot.tickets
            if waiting.ticket.ticket_id in among
            and waited_s(closed, [waiting.ticket.joined_at_ms]) >= after_s
        ),
    )


def close_with_steps(close: Strategy, snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close the wave with ``close`` at the queue's shape, then the waited left-out at each step.

    Without steps this is ``close(snapshot, profile)`` and nothing more. Each step's matches
    continue the wave's channels; the result's figures count every match, and
    ``matches_after_steps`` those the steps made.

    Notes: one more ``close`` per step on the tickets left, each at that strategy's cost.
    """
    result = close(snapshot, profile)
    if not profile.team_steps:
        return result
    matches = list(result.matches)
    left = frozenset(result.unmatched)
    made = 0
    for after_s, stepped, shape in step_shapes(profile):
        waited = waited_at_least(snapshot, after_s, left)
        if sum(waiting.ticket.size for waiting in waited.tickets) < shape.match_min:
            continue
        waited = replace(waited, matches_placed=snapshot.matches_placed + len(matches))
        found = close(waited, stepped).matches
        matches.extend(found)
        made += len(found)
        left = left - {ticket_id for match in found for ticket_id in match.ticket_ids()}
    stats = [(name, value) for name, value in result.stats if name not in _COUNTED]
    return build_result(
        result.strategy, snapshot, matches, (*stats, ("matches_after_steps", float(made)))
    )


def shape_fact(snapshot: WaveSnapshot, profile: QueueProfile, match: Match) -> str:
    """Which shape ``match`` was made at: the queue's, or the step its wait reached (explain).

    Notes: O(tickets of the wave).
    """
    seated = set(match.ticket_ids())
    joined = [w.ticket.joined_at_ms for w in snapshot.tickets if w.ticket.ticket_id in seated]
    waited = waited_s(snapshot.closed_at_ms, joined) if joined else 0.0
    teams, sizes = len(match.teams), sorted({len(team.seats) for team in match.teams})
    made = f"{teams} teams of {'/'.join(map(str, sizes))}"
    least = f"its least waited ticket waited {waited:g} s"
    if (teams, profile.team_size) == (profile.team_count, max(sizes)):
        return f"{made}: the queue's shape ({least})"
    for number, step in enumerate(profile.team_steps, 1):
        if step.after_s <= waited and (step.team_count, step.team_size) == (teams, max(sizes)):
            return f"{made}: team step {number} (from {step.after_s:g} s; {least})"
    return f"{made}: no shape of the queue ({least})"
