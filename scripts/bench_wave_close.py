"""Time to close one big wave inside the worker's fold, without the broker.

    .venv/bin/python scripts/bench_wave_close.py [--players 10000] [--repeat 3]

Folds N 1v1 joins into one region, then times the WaveTick: snapshot, strategy,
checker, state update (the fold), the worker's metrics of the wave, and turning the step
into encoded output records (`records_of`: MatchCreated, TicketDequeued, TicketStatus,
WaveClosed). This is the "tick read to last event encoded" part of a wave's latency.
``--publish`` starts a broker (``--broker tansu``, the embedded one, or ``kafka``, Apache
Kafka from tests/kafka/install.sh's jars) and also sends every record with the worker's
Publisher and producer settings, timing until the broker acknowledged the last one (the
producer's flush: the issue's "tick read to last event published"). The cyclic GC is
held from the tick's fold to the hand-over to the producer, as the worker holds it for a
batch (QueueWorker.process); the wave's objects are freed after the hand-over, as the
worker frees them. ``--joins-after N`` folds N joins after the wave, before the flush,
as the worker folds the rest of a fetched batch (up to 2,000 records) before it flushes.
``--rules`` makes the queue a mirror ladder (one ``mmr`` rating per player) with skill,
latency and rematch rules (RULES below): players join over the two minutes before the
tick with latencies to the region, and a first wave closes untimed, its players joining
again, so that the timed wave's players carry real rematch histories (below ~250 players,
their young windows and last opponents leave that wave few pairs or none). ``--hosted`` (with
``--rules``) routes three regions to themselves and has every player measure all three,
so that the latencies choose every match's server (docs/adr/0105).
The process keeps freed memory as a worker does (ADR 0072) unless ``--glibc-defaults``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from allocator_setting import add_allocator_argument, apply_allocator  # noqa: E402
from bench_join_fold import settings_from  # noqa: E402
from machine import machine_line  # noqa: E402
from prometheus_client import CollectorRegistry  # noqa: E402

from schemas.codec import encode  # noqa: E402
from schemas.models import WaveTick  # noqa: E402
from schemas.topics import murmur2_partition, queue_key  # noqa: E402
from streams.wire.outbound import Writer  # noqa: E402
from streams.worker.folding import Folder, paused_gc  # noqa: E402
from streams.worker.metrics import WorkerMetrics  # noqa: E402
from streams.worker.outputs import records_of  # noqa: E402
from tests.duel.waves import worker_mix_ratings  # noqa: E402

CONFIG = """
partitions = 8
ticket_ttl_ms = 86400000
publish_status = {status}
[[queues]]
name = "1v1"
strategy = "{strategy}"
regions = ["eu"]
wave_interval_ms = 10000
ready_check_ms = {ready}
"""
#: ``--rules``: the issue's 1v1 rules, skill, latency and rematch.
RULES = """
[queues.rules]
rating = "mmr"
max_distance = { base = 100, growth_per_s = 5, cap = 400 }
max_latency_ms = { base = 80, growth_per_s = 1, cap = 150 }
rematch = { last = 3, within_s = 900 }
"""
#: ``--hosted``: regions hosting servers, so that the players' latencies place matches.
HOSTED = """
[[routes]]
region_a = "eu"
region_b = "eu"
servers = ["eu-1", "eu-2"]
[[routes]]
region_a = "na"
region_b = "na"
servers = ["na-1"]
[[routes]]
region_a = "asia"
region_b = "asia"
servers = ["asia-1"]
"""


def latencies(number: int, hosted: bool) -> dict[str, int]:
    """Player ``number``'s latencies: to eu, and with ``hosted`` to na and asia too."""
    eu = {"eu": 20 + number * 7919 % 120}
    return (
        eu | {"na": 15 + number * 104_729 % 140, "asia": 30 + number * 1_299_709 % 200}
        if hosted
        else eu
    )


