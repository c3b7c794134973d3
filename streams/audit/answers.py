"""`explain`'s answers as lines of text: why a match was made, a ticket's life, how a
backfill was filled. The command prints them; the operator console renders them."""

from __future__ import annotations

from collections.abc import Sequence

from streams.audit.explain import WaveOfMatch
from streams.audit.rederive import LogRecord
from streams.worker.folding import Folder


def match_answer(
    folder: Folder, records: Sequence[LogRecord], match_id: str, nearest: int
) -> list[str] | None:
    """Why ``match_id`` was made (or its backfill filled), re-derived from ``records``;
    None when no wave of this log under this configuration produced it."""
    from matcher.explain import explain_match
    from streams.audit.explain import find_wave

    wave = find_wave(folder, records, match_id)
    if wave is None:
        return backfill_answer(folder, records, match_id)
    # An automatic backfill (docs/adr/0157) is filled under its match's id; the log is
    # folded once more for it only in a queue that opens one.
    auto = wave.profile.auto_backfill
    fills = (backfill_answer(folder, records, match_id) or []) if auto else []
    explanation = explain_match(wave.snapshot, wave.profile, wave.result, match_id, nearest)
    width = max(len(name) for name, _ in explanation.facts)
    lines = [
        f"match {match_id} ({explanation.strategy}), closed by the WaveTick at "
        f"partition {wave.tick.partition} offset {wave.tick.offset}"
    ]
    lines += [f"  {name:<{width}}  {value}" for name, value in explanation.facts]
    if explanation.alternatives:
        lines.append("nearest alternatives:")
    for alternative in explanation.alternatives:
        diff = "" if alternative.diff is None else f" (diff {alternative.diff})"
        lines.append(
            f"  {alternative.player} with {alternative.candidate}{diff}: {alternative.verdict}"
        )
    first, life = match_life(folder, records, wave, match_id)
    if life:
        lines.append(f"after the wave (ticket {first}'s record of it):")
        lines += [f"  {line}" for line in life]
    return lines + fills


def match_life(
    folder: Folder, records: Sequence[LogRecord], wave: WaveOfMatch, match_id: str
) -> tuple[str, list[str]]:
    """What became of ``match_id`` after its wave (its ready check answered or timed out,
    its placement reported or failed), as its first seat's ticket lived it: that ticket's
    id and the lines, none for a match created at once and never reported on. A ticket
    that left the match while it waited for its placement (the match stands, docs/ready-
    checks.md) saw no more of it: the next seat's ticket tells it then."""
    from streams.audit.history import ticket_steps

    match = next(m for m in wave.result.matches if m.match_id == match_id)
    told: tuple[str, list[str]] | None = None
    for seat in (seat for team in match.teams for seat in team.seats):
        steps = ticket_steps(folder, records, seat.ticket_id, wave.tick)
        life = [
            f"[partition {step.partition} offset {step.offset}] {step.text}"
            for step in steps
            if match_id in step.text
        ]
        told = told or (seat.ticket_id, life)
        if not any(s.text.startswith("dequeued LEFT") and match_id not in s.text for s in steps):
            return seat.ticket_id, life
    assert told is not None
    return told


def backfill_answer(
    folder: Folder, records: Sequence[LogRecord], session_id: str
) -> list[str] | None:
    """Why the backfill of ``session_id`` was filled as it was, fill by fill (a partial
    backfill fills a session at several ticks, docs/adr/0192); None if never filled."""
    from matcher.explain_backfill import backfill_facts
    from streams.audit.explain import find_backfills

    lines: list[str] = []
    for choice, tick in find_backfills(folder, records, session_id):
        facts = backfill_facts(choice)
        width = max(len(name) for name, _ in facts)
        lines.append(
            f"backfill of session {session_id}, filled by the WaveTick at partition "
            f"{tick.partition} offset {tick.offset}"
        )
        lines += [f"  {name:<{width}}  {value}" for name, value in facts]
    return lines or None


def ticket_answer(folder: Folder, records: Sequence[LogRecord], ticket_id: str) -> list[str] | None:
    """A ticket's life, one line a step; None when the log never mentions it."""
    from streams.audit.history import ticket_history

    lines = ticket_history(folder, records, ticket_id)
    if not lines:
        return None
    return [f"ticket {ticket_id}", *(f"  {line}" for line in lines)]
