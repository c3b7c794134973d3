"""What applying one event decided: the outputs the edge publishes, as plain values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from matcher.core import Match, WaveResult
from matcher.queue.events import DequeueReason


@dataclass(frozen=True, slots=True)
class Dequeued:
    """A ticket left the queue for good."""

    ticket_id: str
    queue: str
    region: str
    reason: DequeueReason
    waves_waited: int
    at_ms: int
    match_id: str | None = None
    wave_id: str | None = None
    detail: str | None = None
    # When a matched ticket joined (its TicketJoined's time): the time-to-match metric's
    # start. Not part of the published TicketDequeued.
    joined_at_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Searching:
    """A ticket is still queued: its place and the expected wait."""

    ticket_id: str
    queue: str
    region: str
    position: int
    waves_waited: int
    at_ms: int
    estimated_wait_ms: int | None = None
    next_wave_at_ms: int | None = None
    wave_id: str | None = None


@dataclass(frozen=True, slots=True)
class WaveSummary:
    queue: str
    region: str
    wave_id: str
    wave_number: int
    tickets_in_snapshot: int
    players_in_snapshot: int
    matches: int
    matched_players: int
    unmatched: int
    expired: int
    avg_rating_diff: float | None
    min_rating_diff: float | None
    max_rating_diff: float | None
    strategy: str
    config_fingerprint: str
    closed_at_ms: int


@dataclass(frozen=True, slots=True)
class WaveFailure:
    """A wave whose strategy raised or returned a result its checker refused.

    ``first`` is True on the first failing wave of a run with this reason: only that
    one is dead-lettered, so a broken queue reports once, not once per wave.
    """

    queue: str
    region: str
    wave_id: str
    reason: str
    first: bool


@dataclass(frozen=True, slots=True)
class Step:
    """Everything one event changed that the outside world should hear about.

    ``note`` names what happened (``joined``, ``duplicate``, ``rejected``, ``left``,
    ``unknown_ticket``, ``wave_closed``, ``stale_tick`` ...) for metrics and audit.
    """

    note: str
    matches: tuple[Match, ...] = ()
    dequeued: tuple[Dequeued, ...] = ()
    statuses: tuple[Searching, ...] = ()
    summary: WaveSummary | None = None
    result: WaveResult | None = None
    failure: WaveFailure | None = None
    #: Ready checks, placements and claims (matcher.queue.lifecycle's outputs), in order.
    lifecycle: tuple[Any, ...] = ()
    #: How each backfill request of the tick was filled, and why (BackfillChoice): read by
    #: ``explain``, never published.
    backfills: tuple[Any, ...] = ()
