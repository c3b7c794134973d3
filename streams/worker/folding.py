"""Fold one raw record of the queue topic into a partition's state: decode, route, apply.

The same function runs live (outputs published), during catch-up after a takeover
(outputs dropped: they were published before the offsets were committed) and in
``wavematch replay`` (outputs compared), so all three make the same decisions.
"""

from __future__ import annotations

import gc
import logging
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, final

from matcher.core import QueueProfile
from matcher.fastbuild import builder
from matcher.queue import QueueRules, Step
from matcher.queue.book import Layout, QueueBook
from matcher.queue.cadence import CadencePolicy
from matcher.queue.events import QueueEvent, TicketJoined, TicketLeft, WaveTick
from matcher.queue.lifecycle import (
    BackfillRequested,
    LifecycleEvent,
    LifecyclePolicy,
    LifecycleRejected,
    PlacementReported,
    ReadyCheckAnswered,
)
from matcher.strategies import load_strategies
from schemas.codec import REGISTRY_MAGIC
from schemas.errors import InvalidEvent
from schemas.topics import murmur2_partition, queue_key
from streams.settings import Settings
from streams.wire import inbound
from streams.wire.inbound import fast_queue_event
from streams.wire.registry import no_registry
from streams.worker.finished_log import FinishedLog

log = logging.getLogger(__name__)


@contextmanager
def paused_gc(age_after: int | None = None, *, strategy: bool = False) -> Iterator[None]:
    """Hold the cyclic garbage collector for one fold or one encoding; age a big one's objects.

    A big wave allocates ~100,000 acyclic objects (matches, seats, dequeues, records) while
    the state holds 10,000+ tickets: the collector would walk that whole heap several times
    inside the wave, a large part of placement's time at 10,000 players. Re-enabled, its
    first young collection would still walk every object of the wave, alive until published
    (figures: docs/benchmarks/code-figures.md). So after a fold that left more new objects
    than the young generation's threshold (a young collection would start at the next
    allocation anyway), ``freeze`` then ``unfreeze`` moves every tracked object
    to the oldest generation in O(1): nothing escapes collection (the next full collection
    examines them, as it would have), the wave's objects never cost a young collection, and
    the counters restart as after a collection. Smaller folds (every join) leave the
    collector exactly as it was.

    ``age_after=0`` ages whatever was allocated: for a batch of joins, whose survivors
    are the queue's new tickets. Promoted the usual way (young, then middle generation)
    they would count towards the next *full* collection, which walks every queued ticket:
    with hundreds of thousands queued, those full collections showed in the worker's
    profile.

    ``freeze`` zeroes every generation's count, so the collector never starts a full
    collection of its own while folds keep aging (every batch, every wave), and the
    cycles a strategy's search leaves (garbage only a full collection frees) piled up
    in the oldest generation for ever (docs/benchmarks/teams.md, a role queue's waves).
    So ``strategy=True`` marks a section that runs a strategy (a wave's close, also
    inside a batch's section): the next section starts by measuring the heap
    (:func:`_check_heap`), once the wave's records are handed over and dropped, and a
    full collection runs only if the heap grew by a quarter since the last one (the
    collector's own rule). Cycles stay in the heap until collected, so they show in
    that measure; a wave's matches and records, freed once published, do not. Joins
    are not followed by a measure (acyclic: their survivors are the queue's tickets),
    so a backlog of joins runs no full collection, as before.
    """
    global _heap_check_due
    if not gc.isenabled():
        try:
            yield
        finally:
            if strategy:
                _heap_check_due = True
        return
    if _heap_check_due:
        _check_heap()
    gc.disable()
    try:
        yield
    finally:
        if strategy:
            _heap_check_due = True
        if gc.get_count()[0] > (gc.get_threshold()[0] if age_after is None else age_after):
            gc.freeze()  # every tracked object to the oldest generation, in O(1)
            gc.unfreeze()
        gc.enable()


