"""Every region's queue of a log, for callers that fold a whole topic (replay, simulator)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from matcher.core import QueueProfile
from matcher.queue import lifecycle, nearby
from matcher.queue.cadence import CadencePolicy
from matcher.queue.claims import (
    ClaimBook,
    ClaimDecided,
    ClaimReleased,
    ClaimRequested,
    SearchHeld,
)
from matcher.queue.events import DequeueReason, QueueEvent, TicketJoined, WaveTick
from matcher.queue.fold import QueueRules, RegionQueue
from matcher.queue.lifecycle import NO_POLICY, LifecycleEvent, LifecyclePolicy, LifecycleRejected
from matcher.queue.outcomes import Dequeued, Step


@dataclass(frozen=True, slots=True)
class Layout:
    """One configuration's part of the fold, under its fingerprint: what a region a tick
    switched to it applies its events under (docs/adr/0160). Its queues and regions are
    the book's own: a configuration that changes them is refused before it gets here."""

    profiles: Mapping[str, QueueProfile]
    regions_by_queue: Mapping[str, tuple[str, ...]]
    rules: QueueRules
    cadences: Mapping[str, CadencePolicy]
    policies: Mapping[str, LifecyclePolicy]
    queue_rules: Mapping[str, QueueRules]


@dataclass(slots=True)
class QueueBook:
    """Routes each event to its (queue, region) :class:`RegionQueue`, creating it on first use.

    An event for a queue or region the configuration does not know is a recorded no-op;
    a join for one is rejected, so its platform hears why instead of waiting forever.
    """

    profiles: Mapping[str, QueueProfile]
    regions_by_queue: Mapping[str, tuple[str, ...]]
    rules: QueueRules = field(default_factory=QueueRules)
    #: Queues on an adaptive wave interval (the others need no arrival rate).
    cadences: Mapping[str, CadencePolicy] = field(default_factory=dict)
    regions: dict[tuple[str, str], RegionQueue] = field(default_factory=dict)
    #: Queues with a ready check or placement reports (matcher/queue/lifecycle.py).
    policies: Mapping[str, LifecyclePolicy] = field(default_factory=dict)
    #: The claims of the players whose key lands in this book's partition (ADR 0110).
    claims: ClaimBook = field(default_factory=ClaimBook)
    #: Queues whose rules are not ``rules`` (their own ticket TTL).
    queue_rules: Mapping[str, QueueRules] = field(default_factory=dict)
    #: Other configurations by fingerprint: a region's tick that carries one switches the
    #: region to it, until a tick carries another (docs/adr/0160). Shared, only grown.
    layouts: Mapping[str, Layout] = field(default_factory=dict)

    def region_queue(self, queue: str, region: str) -> RegionQueue:
        key = (queue, region)
        state = self.regions.get(key)
        if state is None:
            state = self.regions[key] = RegionQueue(queue, region)
        return state

    def apply(self, event: QueueEvent | LifecycleEvent | ClaimRequested | ClaimReleased) -> Step:
        if isinstance(event, (ClaimRequested, ClaimReleased)):
            decided = self.claims.apply(event, self.rules.finished_retention_ms)
            return Step("claim", () if decided is None else (decided,))
        # The body below is not a method of its own: one call less on every join.
        under: Layout | QueueBook = self._layout_for(event) if self.layouts else self
        queue, region = event.queue, event.region  # a join's are properties: read once
        profile = under.profiles.get(queue)
        problem = None
        if profile is None:
            problem = f"unknown queue {queue!r}"
        elif region not in under.regions_by_queue.get(queue, ()):
            problem = f"queue {queue!r} is not open in region {region!r}"
        if problem is None and profile is not None:
            state = self.regions.get((queue, region))  # region_queue, without the call
            if state is None:
                state = self.regions[queue, region] = RegionQueue(queue, region)
            policy = under.policies.get(queue, NO_POLICY) if under.policies else NO_POLICY
            rules = under.queue_rules.get(queue, under.rules) if under.queue_rules else under.rules
            if type(event) is TicketJoined and (event.nearby is not None or event.searches):
                if event.nearby is not None:
                    regions = tuple(under.regions_by_queue[queue])
                    event = nearby.choose(event, regions, profile.ruleset.max_latency_ms)
                if event.searches or event.nearby is not None:  # else no region was near
                    return state.join_searching(event, profile, rules, under.regions_by_queue)
            return state.apply(event, profile, rules, under.cadences.get(queue), policy)
        if isinstance(
            event,
            (
                lifecycle.ReadyCheckAnswered,
                lifecycle.PlacementReported,
                lifecycle.BackfillRequested,
                lifecycle.BackfillCancelled,
            ),
        ):
            raise LifecycleRejected("unknown_queue", problem or "unknown queue", "queue")
        if isinstance(event, (ClaimDecided, SearchHeld)):
            return Step("unknown_queue")
        if isinstance(event, TicketJoined):
            # No region's state to refuse it: a queue or region the configuration lacks.
            ticket = event.ticket
            refused = Dequeued(
                ticket.ticket_id,
                ticket.queue,
                ticket.region,
                DequeueReason.REJECTED,
                0,
                ticket.joined_at_ms,
                detail=problem,
            )
            return Step("rejected", (refused,))
        return Step("unknown_queue")

    def _layout_for(self, event: QueueEvent | LifecycleEvent) -> Layout | QueueBook:
        """The configuration ``event``'s region is under; a fresh tick first switches the
        region to the configuration it carries (the book's own when it is not known)."""
        state = self.regions.get((event.queue, event.region))
        if type(event) is WaveTick:
            config, fresh = self._tick_config(event, state)
            if fresh:
                if state is None and config is not None:
                    state = self.region_queue(event.queue, event.region)
                if state is not None:
                    state.switch_config(config)
        else:  # nearly every event (every join): no call, only the region's own field
            config = None if state is None else state.config
        return self if config is None else self.layouts.get(config, self)

    def config_of(self, event: QueueEvent | LifecycleEvent) -> str | None:
        """The fingerprint of the configuration ``event`` is folded under, None for the
        book's own, without switching anything: a fresh tick's when its configuration is
        known (and its region open), else the region's current one."""
        state = self.regions.get((event.queue, event.region))
        if type(event) is WaveTick:
            return self._tick_config(event, state)[0]
        return None if state is None else state.config

    def strategy_of(self, tick: WaveTick) -> str | None:
        """The strategy ``tick``'s wave closes with; None for a queue the configuration
        it is under lacks."""
        config = self.config_of(tick)
        under: Layout | QueueBook = self if config is None else self.layouts.get(config, self)
        profile = under.profiles.get(tick.queue)
        return None if profile is None else profile.strategy

    def _tick_config(self, tick: WaveTick, state: RegionQueue | None) -> tuple[str | None, bool]:
        """:meth:`config_of`'s answer for ``tick`` in its region ``state`` (None before its
        first event), and whether the tick is fresh (it then switches the region to it)."""
        if state is not None and tick.sequence <= state.last_sequence:
            return state.config, False
        fingerprint = tick.config_fingerprint
        known = fingerprint in self.layouts and (
            state is not None or tick.region in self.regions_by_queue.get(tick.queue, ())
        )
        return (fingerprint if known else None), True

    def apply_all(self, events: Iterable[QueueEvent]) -> Iterator[Step]:
        """Fold ``events`` in order, yielding each event's step."""
        for event in events:
            yield self.apply(event)
