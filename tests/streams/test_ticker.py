"""The wave timer: fixed queues tick on the interval grid; pop-timer queues tick when the
folded log says the next wave is due. Sequences are the scheduled instants, so two
workers write the same one."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from matcher.queue.fold import RegionQueue
from schemas.codec import decode
from schemas.models import WaveTick
from schemas.topics import murmur2_partition, queue_key
from streams.settings import load_settings
from streams.worker.ticker import Ticker

CONFIG = """
partitions = 4
[[queues]]
name = "1v1"
regions = ["eu"]
wave_interval_ms = 1000
[[queues]]
name = "2v2"
team_size = 2
strategy = "rebalance"
regions = ["na"]
wave_interval_ms = 1000
cadence = "pop"
pop_target_matches = 2.0
pop_floor_ms = 200
pop_cap_ms = 5000
"""


class Clock:
    def __init__(self, now_s: float) -> None:
        self.now_s = now_s

    def __call__(self) -> float:
        return self.now_s


def run_ticker(
    tmp_path: Path, state: RegionQueue | None, clock: Clock, seconds: float, text: str = CONFIG
) -> list[WaveTick]:
    """The ticks a ticker sends in ``seconds`` of the fake clock; ``state`` is the 2v2 region's."""
    config = tmp_path / "w.toml"
    config.write_text(text)
    settings = load_settings(config, broker_url="kafka://localhost:1")
    sent: list[WaveTick] = []

    async def send(partition: int, key: bytes, value: bytes) -> None:
        tick = decode(value)
        assert isinstance(tick, WaveTick)
        assert partition == murmur2_partition(queue_key(tick.queue, tick.region), 4)
        sent.append(tick)
        if state is not None and tick.queue == "2v2":
            state.last_sequence, state.last_tick_at_ms = tick.sequence, tick.tick_at_ms

    async def main() -> None:
        ticker = Ticker(
            settings, send, lambda: {0, 1, 2, 3}, lambda q, r: state if q == "2v2" else None, clock
        )
        task = asyncio.ensure_future(ticker.run())
        for _ in range(int(seconds / 0.05)):
            await asyncio.sleep(0.05)
            clock.now_s += 0.05
        task.cancel()

    asyncio.run(main())
    return sent


def test_fixed_queue_ticks_on_the_interval_grid(tmp_path: Path) -> None:
    ticks = [t for t in run_ticker(tmp_path, None, Clock(1_800_000_000.0), 3.2) if t.queue == "1v1"]
    assert len(ticks) >= 2
    assert all(t.sequence == t.tick_at_ms and t.tick_at_ms % 1000 == 0 for t in ticks)
    assert [t.tick_at_ms - ticks[0].tick_at_ms for t in ticks] == [
        1000 * i for i in range(len(ticks))
    ]


def test_pop_queue_ticks_when_the_folded_arrival_rate_says_so(tmp_path: Path) -> None:
    state = RegionQueue(
        "2v2",
        "na",
        last_sequence=1_799_999_999_000,
        last_tick_at_ms=1_799_999_999_000,
        arrival_rate_per_s=8.0,
    )
    ticks = [
        t for t in run_ticker(tmp_path, state, Clock(1_800_000_000.0), 2.0) if t.queue == "2v2"
    ]
    # 2 matches x 4 players at 8 players/s: a wave every second after the last one.
    assert [t.tick_at_ms for t in ticks[:2]] == [1_800_000_000_000, 1_800_000_001_000]
    assert all(t.interval_ms == 1000 for t in ticks[:2])


SPREAD = """
partitions = 4
stagger_ticks = {stagger}
[[queues]]
name = "1v1"
regions = ["eu", "na", "asia", "oce"]
wave_interval_ms = 1000
"""


def fixed_ticks(tmp_path: Path, stagger: str, seconds: float) -> list[WaveTick]:
    text = SPREAD.format(stagger=stagger)
    return run_ticker(tmp_path, None, Clock(1_800_000_000.0), seconds, text)


