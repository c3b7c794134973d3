"""The queue fold: per-(queue, region) state as a fold over the log, and wave closing.

The worker, the replay command, the simulator and the tests all drive the same
:class:`~matcher.queue.fold.RegionQueue`, so what one computes the others re-derive.
"""

from matcher.queue.events import (
    DequeueReason,
    LeaveReason,
    QueueEvent,
    TicketJoined,
    TicketLeft,
    WaveTick,
)
from matcher.queue.fold import QueueRules, RegionQueue
from matcher.queue.outcomes import Dequeued, Searching, Step, WaveFailure, WaveSummary

__all__ = [
    "DequeueReason",
    "Dequeued",
    "LeaveReason",
    "QueueEvent",
    "QueueRules",
    "RegionQueue",
    "Searching",
    "Step",
    "TicketJoined",
    "TicketLeft",
    "WaveFailure",
    "WaveSummary",
    "WaveTick",
]