class Send:
    """How a run hands its records to the producer, and flushes it."""

    def __init__(
        self, hand: Callable[[list[tuple[str, bytes, bytes]]], None], flush: Callable[[], None]
    ) -> None:
        self.hand, self.flush = hand, flush


def one_run(
    players: int,
    strategy: str,
    status: bool,
    seed: int,
    send: Send | None = None,
    joins_after: int = 0,
    rules: bool = False,
    ready_check_ms: int = 0,
    hosted: bool = False,
) -> dict[str, float]:
    writer = Writer()  # one per run, as a worker has one
    text = (
        CONFIG.format(strategy=strategy, status=str(status).lower(), ready=ready_check_ms)
        + (RULES if rules else "")
        + (HOSTED if hosted else "")
    )
    folder = Folder.from_settings(settings_from(text, broker_url="kafka://localhost:1"))
    key = queue_key("1v1", "eu")
    partition = murmur2_partition(key, 8)
    state = folder.new_state(partition)
    start_ms = 1_767_225_600_000
    joins = []
    for number, (bw, sc2) in enumerate(worker_mix_ratings(players + joins_after, seed)):
        ratings = {race: mmr for race, mmr in (("bw", bw), ("sc2", sc2)) if mmr is not None}
        player: dict[str, Any] = {"player_id": f"p{number}", "ratings": ratings}
        joined_at_ms = start_ms
        if rules:  # one rating, a latency, and joins spread over two minutes
            player["ratings"] = {"mmr": next(iter(ratings.values()))}
            player["latency_ms"] = latencies(number, hosted)
            joined_at_ms = start_ms - number * 104_729 % 120_000
        joins.append(_join(f"t{number}", joined_at_ms, player))
    for number, value in enumerate(joins[:players]):
        folder.fold(state, key, value, number)
    offset, tick_at_ms, wave = players, start_ms + 10_000, 1
    if rules:  # a first wave, its players back in the queue with their histories
        first = folder.fold(state, key, _tick(tick_at_ms, wave), offset)
        assert first is not None and first.step is not None
        offset, tick_at_ms, wave = offset + 1, tick_at_ms + 10_000, wave + 1
        again = [
            (seat.player_id, seat.rating, number)
            for number, match in enumerate(first.step.matches)
            for team in match.teams
            for seat in team.seats
        ]
        del first
        for player_id, rating, number in again:
            rejoin = {
                "player_id": player_id,
                "ratings": {"mmr": rating},
                "latency_ms": latencies(number, hosted),
            }
            folder.fold(state, key, _join(f"r{player_id}", tick_at_ms - 5_000, rejoin), offset)
            offset += 1
    tick = _tick(tick_at_ms, wave)
    metrics = WorkerMetrics(CollectorRegistry())
    BREAKDOWN.clear()
    began, began_cpu = time.perf_counter(), time.process_time()
    # As QueueWorker.process does for a batch: the cyclic collector held while the tick
    # is folded, encoded and handed to the producer; the flush (the broker's acks) after.
    with paused_gc():
        folded = folder.fold(state, key, tick, offset)
        folded_at = time.perf_counter()
        assert folded is not None and folded.step is not None
        assert folded.step.summary is not None
        metrics.observe(folded, state)  # as QueueWorker.process does, before the encoding
        observed_at = time.perf_counter()
        outputs = records_of(
            writer, folded, topic="wavematch.queue.v1", partition=partition, key=key, value=tick
        )
        done, done_cpu = time.perf_counter(), time.process_time()
        records, matches = len(outputs), folded.step.summary.matches
        folded_queued = folded.step.summary.players_in_snapshot
        if send is not None:
            send.hand(outputs)
            # As QueueWorker.process does: the wave's objects are freed once handed over,
            # then the batch's other records are folded, their outputs handed over, and
            # only then the producer flushed.
            del folded, outputs
            later: list[tuple[str, bytes, bytes]] = []
            for later_offset, value in enumerate(joins[players:], start=offset + 1):
                joined = folder.fold(state, key, value, later_offset)
                assert joined is not None
                later += records_of(
                    writer, joined, topic="q", partition=partition, key=key, value=value
                )
            send.hand(later)
    published, published_cpu = done, done_cpu
    if send is not None:
        send.flush()
        published, published_cpu = time.perf_counter(), time.process_time()
    return {
        "fold_ms": (folded_at - began) * 1e3,
        "metrics_ms": (observed_at - folded_at) * 1e3,
        "encode_ms": (done - observed_at) * 1e3,
        "total_ms": (done - began) * 1e3,
        # CPU time of this process: less sensitive than wall time to the other jobs
        # sharing the machine's two cores.
        "total_cpu_ms": (done_cpu - began_cpu) * 1e3,
        "publish_ms": (published - done) * 1e3,
        "publish_cpu_ms": (published_cpu - done_cpu) * 1e3,
        "tick_to_published_ms": (published - began) * 1e3,
        **{f"{label}_cpu_ms": value for label, value in BREAKDOWN.items()},
        "records": float(records),
        "matches": float(matches),
        "players_in_snapshot": float(folded_queued),
    }


