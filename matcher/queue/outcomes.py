"""What applying one event decided: the outputs the edge publishes, in publication order."""

from __future__ import annotations

from dataclasses import dataclass, field

from matcher.core import Match, WaveResult, WaveSnapshot
from matcher.queue.backfill_choice import BackfillChoice
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested, SearchHeld
from matcher.queue.events import DequeueReason, TicketJoined
from matcher.queue.lifecycle import BackfillResult, MatchProposal, StageStatus


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


#: What a held match, a claim, a backfill or a search across places publishes, in the
#: order decided: stage statuses, claims and notices, results, a join's copies.
LifeOutput = (
    StageStatus
    | ClaimRequested
    | ClaimDecided
    | ClaimReleased
    | SearchHeld
    | BackfillResult
    | TicketJoined
)
#: Everything the core publishes. A wave's :class:`~matcher.core.Match` is published as
#: MatchCreated with its wave's provenance (the step's :class:`WaveSummary`); every other
#: output carries what its record needs, its key included.
Output = Match | MatchProposal | Dequeued | Searching | LifeOutput | WaveSummary


@dataclass(frozen=True, slots=True)
class WaveReading:
    """What a wave close read and chose besides its outputs, for readers that look again
    (``explain``, the simulator); never published."""

    #: How each backfill request of the tick was filled, and why.
    backfills: tuple[BackfillChoice, ...] = ()
    #: The snapshot the wave's strategy read, rated as it read it.
    snapshot: WaveSnapshot | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """Everything one event changed that the outside world should hear about.

    ``note`` names what happened (``joined``, ``duplicate``, ``rejected``, ``left``,
    ``unknown_ticket``, ``wave_closed``, ``stale_tick`` ...) for metrics and audit.
    ``outputs`` are in publication order, decided here (:meth:`Draft.step`): a match
    before the dequeues that name it, a wave's :class:`WaveSummary` last, so a consumer
    that sees WaveClosed has been sent everything of the wave. The edge writes them in
    this order and never re-sorts them.
    """

    note: str
    outputs: tuple[Output, ...] = ()
    result: WaveResult | None = None
    failure: WaveFailure | None = None
    #: A wave close's reading (one field for both: a join's step builds every field).
    reading: WaveReading | None = None

    @property
    def backfills(self) -> tuple[BackfillChoice, ...]:
        return () if self.reading is None else self.reading.backfills

    @property
    def snapshot(self) -> WaveSnapshot | None:
        return None if self.reading is None else self.reading.snapshot

    @property
    def summary(self) -> WaveSummary | None:
        outputs = self.outputs
        last = outputs[-1] if outputs else None
        return last if type(last) is WaveSummary else None

    # Views of one kind of output, for readers (explain, the simulator, metrics, tests).
    @property
    def matches(self) -> tuple[Match, ...]:
        """The wave's matches published as created (none outside a wave close)."""
        return tuple(o for o in self.outputs if type(o) is Match)

    @property
    def dequeued(self) -> tuple[Dequeued, ...]:
        return tuple(o for o in self.outputs if type(o) is Dequeued)

    @property
    def statuses(self) -> tuple[Searching, ...]:
        return tuple(o for o in self.outputs if type(o) is Searching)


@dataclass(slots=True)
class Draft:
    """The outputs of one event as a step decides them, by kind; :meth:`step` puts them
    in publication order."""

    note: str
    matches: tuple[Match, ...] = ()
    #: Proposals and matches created after their ready check: published before dequeues.
    proposals: list[MatchProposal] = field(default_factory=list)
    dequeued: list[Dequeued] = field(default_factory=list)
    statuses: tuple[Searching, ...] = ()
    #: Stage statuses, claims, backfill results and the copies of a join searching
    #: several places (docs/adr/0145), in the order they were decided.
    life: list[LifeOutput] = field(default_factory=list)
    summary: WaveSummary | None = None
    result: WaveResult | None = None
    failure: WaveFailure | None = None
    backfills: tuple[BackfillChoice, ...] = ()
    snapshot: WaveSnapshot | None = None

    def step(self) -> Step:
        """The step, its outputs in publication order: a wave's created matches, the
        proposals, the dequeues, then for a wave the other lifecycle outputs before the
        statuses and the summary last; for any other event the statuses before them."""
        if self.summary is not None:
            outputs: tuple[Output, ...] = (
                *self.matches,
                *self.proposals,
                *self.dequeued,
                *self.life,
                *self.statuses,
                self.summary,
            )
        else:
            outputs = (*self.proposals, *self.dequeued, *self.statuses, *self.life)
        reading = None
        if self.backfills or self.snapshot is not None:
            reading = WaveReading(self.backfills, self.snapshot)
        return Step(self.note, outputs, self.result, self.failure, reading)
