"""Events the queue fold consumes: the domain side of the queue topic's records."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from matcher.core import Ticket


class LeaveReason(enum.Enum):
    REQUESTED = "requested"
    DISCONNECTED = "disconnected"


class DequeueReason(enum.Enum):
    MATCHED = "matched"
    LEFT = "left"
    EXPIRED = "expired"
    REJECTED = "rejected"
    # After a wave (matcher/queue/lifecycle.py, docs/adr/0111).
    DECLINED = "declined"
    ACCEPTANCE_TIMED_OUT = "acceptance_timed_out"
    PLACEMENT_FAILED = "placement_failed"
    # A ticket searching several places: another place matched it (docs/adr/0145).
    MATCHED_ELSEWHERE = "matched_elsewhere"


@dataclass(frozen=True, slots=True)
class Search:
    """One place a ticket searches: a (queue, region), opening ``open_after_ms`` after
    the ticket joined (docs/adr/0145)."""

    queue: str
    region: str
    open_after_ms: int = 0


@dataclass(frozen=True, slots=True)
class Nearby:
    """Search every other region of the join's queue whose latency is within
    ``max_latency_ms`` (None: the queue's ``max_latency_ms`` cap) for every player,
    opening ``open_after_ms`` after the join (docs/adr/0147)."""

    open_after_ms: int = 0
    max_latency_ms: int | None = None


@dataclass(frozen=True, slots=True)
class TicketJoined:
    """A join. ``searches`` lists every place of a ticket searching several (its own
    first, in preference order); empty for the usual one-place ticket (docs/adr/0145).
    ``nearby`` asks for more places chosen from latency; the home's book turns it into
    ``searches`` (docs/adr/0147)."""

    ticket: Ticket
    searches: tuple[Search, ...] = ()
    nearby: Nearby | None = None

    @property
    def queue(self) -> str:
        return self.ticket.queue

    @property
    def region(self) -> str:
        return self.ticket.region


@dataclass(frozen=True, slots=True)
class TicketLeft:
    ticket_id: str
    queue: str
    region: str
    reason: LeaveReason
    left_at_ms: int


@dataclass(frozen=True, slots=True)
class WaveTick:
    """The wave boundary as a position in the log.

    ``sequence`` orders ticks: a tick whose sequence is not greater than the last applied
    one (a second timer during a rebalance, a redelivery) is a recorded no-op.
    """

    queue: str
    region: str
    wave_id: str
    sequence: int
    tick_at_ms: int
    config_fingerprint: str
    interval_ms: int


QueueEvent = TicketJoined | TicketLeft | WaveTick
