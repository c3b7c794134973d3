"""The configuration in force, as a fold over wavematch.config.v1 (docs/adr/0160).

`wavematch config publish FILE` writes a ConfigPublished under the key
:data:`PUBLISHED_KEY`; the last valid one is the configuration in force. Every worker
folds the topic into a :class:`ConfigCatalog`: its ticks carry the fingerprint in force,
and a region switches to a configuration at the first tick that carries it, so the
decision is in the queue log itself and a replay (or a worker taking over) re-derives it.
A configuration is known by its fingerprint from either kind of record (the workers'
own, keyed by fingerprint, ADR 0075, or a published one).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable

from aiokafka import TopicPartition

from matcher.queue.book import Layout
from schemas.codec import decode
from schemas.errors import InvalidEvent
from schemas.models import ConfigPublished
from schemas.topics import CONFIG
from streams.connection import Brokers, start_client, stop_client
from streams.settings import Settings
from streams.worker.catchup import group_less_reader, records_to_highwater
from streams.worker.config_record import settings_of

log = logging.getLogger(__name__)

#: The key of `wavematch config publish`'s records: one key, so one partition keeps them
#: in order and compaction keeps the last one, the configuration in force.
PUBLISHED_KEY = b"published"

#: The follower's fetch wait. A published configuration takes effect at a tick, so one
#: seen a fraction of a second later costs nothing; the catch-up reader's short wait
#: (ADR 4) would instead fetch the idle topic twenty times a second for the worker's life.
FOLLOW_FETCH_WAIT_MS = 500

#: Settings a published configuration may not change: they shape the partitions, the
#: claims and the timer's schedule, which a region cannot switch at one of its ticks.
FRAME_FIELDS = ("partitions", "max_clock_skew_ms", "one_ticket_per_player", "finished_retention_ms")
#: A queue's settings likewise (its name and regions fix the ticks' keys and schedule).
FRAME_QUEUE_FIELDS = (
    "name",
    "regions",
    "cadence",
    "wave_interval_ms",
    "pop_target_matches",
    "pop_floor_ms",
    "pop_cap_ms",
    "pop_smoothing",
    "size_trigger_tickets",
    "size_floor_ms",
)


def layout_of(settings: Settings) -> Layout:
    """What the fold needs of ``settings`` to apply a region's events under them."""
    return Layout(
        settings.profiles(),
        settings.regions_by_queue(),
        settings.rules(),
        settings.cadences(),
        settings.lifecycles(),
        settings.queue_rules(),
    )


def frame_problem(running: Settings, new: Settings) -> str | None:
    """Why ``new`` cannot replace ``running`` at a tick (one line), or None."""
    for name in FRAME_FIELDS:
        if getattr(running, name) != getattr(new, name):
            return f"{name}: differs from the running configuration's; changing it needs a restart"
    names = [q.name for q in running.queues]
    if [q.name for q in new.queues] != names:
        return (
            f"queues: names {[q.name for q in new.queues]} differ from the running {names}; "
            "adding, removing or reordering queues needs a restart"
        )
    for index, (old, queue) in enumerate(zip(running.queues, new.queues, strict=True)):
        for name in FRAME_QUEUE_FIELDS:
            if getattr(old, name) != getattr(queue, name):
                return (
                    f"queues.{index}: queue {queue.name!r}: {name}: differs from the running "
                    "configuration's; changing it needs a restart"
                )
    return None


