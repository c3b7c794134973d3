"""A size-triggered queue (cadence = "size", docs/adr/0183): its settings are checked at
start, decide the fingerprint and travel in the configuration record; the wave timer
ticks as soon as the folded region holds enough tickets, and not again for leftovers."""

from __future__ import annotations

import asyncio

import pytest

from matcher.core import Player, Ticket
from matcher.queue.book import QueueBook
from matcher.queue.events import TicketJoined
from matcher.queue.events import WaveTick as Tick
from schemas.codec import decode
from schemas.models import WaveTick
from streams.settings import Settings, SettingsError, load_settings
from streams.worker.config_record import config_published, settings_of
from streams.worker.ticker import Ticker

NOW_MS = 1_800_000_000_000
SIZE_QUEUE = {"name": "1v1", "regions": ["eu"], "cadence": "size", "wave_interval_ms": 60_000}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"size_trigger_tickets": 1},
            "queues.0: queue '1v1': size_trigger_tickets: Input should be greater",
        ),
        ({"size_floor_ms": 5}, "queues.0: queue '1v1': size_floor_ms: Input should be greater"),
        (
            {"size_floor_ms": 90_000},
            "queues.0: queue '1v1': size_floor_ms must be <= wave_interval_ms",
        ),
    ],
)
def test_bad_size_settings_stop_the_start_in_one_line(fields: dict[str, int], message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(queues=[SIZE_QUEUE | fields])
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_trigger_and_floor_decide_the_fingerprint_and_travel_in_the_record() -> None:
    base = Settings(queues=[SIZE_QUEUE])
    others = [
        Settings(queues=[SIZE_QUEUE | {"size_trigger_tickets": 10}]),
        Settings(queues=[SIZE_QUEUE | {"size_floor_ms": 1_000}]),
    ]
    fingerprints = {s.config_fingerprint() for s in (base, *others)}
    assert len(fingerprints) == 3
    for settings in (base, *others):  # a replay rebuilds the same settings from the log
        rebuilt = settings_of(config_published(settings, NOW_MS), Settings())
        assert rebuilt is not None and rebuilt.queues == settings.queues
    # Off (the default cadence), the new settings leave an existing fingerprint alone.
    fixed = Settings(queues=[SIZE_QUEUE | {"cadence": "fixed"}])
    record = config_published(fixed, NOW_MS).settings_json
    assert '"size_trigger_tickets"' not in record and '"size_floor_ms"' not in record
    assert base.cadences()["1v1"].trigger_tickets == 2


def ticks_of(settings: Settings, book: QueueBook, now_s: float, seconds: float) -> list[WaveTick]:
    """The ticks a timer sends in ``seconds`` of a fake clock started at ``now_s``."""
    sent: list[WaveTick] = []
    clock = [now_s]

    async def send(partition: int, key: bytes, value: bytes) -> None:
        tick = decode(value)
        assert isinstance(tick, WaveTick)
        sent.append(tick)
        fields = (tick.wave_id, tick.sequence, tick.tick_at_ms, tick.config_fingerprint)
        book.apply(Tick(tick.queue, tick.region, *fields, tick.interval_ms))  # the fold

    async def main() -> None:
        ticker = Ticker(
            settings,
            send,
            lambda: set(range(settings.partitions)),
            book.region_queue,
            lambda: clock[0],
        )
        task = asyncio.ensure_future(ticker.run())
        for _ in range(int(seconds / 0.01)):
            await asyncio.sleep(0.01)
            clock[0] += 0.01
        task.cancel()

    asyncio.run(main())
    return sent


def test_the_timer_ticks_on_the_join_that_brings_the_region_to_n() -> None:
    settings = Settings(queues=[SIZE_QUEUE])
    book = QueueBook(settings.profiles(), settings.regions_by_queue(), cadences=settings.cadences())
    start_ms = NOW_MS
    book.apply(Tick("1v1", "eu", "w0", start_ms, start_ms, "f", 60_000))
    for name in ("a", "b"):
        player = Player(name, (("bw", 1500),))
        book.apply(TicketJoined(Ticket(name, "1v1", "eu", (player,), start_ms + 100)))
    ticks = ticks_of(settings, book, (start_ms + 1_000) / 1000, 1.0)
    assert len(ticks) == 1, ticks  # a 60 s interval, yet a wave at once
    assert start_ms + 1_000 <= ticks[0].tick_at_ms < start_ms + 1_100
    assert ticks[0].sequence == ticks[0].tick_at_ms
    assert ticks[0].interval_ms == ticks[0].tick_at_ms - start_ms


def test_tickets_a_wave_left_waiting_do_not_tick_again_until_a_join() -> None:
    settings = Settings(queues=[SIZE_QUEUE | {"size_floor_ms": 100}])
    book = QueueBook(settings.profiles(), settings.regions_by_queue(), cadences=settings.cadences())
    start_ms = NOW_MS
    book.apply(Tick("1v1", "eu", "w0", start_ms, start_ms, "f", 60_000))
    region = book.region_queue("1v1", "eu")
    # Two bw players, an asymmetric duel's same side: no wave can pair them.
    for name in ("a", "b"):
        player = Player(name, (("bw", 1500),))
        book.apply(TicketJoined(Ticket(name, "1v1", "eu", (player,), start_ms + 100)))
    region.arrivals_since_tick = 0  # as after a wave that left them
    assert ticks_of(settings, book, (start_ms + 1_000) / 1000, 0.6) == []