#: The heap's size (:func:`_heap_size`) after the last full collection, or at the first
#: measure: what it must grow by a quarter of before the next collection.
_survivors: int | None = None
#: A strategy's section ended since the heap was last measured: the next section does.
_heap_check_due = False


def _check_heap() -> None:
    """Measure the heap and run a full collection if it grew by a quarter since the last
    one: garbage cycles stay in it until collected, so a heap that did not grow holds
    few."""
    global _survivors, _heap_check_due
    _heap_check_due = False
    size = _heap_size()
    if _survivors is None:
        _survivors = size
    elif 4 * (size - _survivors) > _survivors:
        gc.collect()
        _survivors = _heap_size()


def _heap_size() -> int:
    """The memory blocks Python's small-object allocator holds: nearly every object takes
    one (all but those over 512 bytes), and garbage cycles keep theirs until collected.
    Read off its pools, far cheaper than walking the objects; an interpreter without that
    allocator (``PYTHONMALLOC=malloc``) answers 0, and then the collector's tracked
    objects are counted (``freeze`` gathers them where they are counted)."""
    blocks = sys.getallocatedblocks()
    if blocks:
        return blocks
    gc.freeze()
    count = gc.get_freeze_count()
    gc.unfreeze()
    return count


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a record was not applied: it goes to the dead-letter topic."""

    code: str
    reason: str
    field: str | None = None
    #: The record in the single-object form when it came registry-framed (its schema
    #: id resolved): its dead letter masks a connection token through it.
    unframed: bytes | None = None


def internal_error(error: BaseException) -> Rejection:
    """The rejection of a record the worker failed on for a reason of its own (a bug)."""
    return Rejection("internal_error", f"{type(error).__name__}: {error}")


def implausible_time(
    event: QueueEvent | LifecycleEvent, timestamp_ms: int, skew_ms: int
) -> Rejection | None:
    """Why ``event``'s own times cannot be believed of a record stamped ``timestamp_ms``.

    A tick's instant and sequence (equal since ADR 0007) must lie within ``skew_ms`` of
    the stamp either way: a forged far-future tick would otherwise expire every ticket
    and make every real tick stale. A join may be older than its stamp (it expires by
    its TTL) but not newer by more than ``skew_ms``, or it would never expire; a leave
    likewise, or its ticket id would be remembered as ended far longer (docs/adr/0116); a
    backfill request likewise, or it would outlive its lifetime (docs/adr/0117).
    A ready-check
    answer's and a placement report's time must lie within ``skew_ms`` of the stamp either
    way: the deadline is judged on the answer's own time (a late answer dated early would
    slip in), and either time becomes a dequeue's time and how long the ticket's id is
    remembered (docs/adr/0115). A backfill request's deadline and cancel time and claim
    times are not checked (ADR 0115).

    >>> tick = WaveTick("1v1", "eu", "9", 9_000, 9_000, "cfg", 1_000)
    >>> implausible_time(tick, 5_000, 1_000).field
    'tick_at_ms'
    >>> implausible_time(tick, 8_500, 1_000) is None
    True
    """
    if type(event) is TicketJoined:
        joined = event.ticket.joined_at_ms
        if joined - timestamp_ms > skew_ms:
            return _too_far("joined_at_ms", joined, timestamp_ms, skew_ms)
    elif type(event) is TicketLeft:
        if event.left_at_ms - timestamp_ms > skew_ms:
            return _too_far("left_at_ms", event.left_at_ms, timestamp_ms, skew_ms)
    elif type(event) is BackfillRequested:
        if event.at_ms - timestamp_ms > skew_ms:
            return _too_far("requested_at_ms", event.at_ms, timestamp_ms, skew_ms)
    elif type(event) is WaveTick:
        for name, instant in (("tick_at_ms", event.tick_at_ms), ("sequence", event.sequence)):
            if abs(instant - timestamp_ms) > skew_ms:
                return _too_far(name, instant, timestamp_ms, skew_ms)
    elif isinstance(event, ReadyCheckAnswered | PlacementReported) and (
        abs(event.at_ms - timestamp_ms) > skew_ms
    ):
        return _too_far(_ANSWERS[type(event)], event.at_ms, timestamp_ms, skew_ms)
    return None


def bounded_join(event: TicketJoined, timestamp_ms: int, skew_ms: int, ttl_ms: int) -> TicketJoined:
    """``event`` with its wait counted from ``skew_ms`` before its record's stamp at the
    earliest (docs/adr/0136).

    A join's own date starts its wait, and every rule limit that grows with the seconds
    waited: dated far back, it would be matched at once under the widest limits. A join
    older than its TTL by its own date keeps it and expires at once, as the contract says
    (a retried join of a ticket whose id is forgotten must not queue its player again).

    >>> from matcher.core import Player, Ticket
    >>> old = TicketJoined(Ticket("t", "q", "eu", (Player("p", (("mmr", 1),)),), 1_000))
    >>> bounded_join(old, 90_000, 5_000, 600_000).ticket.joined_at_ms
    85000
    >>> bounded_join(old, 90_000, 5_000, 60_000).ticket.joined_at_ms
    1000
    """
    joined, earliest = event.ticket.joined_at_ms, timestamp_ms - skew_ms
    if joined >= earliest or joined + ttl_ms <= timestamp_ms:
        return event
    return replace(event, ticket=replace(event.ticket, joined_at_ms=earliest))


def _stale_tick(state: PartitionState, tick: WaveTick) -> bool:
    """A tick at or below its region's last sequence: a no-op whatever its times (the
    contract lists it as valid; a second timer's or a redelivered tick changes nothing)."""
    region = state.book.regions.get((tick.queue, tick.region))
    return region is not None and tick.sequence <= region.last_sequence


