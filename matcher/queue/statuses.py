"""What a region tells each waiting ticket: its SEARCHING status, after a join or a wave.

The position in the queue, the waves waited, the next wave's instant and the estimate of
the wait left (:class:`matcher.queue.estimate.WaitEstimator`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matcher.core import Ticket
from matcher.fastbuild import builder
from matcher.queue.events import WaveTick
from matcher.queue.outcomes import Searching

if TYPE_CHECKING:
    from matcher.queue.fold import RegionQueue

# Built by the thousand when a big wave closes: fastbuild matters (docs/benchmarks/duel.md).
_make_searching = builder(Searching)


def wave_statuses(queue: RegionQueue, tick: WaveTick) -> tuple[Searching, ...]:
    """Each queued ticket's status after ``tick``'s wave, in queue order, as
    :func:`searching` makes it.

    One pass with the wave's figures worked out once: a wave can leave thousands.
    """
    interval = queue.last_interval_ms
    next_wave = queue.last_tick_at_ms + interval if interval else None
    at_ms, wave_id, name, region = tick.tick_at_ms, tick.wave_id, queue.queue, queue.region
    soonest = None if next_wave is None else max(0, next_wave - at_ms)
    closed, remaining_waves = queue.waves_closed, queue.estimator.remaining_waves
    out = []
    for position, queued in enumerate(queue.tickets.values(), start=1):
        ticket, waited = queued.ticket, closed - queued.joined_wave
        remaining = remaining_waves(ticket, waited)
        estimate = None
        if remaining is not None and soonest is not None:
            estimate = soonest + (remaining - 1) * interval
        out.append(
            _make_searching(
                ticket.ticket_id,
                name,
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
    queue: RegionQueue,
    ticket: Ticket,
    position: int,
    waited: int,
    at_ms: int,
    tick: WaveTick | None,
) -> Searching:
    """The status of ``ticket``, ``position``-th in the queue after ``waited`` waves."""
    interval = queue.last_interval_ms
    next_wave: int | None = None
    estimate: int | None = None
    if interval:  # no estimate without a next wave: the estimator is not asked
        next_wave = queue.last_tick_at_ms + interval
        remaining = queue.estimator.remaining_waves(ticket, waited)
        if remaining is not None:
            estimate = max(0, next_wave - at_ms) + (remaining - 1) * interval
    # Once per join: built without the frozen __init__ (as the wave's statuses are).
    return _make_searching(
        ticket.ticket_id,
        queue.queue,
        queue.region,
        position,
        waited,
        at_ms,
        estimate,
        next_wave,
        tick.wave_id if tick else None,
    )