def _join(ticket_id: str, joined_at_ms: int, player: dict[str, Any]) -> bytes:
    body = {
        "type": "TicketJoined",
        "ticket_id": ticket_id,
        "queue": "1v1",
        "region": "eu",
        "joined_at_ms": joined_at_ms,
        "players": [player],
    }
    return json.dumps(body).encode()


def _tick(tick_at_ms: int, wave: int) -> bytes:
    return encode(
        WaveTick(
            queue="1v1",
            region="eu",
            wave_id=str(wave),
            sequence=wave,
            tick_at_ms=tick_at_ms,
            config_fingerprint="f",
            interval_ms=10_000,
        )
    )


#: What ``--breakdown`` times inside the fold: (module, attribute, label). Times nest:
#: ``strategy`` includes ``duel_players``, ``optimal_pairs`` and ``placement``.
TIMED = (
    ("matcher.queue.state", "RegionState.snapshot", "snapshot"),
    ("matcher.queue.fold", "RegionQueue.snapshot", "snapshot"),  # older trees' name
    ("matcher.queue.wave", "run_strategy", "strategy"),
    ("matcher.queue.fold", "run_wave", "strategy"),  # older trees' name
    ("matcher.duel.strategies", "duel_players", "duel_players"),
    ("matcher.duel.strategies", "optimal_pairs", "optimal_pairs"),
    ("matcher.duel.strategies", "build_result", "placement"),
    ("matcher.duel.strategies", "duel_limits", "rule_limits"),
    ("matcher.queue.wave", "result_problems", "checker"),  # the strategy's checker
    ("matcher.queue.wave", "wave_rule_problems", "rules_checker"),
    ("matcher.queue.fold", "result_problems", "checker"),  # older trees' names
    ("matcher.queue.fold", "wave_rule_problems", "rules_checker"),
    ("matcher.queue.fold", "wave_result_problems", "checker"),  # before issue 24
    ("matcher.queue.state", "RegionState.remove_matched", "removal"),
    ("matcher.queue.departures", "remove_matched", "removal"),  # older trees' name
    ("matcher.queue.fold", "RegionQueue._remove_matched", "removal"),  # older trees' name
    ("matcher.queue.wave", "summarise", "summary"),
    ("matcher.queue.fold", "summarise", "summary"),
    ("matcher.queue.fold", "_summarise", "summary"),  # older trees' name: any tree is timed
    ("matcher.queue.fold", "WaitEstimator.observe_wave", "estimator"),  # older trees' name
    ("matcher.queue.fold", "WaitEstimator.observe_bands", "estimator"),
    ("matcher.queue.state", "WaitEstimator.observe_bands", "estimator"),
    ("matcher.queue.statuses", "wave_statuses", "statuses"),
    ("matcher.queue.fold", "RegionQueue._statuses", "statuses"),  # older trees' name
)
BREAKDOWN: dict[str, float] = {}


