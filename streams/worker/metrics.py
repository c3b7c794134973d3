"""The worker's own Prometheus metrics: the queue consumer's folds, waves and outputs.

Faust's sensor, on the same /metrics, sees only Faust's own app (its timer task and web
views): the queue topic is not a Faust stream and there are no tables (docs/adr/0140).
"""

from __future__ import annotations

import contextlib
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from matcher.queue.fold import rating_diff
from matcher.queue.outcomes import Dequeued
from streams.worker.folding import Folded, PartitionState


class WorkerMetrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        kwargs: dict[str, Any] = {"registry": registry} if registry is not None else {}
        self.queue_depth = Gauge(
            "wavematch_queue_depth_players", "Players queued", ["queue", "region"], **kwargs
        )
        self.events = Counter(
            "wavematch_events_total", "Queue events applied, by outcome", ["note"], **kwargs
        )
        self.dead_letters = Counter(
            "wavematch_dead_letters_total",
            "Records sent to the dead-letter topic",
            ["code"],
            **kwargs,
        )
        self.wave_duration = Histogram(
            "wavematch_wave_duration_seconds",
            "Time to close a wave (fold + strategy)",
            ["queue"],
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
            **kwargs,
        )
        self.matches_per_wave = Histogram(
            "wavematch_matches_per_wave",
            "Matches created per wave",
            ["queue"],
            buckets=(0, 1, 5, 10, 50, 100, 500, 1000, 5000),
            **kwargs,
        )
        self.rating_diff = Histogram(
            "wavematch_match_rating_diff",
            "Rating difference of created matches",
            ["queue"],
            buckets=(10, 25, 50, 100, 150, 200, 300, 500, 1000),
            **kwargs,
        )
        # Both in log time: the ticket's joined time to the instant of the tick that
        # matched it, so a slow worker or a catch-up does not stretch them.
        self.time_to_match = Histogram(
            "wavematch_time_to_match_seconds",
            "Per matched ticket: from its joined time to the wave tick that matched it",
            ["queue", "region"],
            buckets=(1, 2.5, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600),
            **kwargs,
        )
        self.unmatched_after_wave = Gauge(
            "wavematch_unmatched_after_wave_tickets",
            "Tickets left queued by the last wave of the queue and region",
            ["queue", "region"],
            **kwargs,
        )
        self.registry_waiting = Gauge(
            "wavematch_registry_waiting",
            "1 while queue records wait for a schema registry that does not answer",
            **kwargs,
        )
        self.catch_up_events = Counter(
            "wavematch_catch_up_events_total",
            "Events re-folded after a takeover",
            ["partition"],
            **kwargs,
        )
        self.configs_refused = Counter(
            "wavematch_configs_refused_total",
            "Configurations published to the config topic that this worker refused",
            **kwargs,
        )
        self.snapshots = Counter(
            "wavematch_snapshots_total", "State snapshots written", ["partition"], **kwargs
        )
        # The direct consumer's view (ADR 61); Faust's sensor sees nothing of that loop.
        self.consumer_lag = Gauge(
            "wavematch_consumer_lag_records",
            "Queue records not yet processed (high-watermark minus next offset), per "
            "partition, after the direct consumer's last batch",
            ["partition"],
            **kwargs,
        )
        self.wave_failures = Counter(
            "wavematch_wave_failures_total",
            "Waves whose strategy raised or returned a result its checker refused: no "
            "match was made, tickets still expired (the first of a run is dead-lettered)",
            ["queue"],
            **kwargs,
        )
        self.commit_failures = Counter(
            "wavematch_commit_failures_total",
            "Offset commits the group refused (a rebalance): their records are re-folded",
            **kwargs,
        )
        self.delivery_failures = Counter(
            "wavematch_output_delivery_failures_total",
            "Times outputs handed to the producer were not delivered (a broker outage "
            "longer than its request timeout): the owned partitions re-folded from their "
            "last commit and published them again",
            **kwargs,
        )
        self.rule_evaluations = Counter(
            "wavematch_rule_evaluations_total",
            "Verdicts of a queue's named rules (rules.checks) while its waves were closed: "
            "passed per lineup allowed, failed per lineup or group refused",
            ["queue", "rule", "outcome"],
            **kwargs,
        )
        self._event_counters: dict[str, Any] = {}
        #: The (queue, region) label sets of the per-region gauges, by the partition whose
        #: waves set them: a partition handed to another worker takes its series along.
        self._places: dict[int, set[tuple[str, str]]] = {}
        #: Events per note not yet added to the counter: a lock per increment showed in
        #: the direct consumer's profile of a join (docs/benchmarks/code-figures.md).
        self._pending: dict[str, int] = {}

    def observe(self, folded: Folded, state: PartitionState) -> None:
        if folded.rejection is not None:
            self.dead_letters.labels(folded.rejection.code).inc()
        step = folded.step
        if step is None:
            return
        if step.failure is not None:
            self.wave_failures.labels(step.failure.queue).inc()
        duration_ms = folded.duration_ms  # None: not a tick, so no summary to ask for
        summary = None if duration_ms is None else step.summary
        # Not a wave: counted here, added to the counter once per batch (flush).
        if duration_ms is None or summary is None:
            pending = self._pending
            pending[step.note] = pending.get(step.note, 0) + 1
            # An answer or a report may match held tickets for good. Looked for in the
            # outputs, not through ``step.dequeued``: a join's one status is every other
            # record, and building that empty tuple cost more than the counting.
            for output in step.outputs:
                if type(output) is Dequeued:
                    self._observe_waits(step.dequeued)
                    break
            return
        self._count(step.note, 1)
        if step.result is not None:
            self._observe_rules(summary.queue, step.result.stats)
        self.wave_duration.labels(summary.queue).observe(duration_ms / 1e3)
        self.matches_per_wave.labels(summary.queue).observe(summary.matches)
        observe_all(self.rating_diff.labels(summary.queue), [rating_diff(m) for m in step.matches])
        where = (summary.queue, summary.region)
        self._places.setdefault(state.partition, set()).add(where)
        self.time_to_match.labels(*where)  # a wave that matches nobody still shows its queue
        self._observe_waits(step.dequeued)
        self.unmatched_after_wave.labels(*where).set(summary.unmatched)
        region_queue = state.book.regions.get((summary.queue, summary.region))
        if region_queue is not None:
            self.queue_depth.labels(summary.queue, summary.region).set(region_queue.players_queued)

    def _observe_rules(self, queue: str, stats: Sequence[tuple[str, float]]) -> None:
        """The wave's ``rule_passed:<name>`` / ``rule_failed:<name>`` counts (per wave, not
        per evaluation: the strategy tallies them, matcher/rulelogic.py RuleTally)."""
        for name, count in stats:
            if name.startswith("rule_"):
                outcome, _, rule = name.removeprefix("rule_").partition(":")
                self.rule_evaluations.labels(queue, rule, outcome).inc(count)

    def _observe_waits(self, dequeued: Sequence[Dequeued]) -> None:
        """Time to match of the tickets matched for good: only their dequeues carry their
        joined time (ADR 96), at a wave or at the answer or report that confirmed them."""
        waits: dict[tuple[str, str], list[float]] = {}
        for gone in dequeued:
            if gone.joined_at_ms is not None:
                where = (gone.queue, gone.region)
                waits.setdefault(where, []).append((gone.at_ms - gone.joined_at_ms) / 1e3)
        for where, amounts in waits.items():
            observe_all(self.time_to_match.labels(*where), amounts)

    def flush(self) -> None:
        """Add the events counted since the last flush to ``wavematch_events_total``."""
        pending, self._pending = self._pending, {}
        for note, count in pending.items():
            self._count(note, count)

    def _count(self, note: str, count: int) -> None:
        counter = self._event_counters.get(note)
        if counter is None:  # labels() takes a lock and hashes: once per note, not per event
            counter = self._event_counters[note] = self.events.labels(note)
        counter.inc(count)

    def catch_up(self, partition: int, events: int) -> None:
        self.catch_up_events.labels(str(partition)).inc(events)

    def lag(self, partition: int, records: int) -> None:
        self.consumer_lag.labels(str(partition)).set(records)

    def snapshot(self, partition: int) -> None:
        self.snapshots.labels(str(partition)).inc()

    def forget_partitions(self, partitions: Iterable[int]) -> None:
        """Drop the gauges of partitions this worker no longer owns (a rebalance moved
        them): their depth, last wave's unmatched tickets and lag are the new owner's to
        say. Left set, they would keep the last value this worker saw, and a sum over
        the workers would count a region twice. Counters and histograms stay: they only
        ever add up."""
        for partition in partitions:
            for where in self._places.pop(partition, ()):
                for gauge in (self.queue_depth, self.unmatched_after_wave):
                    with contextlib.suppress(KeyError):
                        gauge.remove(*where)
            with contextlib.suppress(KeyError):
                self.consumer_lag.remove(str(partition))


def observe_all(histogram: Histogram, amounts: Sequence[float]) -> None:
    """``histogram.observe(amount)`` for each amount, with one update per bucket.

    A 10,000-player wave observes 5,000 rating differences: one ``observe`` each (a lock and
    a walk of the bounds) added to the wave's latency in the worker, before its records were
    handed over (docs/benchmarks/code-figures.md). This uses prometheus_client's Histogram
    internals (``_upper_bounds``, ``_buckets``, ``_sum``; 0.26):
    tests/streams/test_metrics.py holds the samples to those of ``observe``. The sum is
    added at once (equal for integral amounts, as rating differences of duels are; else up
    to float rounding).
    """
    bounds = histogram._upper_bounds  # of a labelled child (a parent has none)
    counts = [0] * len(bounds)
    for amount in amounts:
        if amount == amount:  # observe() puts NaN in no bucket
            counts[bisect_left(bounds, amount)] += 1  # the first bound >= amount
    histogram._sum.inc(sum(amounts))
    for bucket, count in zip(histogram._buckets, counts, strict=True):
        if count:
            bucket.inc(count)
