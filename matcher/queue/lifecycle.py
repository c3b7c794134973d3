"""A match's life after the wave: its policy, events and outputs (the types).

Tickets of a proposed match wait (seats reserved) until every player accepts, tickets
of a created match wait until the platform reports its placement, and, with claims on,
a join waits until every player's claim is granted. The held state is
:class:`matcher.queue.tickets.Lifecycle`; the step that changes it is
:mod:`matcher.queue.held`. Every deadline is decided by a wave tick, never by a clock
(docs/adr/0111).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from matcher.core import Match, Team
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested, SearchHeld


class TicketStage(enum.Enum):
    SEARCHING = "searching"
    REQUIRES_ACCEPTANCE = "requires_acceptance"
    PLACING = "placing"
    MATCHED = "matched"


class PlacementOutcome(enum.Enum):
    STARTED = "started"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class LifecyclePolicy:
    """A queue's opt-in steps after the wave (built from its settings).

    ``ready_check_ms``: 0, matches are created at once; else proposed, and every player
    must accept within this long. ``placement_timeout_ms``: 0, a created match is final;
    else its tickets wait (PLACING) for the platform's report this long, an unreported
    placement counting as started. ``placement_requeues``: how often a ticket is put
    back after a failed placement before it is dequeued with PLACEMENT_FAILED.
    """

    ready_check_ms: int = 0
    placement_timeout_ms: int = 0
    placement_requeues: int = 2

    def __post_init__(self) -> None:
        for name in ("ready_check_ms", "placement_timeout_ms", "placement_requeues"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: must be >= 0")


NO_POLICY = LifecyclePolicy()


@dataclass(frozen=True, slots=True)
class ReadyCheckAnswered:
    """A player's answer to a proposed match (published by the platform)."""

    match_id: str
    queue: str
    region: str
    player_id: str
    accepted: bool
    at_ms: int


@dataclass(frozen=True, slots=True)
class Connection:
    """Where a started match's players connect: passed through, never read (ADR 0171)."""

    address: str
    port: int
    token: str | None = field(default=None, repr=False)  # a secret: not in a repr


@dataclass(frozen=True, slots=True)
class PlacementReported:
    """Whether a created match's server started (published by the platform)."""

    match_id: str
    queue: str
    region: str
    outcome: PlacementOutcome
    at_ms: int
    detail: str | None = None
    connection: Connection | None = None


@dataclass(frozen=True, slots=True)
class BackfillTeam:
    """One team of a running session: its players as ``(player_id, rating)`` pairs and
    how many seats it wants filled."""

    name: str
    players: tuple[tuple[str, int], ...]
    open_slots: int


@dataclass(frozen=True, slots=True)
class BackfillRequested:
    """Fill the open slots of a running session from the queue (docs/adr/0113); a new
    request for a session replaces its active one."""

    session_id: str
    queue: str
    region: str
    teams: tuple[BackfillTeam, ...]
    at_ms: int
    deadline_at_ms: int | None = None


@dataclass(frozen=True, slots=True)
class BackfillCancelled:
    session_id: str
    queue: str
    region: str
    at_ms: int


LifecycleEvent = (
    ReadyCheckAnswered
    | PlacementReported
    | ClaimDecided
    | SearchHeld
    | BackfillRequested
    | BackfillCancelled
)


class LifecycleRejected(ValueError):
    """An event the fold cannot apply (it goes to the dead-letter topic with ``code``)."""

    def __init__(self, code: str, reason: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.code, self.reason, self.field = code, reason, field


# -- outputs ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchProposal:
    """A wave's match awaiting every player's acceptance (published as MatchProposed);
    with ``deadline_at_ms`` None it is the match created (published as MatchCreated)."""

    match: Match
    queue: str
    region: str
    wave_id: str
    strategy: str
    config_fingerprint: str
    at_ms: int
    deadline_at_ms: int | None = None


@dataclass(frozen=True, slots=True)
class StageStatus:
    """A ticket's status outside the plain search (or back in it, with ``detail``)."""

    ticket_id: str
    queue: str
    region: str
    stage: TicketStage
    waves_waited: int
    at_ms: int
    match_id: str | None = None
    deadline_ms: int | None = None
    detail: str | None = None
    connection: Connection | None = None


@dataclass(frozen=True, slots=True)
class BackfillResult:
    """What became of a backfill request: FILLED (``teams`` hold the new seats) or EXPIRED."""

    session_id: str
    queue: str
    region: str
    outcome: str
    teams: tuple[Team, ...]
    at_ms: int
    wave_id: str


LifecycleOutput = (
    MatchProposal | StageStatus | ClaimRequested | ClaimDecided | ClaimReleased | BackfillResult
)
