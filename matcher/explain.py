"""Why a match was made: its wave, its window and score, and the nearest pairs not chosen.

Pure: the caller supplies the wave snapshot the match came from (re-derived from the
log) and the wave's result. For 1v1 queues every nearest alternative partner is judged
by the strategy's own rules (sides, window, maps) and by the exchange it would need:
pairing A with C means B and C's partner D must pair instead, and the wave's summed
score changes by ``cost(A,C) + cost(B,D) - cost(A,B) - cost(C,D)`` (waits cancel out).
"""

from __future__ import annotations

from dataclasses import dataclass

from matcher.alternatives import Alternative
from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.strategies import is_duel

__all__ = ["Alternative", "Explanation", "MatchNotInWave", "explain_match"]


@dataclass(frozen=True, slots=True)
class Explanation:
    match: Match
    strategy: str
    facts: tuple[tuple[str, str], ...]
    alternatives: tuple[Alternative, ...]


class MatchNotInWave(LookupError):
    pass


def explain_match(
    snapshot: WaveSnapshot,
    profile: QueueProfile,
    result: WaveResult,
    match_id: str,
    nearest: int = 3,
) -> Explanation:
    """Explain ``match_id`` of ``result`` (the wave closed on ``snapshot``).

    Notes: O(n log n) for n players in the wave.
    """
    match = next((m for m in result.matches if m.match_id == match_id), None)
    if match is None:
        raise MatchNotInWave(f"match {match_id} is not in wave {snapshot.wave_id}")
    facts = [
        (
            "wave",
            f"{snapshot.queue}/{snapshot.region} wave {snapshot.wave_id} "
            f"(number {snapshot.wave_number}), closed at {snapshot.closed_at_ms} ms",
        ),
        (
            "snapshot",
            f"{len(snapshot.tickets)} tickets, "
            f"{sum(len(w.ticket.players) for w in snapshot.tickets)} players, "
            f"active population {snapshot.active_population}, seed {snapshot.seed}",
        ),
        ("result", f"{len(result.matches)} matches, {len(result.unmatched)} tickets unmatched"),
        ("placement", f"map {match.map_name}, server {match.server}, channel {match.channel}"),
    ]
    for team in match.teams:
        seats = ", ".join(
            f"{s.player_id} ({s.role or 'rating'} {s.rating}, ticket {s.ticket_id}, "
            f"{_wait(snapshot, s.ticket_id)})"
            for s in team.seats
        )
        facts.append((f"team {team.name}", seats))
    facts.extend((f"quality {name}", f"{value:g}") for name, value in match.quality)
    if profile.team_steps:  # which shape the match was made at (a queue with team steps)
        from matcher.teams.steps import shape_fact

        facts.append(("shape", shape_fact(snapshot, profile, match)))
    if is_duel(profile.strategy) and profile.team_size == 1:
        from matcher.explain_duel import explain_duel
        from matcher.rules.check import rated_snapshot

        # The wave as the strategy saw it (run_wave): ratings at the rules' key and bound.
        rated = rated_snapshot(snapshot, profile.ruleset) if profile.rules else snapshot
        more, alternatives = explain_duel(rated, profile, result, match, nearest)
        return Explanation(match, profile.strategy, (*facts, *more), alternatives)
    if profile.rules:
        from matcher.explain_rules import kept_out_facts

        facts += kept_out_facts(snapshot, profile, result, match, nearest)
    return Explanation(match, profile.strategy, tuple(facts), ())


def _wait(snapshot: WaveSnapshot, ticket_id: str) -> str:
    """Which wave of the ticket's wait this one is: the count its TicketDequeued and
    statuses publish (this wave included), worded apart from the earlier waves a
    window counts."""
    cycles = next((w.wait_cycles for w in snapshot.tickets if w.ticket.ticket_id == ticket_id), 0)
    return f"its wave {cycles + 1}"
