"""Wait estimates for searching tickets, from the waits realised in recent waves.

The estimate for a ticket that has already waited ``w`` waves is the *median residual
wait* of recently matched tickets of its rating band that waited longer than ``w``:
``median(W - w | W > w)``. Conditioning on ``W > w`` keeps the estimate honest for
tickets that have outlasted the typical wait (the mean-minus-waited rule told them
"one more wave" forever); the median minimises the mean absolute error. The simulator
measured the change on docs/sim/standard.toml (docs/adr/0051-median-residual-wait-estimate.md).

A ticket's realised wait is the waves it waited until it was dequeued MATCHED. In a queue
with a ready check or placement reports (docs/adr/0111) that is not the wave that proposed
its match: a declined proposal or a failed placement sends it back to wait on. Such a
ticket is counted when its match is confirmed or started (:meth:`WaitEstimator.observe_late`,
in the latest wave's histograms), with the waits its TicketDequeued MATCHED carries; a
proposal that falls through counts nothing (docs/adr/0115).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from matcher.core import Ticket

#: Width of a rating band: tickets are compared with recent tickets of similar rating.
BAND_WIDTH = 200
#: How many recent waves' outcomes inform the estimate.
WINDOW_WAVES = 20
#: Version of :meth:`WaitEstimator.to_record`; version 1 was a bare list of (total, count).
RECORD_VERSION = 2

#: Key of the all-bands histogram: no real band is negative.
_ALL = -1

Histogram = dict[int, int]
"""Realised wait in waves -> how many matched tickets waited exactly that long."""


def rating_band(ticket: Ticket) -> int:
    """Band of a ticket: its players' mean best rating, in BAND_WIDTH steps.

    >>> from matcher.core import Player
    >>> rating_band(Ticket("t", "q", "eu", (Player("p", (("bw", 1450), ("sc2", 1610))),), 0))
    8
    """
    players = ticket.players
    if len(players) == 1:  # solos: most tickets, once per join and per matched ticket
        ratings = players[0].ratings
        if len(ratings) == 1:
            return ratings[0][1] // BAND_WIDTH
        return max((value for _, value in ratings), default=0) // BAND_WIDTH
    best = [max((value for _, value in p.ratings), default=0) for p in players]
    return (sum(best) // max(1, len(best))) // BAND_WIDTH


def median_residual(histogram: Histogram, waited: int) -> int | None:
    """Lower median of ``W - waited`` over realised waits ``W > waited``; None if there are none.

    >>> median_residual({1: 5, 2: 1, 6: 2}, 0), median_residual({1: 5, 2: 1, 6: 2}, 1)
    (1, 5)
    >>> median_residual({1: 5}, 3) is None
    True

    Notes: O(h log h) for h distinct waits.
    """
    longer = sorted((wait - waited, count) for wait, count in histogram.items() if wait > waited)
    total = sum(count for _, count in longer)
    if total == 0:
        return None
    seen = 0
    for residual, count in longer:
        seen += count
        if 2 * seen >= total:
            return residual
    raise AssertionError("unreachable: the counts sum to total")


@dataclass(slots=True)
class WaitEstimator:
    """Remembers, per rating band, how many waves matched tickets waited in the last waves.

    Estimates are cached until the next observed wave: a wave's statuses ask the same
    (band, waited) question for many tickets. Deterministic: integer arithmetic over a
    bounded window.
    """

    waves: deque[dict[int, Histogram]] = field(default_factory=lambda: deque(maxlen=WINDOW_WAVES))
    _merged: dict[int, Histogram] | None = field(default=None, repr=False, compare=False)
    _answers: dict[tuple[int, int], int | None] = field(
        default_factory=dict, repr=False, compare=False
    )

    def observe_wave(self, matched: list[tuple[Ticket, int]]) -> None:
        """Record one closed wave: its matched tickets and the waves each waited."""
        self.observe_bands([(rating_band(ticket), waited) for ticket, waited in matched])

    def observe_bands(self, matched: list[tuple[int, int]]) -> None:
        """:meth:`observe_wave` given each matched ticket's rating band instead of the ticket.

        The order of ``matched`` does not matter: each wave is a histogram per band.

        >>> estimator = WaitEstimator()
        >>> estimator.observe_bands([(7, 1), (7, 3), (7, 3)])
        >>> estimator.waves[-1], estimator.remaining_waves(Ticket("t", "q", "eu", (), 0), 0)
        ({7: {1: 1, 3: 2}}, 3)

        Notes: O(matched tickets).
        """
        per_band: dict[int, Histogram] = {}
        for band, waited in matched:
            histogram = per_band.get(band)
            if histogram is None:
                histogram = per_band[band] = {}
            histogram[waited] = histogram.get(waited, 0) + 1
        self.waves.append(per_band)
        self._merged, self._answers = None, {}

    def observe_late(self, matched: list[tuple[int, int]]) -> None:
        """Count tickets matched between waves (a held match confirmed, or its placement
        started) in the latest wave's histograms, as ``(rating band, waves waited)``.

        >>> estimator = WaitEstimator()
        >>> estimator.observe_bands([])
        >>> estimator.observe_late([(7, 2)])
        >>> estimator.waves[-1], estimator.remaining_waves(Ticket("t", "q", "eu", (), 0), 0)
        ({7: {2: 1}}, 2)

        Notes: O(matched tickets).
        """
        if not self.waves:
            self.waves.append({})
        latest, merged = self.waves[-1], self._merged
        for band, waited in matched:
            histogram = latest.setdefault(band, {})
            histogram[waited] = histogram.get(waited, 0) + 1
            if merged is not None:  # kept up to date: confirmations come one match at a time
                for key in (band, _ALL):
                    target = merged.setdefault(key, {})
                    target[waited] = target.get(waited, 0) + 1
        self._answers = {}

    def remaining_waves(self, ticket: Ticket, waited: int) -> int | None:
        """Waves still to wait (at least 1), or None before any ticket has been matched.

        The ticket's band when it has evidence of waits longer than ``waited``, else all
        bands; with no such evidence anywhere, one more wave.

        Notes: O(1) when cached, else O(bands x distinct waits).
        """
        key = (rating_band(ticket), waited)
        if key not in self._answers:
            self._answers[key] = self._estimate(*key)
        return self._answers[key]

    def _estimate(self, band: int, waited: int) -> int | None:
        merged = self._histograms()
        if not merged:
            return None
        residual = median_residual(merged.get(band, {}), waited)
        if residual is None:
            residual = median_residual(merged[_ALL], waited)
        return max(1, residual) if residual is not None else 1

    def _histograms(self) -> dict[int, Histogram]:
        if self._merged is None:
            merged: dict[int, Histogram] = {}
            for per_band in self.waves:
                for band, histogram in per_band.items():
                    for key in (band, _ALL):
                        target = merged.setdefault(key, {})
                        for wait, count in histogram.items():
                            target[wait] = target.get(wait, 0) + count
            self._merged = merged
        return self._merged

    def to_record(self) -> dict[str, Any]:
        waves = [
            [
                [band, wait, count]
                for band, histogram in sorted(w.items())
                for wait, count in sorted(histogram.items())
            ]
            for w in self.waves
        ]
        return {"version": RECORD_VERSION, "waves": waves}

    @classmethod
    def from_record(cls, record: dict[str, Any] | list[list[list[int]]]) -> WaitEstimator:
        """Rebuild from :meth:`to_record`; a version-1 record (per band: total and count of
        waits) becomes one histogram entry per band at its rounded mean wait."""
        estimator = cls()
        if isinstance(record, list):
            for wave in record:
                estimator.waves.append(
                    {
                        band: {(total + count // 2) // max(1, count): count}
                        for band, total, count in wave
                        if count > 0
                    }
                )
            return estimator
        if record.get("version") != RECORD_VERSION:
            raise ValueError(
                f"estimator record version {record.get('version')!r} is not {RECORD_VERSION}"
            )
        for wave in record["waves"]:
            per_band: dict[int, Histogram] = {}
            for band, wait, count in wave:
                per_band.setdefault(band, {})[wait] = count
            estimator.waves.append(per_band)
        return estimator