#: The platform's answers whose own time is checked both ways, and its field's name.
_ANSWERS = {ReadyCheckAnswered: "answered_at_ms", PlacementReported: "reported_at_ms"}


def _too_far(name: str, instant: int, timestamp_ms: int, skew_ms: int) -> Rejection:
    return Rejection(
        "implausible_time",
        f"{name} {instant} is {instant - timestamp_ms:+d} ms from the record's broker "
        f"timestamp {timestamp_ms}; at most {skew_ms} ms is plausible (max_clock_skew_ms)",
        name,
    )


@dataclass(frozen=True, slots=True)
class Folded:
    offset: int
    step: Step | None = None
    rejection: Rejection | None = None
    #: How long a tick's fold took; None for any other record: it closes no wave, so the
    #: per-record paths need not look for a wave summary in its step.
    duration_ms: float | None = None


@final  # final: ``type(x) is WaveDue``, cheaper than isinstance, narrows both branches
@dataclass(frozen=True, slots=True)
class WaveDue:
    """A tick read and accepted whose wave is still to close (:meth:`Folder.close_wave`):
    the live worker closes a large one off its event loop."""

    offset: int
    tick: WaveTick


@dataclass(slots=True)
class PartitionState:
    """Every (queue, region) queue living in one input partition, and how far it got."""

    partition: int
    book: QueueBook
    applied_offset: int = -1
    events_since_snapshot: int = 0
    #: How long the waves folded since the last snapshot took to close: what a takeover
    #: from that snapshot re-runs.
    wave_ms_since_snapshot: float = 0.0
    snapshot_slot: str | None = None
    finished_log: FinishedLog = field(default_factory=FinishedLog)

    def tickets(self) -> int:
        """Queued tickets and held players (a snapshot grows with both)."""
        return sum(len(q.tickets) + len(q.life.players) for q in self.book.regions.values())


#: One per join or leave: built without the frozen ``__init__`` (matcher/fastbuild.py).
_make_folded = builder(Folded)