def test_regions_of_a_fixed_queue_tick_at_evenly_spread_offsets(tmp_path: Path) -> None:
    ticks = fixed_ticks(tmp_path, "true", 3.2)
    offsets = {
        t.region: {t.tick_at_ms % 1000 for t in ticks if t.region == t.region} for t in ticks
    }
    by_region = {r: {t.tick_at_ms % 1000 for t in ticks if t.region == r} for r in offsets}
    assert by_region == {"eu": {0}, "na": {250}, "asia": {500}, "oce": {750}}
    for region in by_region:  # still one tick an interval, on its own grid
        instants = [t.tick_at_ms for t in ticks if t.region == region]
        assert len(instants) >= 2 and all(b - a == 1000 for a, b in itertools.pairwise(instants))
    assert all(t.sequence == t.tick_at_ms for t in ticks)


def test_without_staggering_every_region_ticks_on_the_grid(tmp_path: Path) -> None:
    ticks = fixed_ticks(tmp_path, "false", 2.2)
    assert {t.region for t in ticks} == {"eu", "na", "asia", "oce"}
    assert all(t.tick_at_ms % 1000 == 0 for t in ticks)


def test_no_tick_is_sent_while_the_broker_is_away(tmp_path: Path) -> None:
    """A tick queued through an outage would reach the log late and be dead-lettered as
    implausible; the timer sends none until the probe reaches the broker again."""
    config = tmp_path / "w.toml"
    config.write_text(CONFIG)
    settings = load_settings(config, broker_url="kafka://localhost:1")
    clock, up, sent = Clock(1_800_000_000.0), [False], []

    async def send(partition: int, key: bytes, value: bytes) -> None:
        sent.append((decode(value), up[0]))

    async def main() -> None:
        ticker = Ticker(
            settings, send, lambda: {0, 1, 2, 3}, lambda q, r: None, clock, broker_up=lambda: up[0]
        )
        task = asyncio.ensure_future(ticker.run())
        for step in range(int(4.0 / 0.05)):
            up[0] = step >= 40  # away for the first two seconds
            await asyncio.sleep(0.05)
            clock.now_s += 0.05
        task.cancel()

    asyncio.run(main())
    fixed = [(tick, reached) for tick, reached in sent if tick.queue == "1v1"]
    assert fixed and all(reached for _, reached in fixed)
    assert min(tick.tick_at_ms for tick, _ in fixed) >= 1_800_000_002_000


class Watched(RegionQueue):
    """A region queue that counts the timer's reads of its cadence."""

    reads = 0

    def next_tick_at_ms(self, *args: object) -> int | None:
        Watched.reads += 1
        return super().next_tick_at_ms(*args)  # type: ignore[arg-type]


def test_a_partition_closing_a_wave_on_a_thread_gets_no_tick_and_no_read(tmp_path: Path) -> None:
    """While a wave closes on a thread (docs/adr/0216), the timer neither reads the state it
    changes nor sends its partition ticks that would each close another wave after it."""
    config = tmp_path / "w.toml"
    config.write_text(CONFIG)
    settings = load_settings(config, broker_url="kafka://localhost:1")
    state = Watched(
        "2v2",
        "na",
        last_sequence=1_799_999_999_000,
        last_tick_at_ms=1_799_999_999_000,
        arrival_rate_per_s=8.0,
    )
    closing_partitions = {
        murmur2_partition(queue_key(q, r), 4) for q, r in (("1v1", "eu"), ("2v2", "na"))
    }
    clock, closing, sent = Clock(1_800_000_000.0), [True], []

    async def send(partition: int, key: bytes, value: bytes) -> None:
        sent.append((decode(value), closing[0]))

    async def main() -> None:
        ticker = Ticker(
            settings,
            send,
            lambda: {0, 1, 2, 3},
            lambda q, r: state if q == "2v2" else None,
            clock,
            closing=lambda partition: closing[0] and partition in closing_partitions,
        )
        task = asyncio.ensure_future(ticker.run())
        for step in range(int(4.0 / 0.05)):
            closing[0] = step < 40  # a wave of two seconds
            if step == 39:
                reads_while_closing = Watched.reads
            await asyncio.sleep(0.05)
            clock.now_s += 0.05
        task.cancel()
        assert reads_while_closing == 0

    asyncio.run(main())
    assert sent and not any(during for _, during in sent)
    assert {tick.queue for tick, _ in sent} == {"1v1", "2v2"}
    assert Watched.reads > 0
