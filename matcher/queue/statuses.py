"""What a region tells each waiting ticket: its SEARCHING status, after a join or a wave.

The position in the queue, the waves waited, the next wave's instant and the estimate of
the wait left (:class:`matcher.queue.estimate.WaitEstimator`). Pure functions of the
region's figures, which :class:`matcher.queue.state.RegionQueue` passes in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from matcher.core import Ticket
from matcher.fastbuild import builder
from matcher.queue.estimate import WaitEstimator
from matcher.queue.events import WaveTick
from matcher.queue.outcomes import Searching

# Built by the thousand when a big wave closes: fastbuild matters (docs/benchmarks/duel.md).
_make_searching = builder(Searching)


class Queued(Protocol):
    @property
    def ticket(self) -> Ticket: ...
    @property
    def joined_wave(self) -> int: ...


def wave_statuses(
    queued: Iterable[Queued],
    waves_closed: int,
    queue: str,
    region: str,
    tick: WaveTick,
    last_tick_at_ms: int,
    interval: int,
    estimator: WaitEstimator,
) -> tuple[Searching, ...]:
    """Each queued ticket's status after ``tick``'s wave, in queue order, as
    :func:`searching` makes it.

    One pass with the wave's figures worked out once: a wave can leave thousands.
    """
    next_wave = last_tick_at_ms + interval if interval else None
    at_ms, wave_id = tick.tick_at_ms, tick.wave_id
    soonest = None if next_wave is None else max(0, next_wave - at_ms)
    remaining_waves = estimator.remaining_waves
    out = []
    for position, entry in enumerate(queued, start=1):
        ticket, waited = entry.ticket, waves_closed - entry.joined_wave
        remaining = remaining_waves(ticket, waited)
        estimate = None
        if remaining is not None and soonest is not None:
            estimate = soonest + (remaining - 1) * interval
        out.append(
            _make_searching(
                ticket.ticket_id,
                queue,
                region,
                position,
                waited,
                at_ms,
                estimate,
                next_wave,
                wave_id,
            )
        )
    return tuple(out)


def searching(
    ticket: Ticket,
    queue: str,
    region: str,
    position: int,
    waited: int,
    at_ms: int,
    last_tick_at_ms: int,
    interval: int,
    estimator: WaitEstimator,
    wave_id: str | None = None,
) -> Searching:
    """The status of ``ticket``, ``position``-th in the queue after ``waited`` waves."""
    next_wave: int | None = None
    estimate: int | None = None
    if interval:  # no estimate without a next wave: the estimator is not asked
        next_wave = last_tick_at_ms + interval
        remaining = estimator.remaining_waves(ticket, waited)
        if remaining is not None:
            estimate = max(0, next_wave - at_ms) + (remaining - 1) * interval
    # Once per join: built without the frozen __init__ (as the wave's statuses are).
    return _make_searching(
        ticket.ticket_id, queue, region, position, waited, at_ms, estimate, next_wave, wave_id
    )