class ConfigCatalog:
    """The configurations a worker's fold may switch a region to, and the one in force.

    ``layouts`` is the fold's own table (:attr:`Folder.layouts`): filled here, read by
    every partition's book. Only grown, and a fingerprint always names the same
    settings, so the order records arrive in changes nothing but :attr:`in_force`.
    """

    def __init__(
        self,
        base: Settings,
        layouts: dict[str, Layout],
        on_refused: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.base = base
        self.base_fingerprint = base.config_fingerprint()
        self.layouts = layouts
        self.in_force = self.base_fingerprint
        self._on_refused = on_refused

    def offer(self, key: bytes | None, value: bytes | None) -> str | None:
        """Fold one record of the config topic; the one-line reason it was refused, or None.

        A worker's own record (keyed by its fingerprint) that this worker cannot apply is
        skipped quietly: another release's or another deployment's. A published one is
        refused aloud (logged, counted), and the configuration in force stays.
        """
        published = key == PUBLISHED_KEY
        problem, settings, fingerprint = self._read(value)
        if problem is None and settings is not None:
            problem = frame_problem(self.base, settings)
            if problem is not None:  # this worker's file or the published one is the odd one
                problem += (
                    f"; this worker keeps its own settings ({self.base_fingerprint}): if "
                    "the group's other workers took it, start this one with their file"
                )
        if problem is not None:
            if published:
                line = f"configuration {fingerprint or '?'} refused: {problem}"
                log.error("%s", line)
                self._on_refused(line)
                return line
            return None
        assert settings is not None and fingerprint is not None
        if fingerprint != self.base_fingerprint and fingerprint not in self.layouts:
            self.layouts[fingerprint] = layout_of(settings)
        if published and fingerprint != self.in_force:
            log.info("configuration %s in force from each region's next tick", fingerprint)
            self.in_force = fingerprint
        return None

    def offer_all(self, records: Iterable[tuple[bytes | None, bytes | None]]) -> None:
        for key, value in records:
            self.offer(key, value)

    def _read(self, value: bytes | None) -> tuple[str | None, Settings | None, str | None]:
        try:
            record = decode(value or b"")
        except InvalidEvent as error:
            return f"{error.field or 'record'}: {error.reason}", None, None
        if not isinstance(record, ConfigPublished):
            return f"a {type(record).__name__}, not a ConfigPublished", None, None
        settings = settings_of(record, self.base)
        if settings is None:
            return (
                "settings_json: not valid settings for this release, or their fingerprint "
                "is not reproduced by it",
                None,
                record.config_fingerprint,
            )
        return None, settings, record.config_fingerprint


async def follow_config(brokers: Brokers, catalog: ConfigCatalog, loaded: asyncio.Event) -> None:
    """Fold the config topic into ``catalog`` from its start, set ``loaded`` once at its
    end (the queue consumer and the timer wait for it), then follow it for good."""
    try:
        positions = await _read_to_end(brokers, catalog, loaded)
    finally:
        loaded.set()
    follower = group_less_reader(brokers, fetch_max_wait_ms=FOLLOW_FETCH_WAIT_MS)
    try:
        await start_client(follower)
        follower.assign(list(positions))
        for tp, offset in positions.items():
            follower.seek(tp, offset)
        while True:
            batches = await follower.getmany(*positions, timeout_ms=FOLLOW_FETCH_WAIT_MS)
            for records in batches.values():
                for record in records:
                    catalog.offer(record.key, record.value)
    finally:
        await stop_client(follower)


async def _read_to_end(
    brokers: Brokers, catalog: ConfigCatalog, loaded: asyncio.Event
) -> dict[TopicPartition, int]:
    """Fold the config topic from its start into ``catalog``, up to its end; the position
    reached in each partition (where following it starts)."""
    consumer = group_less_reader(brokers)
    try:
        await start_client(consumer)
        tps: list[TopicPartition] = []
        while not tps:
            await consumer._client.force_metadata_update()
            tps = [
                TopicPartition(CONFIG.name, p)
                for p in sorted(consumer.partitions_for_topic(CONFIG.name) or ())
            ]
            if not tps:  # not created yet: nothing was published
                loaded.set()
                await asyncio.sleep(1)
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        try:
            async for record in records_to_highwater(consumer, tps, idle_s=5.0):
                catalog.offer(record.key, record.value)
        except TimeoutError:
            log.warning("config topic: end not reached; following it from here")
        return {tp: await consumer.position(tp) for tp in tps}
    finally:
        await stop_client(consumer)