#: Routing verdicts remembered by a folder before it starts over.
MAX_ROUTES = 4_096
_UNKNOWN = object()


@dataclass(frozen=True)
class Folder:
    """What folding needs from the settings, built once per worker."""

    profiles: dict[str, QueueProfile]
    regions_by_queue: dict[str, tuple[str, ...]]
    rules: QueueRules
    partitions: int
    check_routing: bool = True
    cadences: Mapping[str, CadencePolicy] = field(default_factory=dict)
    policies: Mapping[str, LifecyclePolicy] = field(default_factory=dict)
    #: How far a tick's instant, an answer's or report's time, or a join's time into the
    #: future, may be from its record's broker timestamp (docs/adr/0074, 0115); None: not
    #: checked.
    max_clock_skew_ms: int | None = None
    #: Queues with their own ticket TTL (the others fold under ``rules``).
    queue_rules: Mapping[str, QueueRules] = field(default_factory=dict)
    #: A registry-framed value in its single-object form (the worker's
    #: :meth:`~streams.wire.registry.SchemaRegistry.unframe`, its ids resolved before the
    #: fold); without a registry every such value is refused (docs/adr/0165).
    unframe: Callable[[bytes], bytes] = field(default=no_registry, compare=False)
    #: Other configurations by fingerprint, which a region's tick may switch it to
    #: (streams/worker/config_log.py, docs/adr/0160); every partition's book shares it.
    layouts: dict[str, Layout] = field(default_factory=dict, compare=False)
    #: The fingerprint of the settings it was built from, when it follows the config
    #: topic (a worker, a replay of a log's configurations): with ``layouts``, every
    #: configuration a tick may carry. None: ticks are not checked against them.
    fingerprint: str | None = None
    _routes: dict[tuple[bytes | None, str, str, int], Rejection | None] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def from_settings(cls, settings: Settings, *, follows_configs: bool = False) -> Folder:
        """The folder of ``settings``; ``follows_configs``: its ``layouts`` will hold
        every configuration published to the config topic, and a tick naming none of
        them (nor ``settings``) is refused (docs/adr/0210)."""
        profiles = settings.profiles()
        # Import each strategy now (SciPy for `optimal`), not inside the first wave's
        # latency; a no-op when the entry point loaded them already.
        load_strategies([profile.strategy for profile in profiles.values()])
        inbound.build_validators()  # likewise the full decoder's (a tick takes it)
        return cls(
            profiles,
            settings.regions_by_queue(),
            settings.rules(),
            settings.partitions,
            cadences=settings.cadences(),
            policies=settings.lifecycles(),
            max_clock_skew_ms=settings.max_clock_skew_ms,
            queue_rules=settings.queue_rules(),
            fingerprint=settings.config_fingerprint() if follows_configs else None,
        )

    def new_state(self, partition: int) -> PartitionState:
        return PartitionState(
            partition,
            QueueBook(
                self.profiles,
                self.regions_by_queue,
                self.rules,
                self.cadences,
                policies=self.policies,
                queue_rules=self.queue_rules,
                layouts=self.layouts,
            ),
        )

    def places_in(self, partition: int) -> list[tuple[str, str]]:
        """The configured (queue, region) pairs whose events land in ``partition``."""
        return [
            (queue, region)
            for queue, regions in self.regions_by_queue.items()
            for region in regions
            if murmur2_partition(queue_key(queue, region), self.partitions) == partition
        ]

    def rules_of(self, queue: str) -> QueueRules:
        """The fold's rules of ``queue``."""
        return self.queue_rules.get(queue, self.rules)

    def fold(
        self,
        state: PartitionState,
        key: bytes | None,
        value: bytes | None,
        offset: int,
        timestamp_ms: int | None = None,
    ) -> Folded | None:
        """Apply the record at ``offset``; None when the state already holds it.

        ``timestamp_ms`` is the record's Kafka timestamp (None or negative: unknown, as in
        logs exported before it was kept): a WaveTick, TicketJoined, ReadyCheckAnswered or
        PlacementReported whose own times are implausibly far from it is rejected
        (``implausible_time``, docs/adr/0074, docs/adr/0115).

        Whatever ``key`` and ``value`` hold, this returns: no input raises out of decoding,
        routing or applying (a deeply nested JSON's RecursionError, a strategy's bug...).
        An unforeseen failure is the record's rejection (``internal_error``): it costs one
        DeadLetter, never the worker, and every process folding the log (live, catch-up,
        replay) decides the same. Its encoding half is :func:`outputs.records_of`'s.
        """
        folded = self.read(state, key, value, offset, timestamp_ms)
        if type(folded) is WaveDue:
            return self.close_wave(state, folded)
        return folded

    def read(
        self,
        state: PartitionState,
        key: bytes | None,
        value: bytes | None,
        offset: int,
        timestamp_ms: int | None = None,
    ) -> Folded | WaveDue | None:
        """:meth:`fold`, but an accepted tick is returned due, its wave not closed: the
        state counts the record as applied, and :meth:`close_wave` must close that wave
        before any other record of the partition is read."""
        if offset <= state.applied_offset:
            return None
        try:
            folded = self._fold(state, key, value, offset, timestamp_ms)
        except Exception as error:
            log.exception("record at offset %d not applied", offset)
            folded = Folded(offset, rejection=internal_error(error))
        state.applied_offset = offset
        state.events_since_snapshot += 1
        return folded

    def close_wave(self, state: PartitionState, due: WaveDue) -> Folded:
        """Close the wave of a tick :meth:`read` returned due (on any thread: it reads and
        writes ``state`` only, and nothing else may touch ``state`` meanwhile)."""
        try:
            return self._close_wave(state, due)
        except Exception as error:
            log.exception("record at offset %d not applied", due.offset)
            return Folded(due.offset, rejection=internal_error(error))

    def _fold(
        self,
        state: PartitionState,
        key: bytes | None,
        value: bytes | None,
        offset: int,
        timestamp_ms: int | None,
    ) -> Folded | WaveDue:
        if value and value[:1] == REGISTRY_MAGIC:  # the same body, framed by a registry
            try:
                unframed = self.unframe(value)
            except InvalidEvent as error:
                return Folded(offset, rejection=Rejection(error.code, error.reason, error.field))
            folded = self._fold(state, key, unframed, offset, timestamp_ms)
            if isinstance(folded, WaveDue) or folded.rejection is None:
                return folded
            # Its dead letter masks a connection token through the resolved form.
            return replace(folded, rejection=replace(folded.rejection, unframed=unframed))
        # inbound.read, its fast decoder called here first: a join is nearly every record.
        event: Any = fast_queue_event(value)
        if event is None:
            try:
                event = inbound.decode(value)
            except InvalidEvent as error:
                return Folded(offset, rejection=Rejection(error.code, error.reason, error.field))
        if type(event) in inbound.OWN_KEYED:  # a claim's key is its player's (ADR 0110)
            own_key = inbound.routing_key(event)
            assert own_key is not None
            problem = self._key_problem(key, own_key, state.partition)
            if problem:
                return Folded(offset, rejection=problem)
            return Folded(offset, step=state.book.apply(event))
        problem = self._routing_problem(key, event.queue, event.region, state.partition)
        if problem:
            return Folded(offset, rejection=problem)
        skew = self.max_clock_skew_ms
        if skew is not None and timestamp_ms is not None and timestamp_ms >= 0:
            if type(event) is TicketJoined:
                # Nearly every record: a join dated within the skew of its stamp calls nothing.
                joined = event.ticket.joined_at_ms
                if joined - timestamp_ms > skew:
                    return Folded(offset, rejection=implausible_time(event, timestamp_ms, skew))
                if joined < timestamp_ms - skew:
                    ttl_ms = self.rules_of(event.queue).ticket_ttl_ms
                    event = bounded_join(event, timestamp_ms, skew, ttl_ms)
            elif not (type(event) is WaveTick and _stale_tick(state, event)):
                problem = implausible_time(event, timestamp_ms, skew)
                if problem:
                    return Folded(offset, rejection=problem)
        if not isinstance(event, WaveTick):  # O(1): no wave's worth of garbage to hold
            try:
                return _make_folded(offset, state.book.apply(event), None, None)
            except LifecycleRejected as error:  # an answer, report or backfill it cannot apply
                return Folded(offset, rejection=Rejection(error.code, error.reason, error.field))
        unknown = self._unknown_config(event)
        if unknown is not None and not _stale_tick(state, event):
            return Folded(offset, rejection=unknown)
        return WaveDue(offset, event)

    def _close_wave(self, state: PartitionState, due: WaveDue) -> Folded:
        offset = due.offset
        started = time.perf_counter()
        with paused_gc(strategy=True):
            step = state.book.apply(due.tick)
        duration_ms = (time.perf_counter() - started) * 1e3
        state.wave_ms_since_snapshot += duration_ms
        failure = step.failure
        if failure is None or not failure.first:
            return Folded(offset, step=step, duration_ms=duration_ms)
        log.error("wave of %s/%s failed: %s", failure.queue, failure.region, failure.reason)
        letter = Rejection("wave_failed", failure.reason, "strategy")
        return Folded(offset, step=step, rejection=letter, duration_ms=duration_ms)

    def _unknown_config(self, tick: WaveTick) -> Rejection | None:
        """A tick names the configuration its region's wave closes under: one no worker
        could have published is refused, not folded under another (docs/adr/0210)."""
        fingerprint = tick.config_fingerprint
        if self.fingerprint is None or fingerprint == self.fingerprint:
            return None
        if fingerprint in self.layouts:
            return None
        return Rejection(
            "unknown_config",
            f"config_fingerprint {fingerprint!r} is neither this worker's configuration "
            f"({self.fingerprint}) nor one published to the config topic",
            "config_fingerprint",
        )

    def _routing_problem(
        self, key: bytes | None, queue: str, region: str, partition: int
    ) -> Rejection | None:
        """A region's events must all land in one partition, or leaves could miss joins.

        The answer depends on the four values only and a worker sees few combinations:
        remembered (murmur2 of the same key on every record showed in a join's profile).
        """
        route = (key, queue, region, partition)
        known = self._routes.get(route, _UNKNOWN)
        if known is _UNKNOWN:
            if len(self._routes) >= MAX_ROUTES:  # garbage keys must not grow it forever
                self._routes.clear()
            known = self._routes[route] = self._route_problem(key, queue, region, partition)
        return known  # type: ignore[return-value]

    def _route_problem(
        self, key: bytes | None, queue: str, region: str, partition: int
    ) -> Rejection | None:
        return self._key_problem(key, queue_key(queue, region), partition)

    def _key_problem(
        self, key: bytes | None, expected_key: bytes, partition: int
    ) -> Rejection | None:
        if key != expected_key:
            had = (
                "the record has no key"
                if key is None
                else f"key is {key.decode('utf-8', 'replace')!r}"
            )
            return Rejection(
                "key_mismatch", f"{had} but the event is for {expected_key.decode()!r}", "key"
            )
        if self.check_routing:
            home = murmur2_partition(expected_key, self.partitions)
            if home != partition:
                return Rejection(
                    "misrouted",
                    f"key {expected_key.decode()!r} belongs in partition {home} (murmur2), "
                    f"not {partition}; use the Java/aiokafka default partitioner "
                    "(librdkafka: partitioner=murmur2_random)",
                    "key",
                )
        return None
