"""Wait estimates for searching tickets, from the waits realised in recent waves."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from matcher.core import Ticket

#: Width of a rating band: tickets are compared with recent tickets of similar rating.
BAND_WIDTH = 200
#: How many recent waves' outcomes inform the estimate.
WINDOW_WAVES = 20


def rating_band(ticket: Ticket) -> int:
    """Band of a ticket: its players' mean best rating, in BAND_WIDTH steps.

    >>> from matcher.core import Player
    >>> rating_band(Ticket("t", "q", "eu", (Player("p", (("bw", 1450), ("sc2", 1610))),), 0))
    8
    """
    best = [max((value for _, value in p.ratings), default=0) for p in ticket.players]
    return (sum(best) // max(1, len(best))) // BAND_WIDTH


@dataclass(slots=True)
class WaitEstimator:
    """Remembers, per rating band, how many waves matched tickets waited in the last waves.

    The estimate for a ticket that has waited ``w`` waves is the mean realised wait of
    its band (all bands when its band saw no match) minus ``w``, at least one wave.
    Deterministic: integer arithmetic over a bounded window.
    """

    waves: deque[dict[int, tuple[int, int]]] = field(
        default_factory=lambda: deque(maxlen=WINDOW_WAVES)
    )

    def observe_wave(self, matched: list[tuple[Ticket, int]]) -> None:
        """Record one closed wave: its matched tickets and the waves each waited."""
        per_band: dict[int, tuple[int, int]] = {}
        for ticket, waited in matched:
            band = rating_band(ticket)
            total, count = per_band.get(band, (0, 0))
            per_band[band] = (total + waited, count + 1)
        self.waves.append(per_band)

    def remaining_waves(self, ticket: Ticket, waited: int) -> int | None:
        """Waves still to wait, or None before any ticket has been matched."""
        band = rating_band(ticket)
        total = count = all_total = all_count = 0
        for per_band in self.waves:
            band_total, band_count = per_band.get(band, (0, 0))
            total, count = total + band_total, count + band_count
            for other_total, other_count in per_band.values():
                all_total, all_count = all_total + other_total, all_count + other_count
        if count == 0:
            total, count = all_total, all_count
        if count == 0:
            return None
        expected = -(-total // count)  # ceiling of the mean, in whole waves
        return max(1, expected - waited)

    def to_record(self) -> list[list[list[int]]]:
        return [[[band, t, c] for band, (t, c) in sorted(w.items())] for w in self.waves]

    @classmethod
    def from_record(cls, record: list[list[list[int]]]) -> WaitEstimator:
        estimator = cls()
        for wave in record:
            estimator.waves.append({band: (t, c) for band, t, c in wave})
        return estimator
