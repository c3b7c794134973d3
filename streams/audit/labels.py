"""Name a judged record in a replay's report: its topic, key, type and identifying fields.

A key alone does not say which record it is: a ready check's MatchProposed and
MatchCreated share their match's key, a ticket searching two places has a dequeue in
each under its ticket's key, and a place's key carries every claim decided there.
"""

from __future__ import annotations

from typing import Any

from streams.audit.compare import KIND, kind, undecodable

#: The fields that tell one record of a type from the others under the same key: a
#: record missing is compared with the published one of the same type and these values.
IDENTITY: dict[str, tuple[str, ...]] = {
    "MatchCreated": ("match_id",),
    "MatchProposed": ("match_id",),
    "BackfillResult": ("session_id", "wave_id"),
    "TicketDequeued": ("ticket_id", "queue", "region"),
    "WaveClosed": ("wave_id",),
    "SearchClaim": ("action", "ticket_id", "queue", "region", "match_id"),
    "SearchHeld": ("held", "ticket_id", "queue", "region", "match_id"),
    "ClaimRequested": ("player_id", "ticket_id", "queue", "region"),
    "ClaimDecided": ("player_id", "ticket_id", "queue", "region"),
    "ClaimReleased": ("player_id", "ticket_id", "queue", "region"),
    "TicketJoined": ("ticket_id", "queue", "region"),
}


def identity(form: tuple[Any, ...]) -> tuple[Any, ...]:
    """What tells a :func:`~streams.audit.compare.comparable` form's record from its
    key's others: its type and identifying values (the form itself when undecodable)."""
    if undecodable(form):
        return form
    fields = dict(form)
    name = kind(form)
    return (name, *(fields.get(n) for n in IDENTITY.get(name or "", ())))


def label(topic: str, key: bytes | None, form: tuple[Any, ...]) -> str:
    """``topic key KEY Type field='value' ...``: the identifying fields that are set."""
    shown = f"{topic} key {(key or b'').decode(errors='replace')}"
    if undecodable(form):
        return shown
    fields = dict(form)
    name = kind(form) or "record"
    # An unset field (a leave's claim names no match) identifies nothing: left out.
    named = [f"{n}={fields[n]!r}" for n in IDENTITY.get(name, ()) if fields.get(n) is not None]
    return " ".join([shown, name, *named])


def details(form: tuple[Any, ...], description: str) -> str:
    """The fields a record's label does not show (unset ones left out), at most 120
    characters; ``description``, :class:`~streams.audit.compare.Verdict`'s, when
    undecodable."""
    if undecodable(form):
        return description[:120]
    shown = {KIND, *IDENTITY.get(kind(form) or "", ())}
    return ", ".join(f"{n}={v!r}" for n, v in form if n not in shown and v is not None)[:120]