def time_parts() -> None:
    """Wrap each of TIMED to add its CPU time to BREAKDOWN (one call per wave each)."""
    import importlib

    for module_name, path, label in TIMED:
        try:
            owner: Any = importlib.import_module(module_name)
        except ModuleNotFoundError:  # a module of another tree's layout: nothing to time
            continue
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part, None)
        if hasattr(owner, name):  # another tree names some parts differently
            setattr(owner, name, _timed(getattr(owner, name), label))


def _timed(function: Callable[..., Any], label: str) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            BREAKDOWN[label] = BREAKDOWN.get(label, 0.0) + (time.process_time() - began) * 1e3

    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--strategy", default="optimal")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-status", action="store_true")
    parser.add_argument("--publish", action="store_true", help="send to a broker too")
    parser.add_argument("--broker", choices=("tansu", "kafka"), default="tansu")
    parser.add_argument(
        "--joins-after",
        type=int,
        default=0,
        help="with --publish: joins folded after the wave, before the flush (as in a batch)",
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="also time the fold's parts (CPU ms)"
    )
    parser.add_argument(
        "--rules", action="store_true", help="a mirror ladder with skill, latency, rematch rules"
    )
    parser.add_argument(
        "--hosted", action="store_true", help="with --rules: latencies choose every server"
    )
    parser.add_argument(
        "--ready-check-ms", type=int, default=0, help="propose the matches (a ready check)"
    )
    add_allocator_argument(parser)
    args = parser.parse_args()
    print(apply_allocator(args), machine_line(), sep="\n", file=sys.stderr)
    if args.breakdown:
        time_parts()
    if args.publish:
        return with_broker(args)
    runs = [
        one_run(
            args.players,
            args.strategy,
            not args.no_status,
            seed,
            rules=args.rules,
            ready_check_ms=args.ready_check_ms,
            hosted=args.hosted,
        )
        for seed in range(args.repeat)
    ]
    summary = {name: round(statistics.median(r[name] for r in runs), 1) for name in runs[0]}
    print(
        json.dumps(
            {
                "players": args.players,
                "strategy": args.strategy,
                "status": not args.no_status,
                "rules": args.rules,
                "hosted": args.hosted,
                "median_of": args.repeat,
                **summary,
            }
        )
    )
    return 0


def with_broker(args: argparse.Namespace) -> int:
    from aiokafka import AIOKafkaProducer

    from streams.topics import ensure_topics
    from streams.worker.direct import output_producer
    from streams.worker.publisher import Publisher
    from tests.kafka.broker import running_broker

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    with (
        tempfile.TemporaryDirectory(prefix="bench-wave-close-") as work,
        running_broker(args.broker, Path(work)) as broker,
    ):
        text = CONFIG.format(strategy=args.strategy, status="true", ready=args.ready_check_ms)
        settings = settings_from(text, broker_url=broker.url)
        loop.run_until_complete(ensure_topics(settings))

        # The worker's own producer (idempotent on Apache Kafka).
        async def started() -> AIOKafkaProducer:
            producer = output_producer(settings)
            await producer.start()
            return producer

        producer = loop.run_until_complete(started())
        publisher = Publisher(producer, lambda topic: settings.partitions)

        def hand(outputs: list[tuple[str, bytes, bytes]]) -> None:
            loop.run_until_complete(publisher.publish(outputs))

        def flush() -> None:
            loop.run_until_complete(producer.flush())

        send = Send(hand, flush)

        try:
            runs = [
                one_run(
                    args.players, args.strategy, not args.no_status, seed, send, args.joins_after
                )
                for seed in range(args.repeat)
            ]
        finally:
            loop.run_until_complete(producer.stop())
    summary = {name: round(statistics.median(r[name] for r in runs), 1) for name in runs[0]}
    print(
        json.dumps(
            {
                "players": args.players,
                "strategy": args.strategy,
                "publish": True,
                "broker": args.broker,
                "median_of": args.repeat,
                **summary,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
