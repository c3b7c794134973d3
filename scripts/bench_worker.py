"""Load, soak, failover and broker-restart benchmark of the worker, on Tansu or Apache Kafka.

    .venv/bin/python scripts/bench_worker.py backlog  --events 60000 --workers 1
    .venv/bin/python scripts/bench_worker.py steady   --rate 20000 --seconds 30
    .venv/bin/python scripts/bench_worker.py steady   --rate 2000 --seconds 60 --workers 2
    .venv/bin/python scripts/bench_worker.py failover --rate 500 --seconds 60 --workers 2
    .venv/bin/python scripts/bench_worker.py restart  --rate 500 --seconds 60 --broker kafka

backlog:  publish N joins first, then start the workers; events/s until all are folded.
          With --raw, the same backlog is also read by two bare aiokafka consumers on the
          same broker, before the workers and again after them (the worker's fetch
          settings, nothing done with the records): a getmany batch loop and a per-record
          `async for` loop; the worker's rate is given as a ratio of each (issue 31).
steady:   publish at a fixed rate; records folded per second while publishing (from the
          workers' applied offsets), consumer lag (input end offset - applied offset, from
          the workers' /queues) sampled every second, the time to fold what is left once
          publishing stops, and wave latency: the WaveClosed record's broker timestamp
          minus the tick's scheduled time (p50/p99).
failover: steady, and SIGKILL one worker a third of the way in: time until the
          survivors own every partition, and the longest gap between two closed waves
          of a region.
restart:  steady, and SIGKILL the broker a third of the way in, restarted on its data
          directory after --down-s (Apache Kafka only: the embedded broker is memory-only):
          broker_start_s (the restart until the broker answers metadata), recovery_s (from
          then until every region closed a wave again), and the longest gap between two
          closed waves of a region (the outage included).
--workload: 1v1 (default: the optimal 1v1 queue in 8 regions, one rating each) or roles
          (examples/rules-5v5-roles.toml's role queue and rules with 1-s waves in eu and
          na, scripts/bench_role_catchup.py's players: dear waves); failover then kills the
          worker owning the role queue's eu partition.
--broker: tansu (the embedded broker, default) or kafka (Apache Kafka from the jars of
          tests/kafka/install.sh), both on loopback.
--pin:    this script and the broker on the first CPU, the workers (and the raw loops) on
          the others. Unpinned, a worker and the broker share both cores, and a worker's
          CPU per event varies between runs of one tree far more than pinned
          (docs/benchmarks/rebuild.md, "On a broker, pinned"). A/B runs of two trees
          should pin.
Results print as one JSON object (docs/benchmarks/worker.md records the runs). The broker's
and the workers' logs are removed at the end; kept with ``--keep-logs`` or when a run
breaks off, their folder printed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aiokafka import AIOKafkaConsumer, TopicPartition  # noqa: E402
from confluent_kafka import Producer  # noqa: E402

from schemas.codec import decode  # noqa: E402
from schemas.topics import murmur2_partition, queue_key  # noqa: E402
from streams.embedded.broker import free_port  # noqa: E402
from streams.processes import stop_process  # noqa: E402
from streams.settings import load_settings  # noqa: E402
from streams.topics import ensure_topics  # noqa: E402
from tests.kafka.broker import running_broker  # noqa: E402

REGIONS = ("eu", "na", "asia", "sa", "oce", "me", "af", "cn")
CONFIG = """
partitions = 8
publish_status = {status}
session_timeout_ms = {session}
heartbeat_interval_ms = {heartbeat}
{claims}"""
QUEUE_1V1 = """ticket_ttl_ms = 60000
[[queues]]
name = "1v1"
strategy = "optimal"
regions = {regions}
wave_interval_ms = {interval}
{ready}"""


class Worker:
    def __init__(
        self,
        broker: str,
        config: Path,
        log: Path,
        tree: Path = ROOT,
        cpus: set[int] | None = None,
    ) -> None:
        self.port = free_port()
        self.last_cpu_s = 0.0
        python = sys.executable if tree == ROOT else str(tree / ".venv" / "bin" / "python")
        pin = None if cpus is None else lambda: os.sched_setaffinity(0, cpus)
        self.process = subprocess.Popen(
            [
                python,
                "-m",
                "streams.cli",
                "worker",
                "--broker",
                broker,
                "--config",
                str(config),
                "--web-port",
                str(self.port),
            ],
            cwd=tree,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=pin,
        )

    def get(self, path: str) -> dict | None:  # type: ignore[type-arg]
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=2) as r:
                return json.load(r)  # type: ignore[no-any-return]
        except OSError:
            return None

    def partitions(self) -> set[int]:
        health = self.get("/health")
        return set(health["partitions"]) if health else set()

    def applied(self) -> dict[int, int]:
        queues = self.get("/queues")
        return (
            {row["partition"]: row["applied_offset"] for row in queues["queues"]} if queues else {}
        )

    def cpu_s(self) -> float:
        """CPU seconds the worker process used so far (Linux /proc; 0 elsewhere); once the
        process is gone (a killed worker, reaped), the last figure read."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return self.last_cpu_s
        self.last_cpu_s = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return self.last_cpu_s

    def stop(self, sig: int = signal.SIGTERM) -> None:
        stop_process(self.process, 30.0, sig)


def join_value(
    number: int, rng: random.Random, joined_at_ms: int | None = None
) -> tuple[bytes, bytes]:
    region = REGIONS[number % len(REGIONS)]
    side = rng.random()
    mmr = int(rng.gauss(1500, 250))
    ratings = (
        {"bw": max(mmr, 0)}
        if side < 0.35
        else ({"sc2": max(mmr, 0)} if side < 0.7 else {"bw": max(mmr, 0), "sc2": max(mmr + 50, 0)})
    )
    body = {
        "type": "TicketJoined",
        "ticket_id": f"b{number}",
        "queue": "1v1",
        "region": region,
        "joined_at_ms": joined_at_ms or int(time.time() * 1000),
        "players": [{"player_id": f"p{number}", "ratings": ratings}],
    }
    return queue_key("1v1", region), json.dumps(body).encode()


def role_queue(interval_ms: int) -> str:
    """examples/rules-5v5-roles.toml's queue and rules, waves every ``interval_ms``."""
    example = (ROOT / "examples" / "rules-5v5-roles.toml").read_text()
    return example.replace("wave_interval_ms = 10000", f"wave_interval_ms = {interval_ms}")


def role_joins(rate: float, seconds: float, start_ms: int) -> list[tuple[bytes, bytes]]:
    """The role workload's joins (scripts/bench_role_catchup.py), stamped from ``start_ms``."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_role_catchup import joins

    return [(key, value) for _, key, value in joins(rate, seconds, 2, start_ms)]


def victim_of(workers: list[Worker], workload: str) -> Worker:
    """The worker a failover kills: the last one, or under the role workload the one owning
    the role queue's eu partition (the last one if none reports it)."""
    if workload == "roles":
        partition = murmur2_partition(queue_key("5v5-ranked", "eu"), 8)
        for worker in workers:
            if partition in worker.partitions():
                return worker
    return workers[-1]


def producer(bootstrap: str) -> Producer:
    return Producer(
        {
            "bootstrap.servers": bootstrap,
            "partitioner": "murmur2_random",
            "linger.ms": 5,
            "queue.buffering.max.messages": 1_000_000,
        }
    )


def joins_at_rate(rate: float, seconds: float, start_ms: int) -> list[tuple[bytes, bytes]]:
    """Every join of a steady run, built before it starts (each stamped with its due time):
    building JSON in the publishing loop would take CPU from the worker under test."""
    rng = random.Random(1)
    total = int(rate * seconds)
    return [join_value(n, rng, start_ms + int(n * 1000 / rate)) for n in range(total)]


def publish_at_rate(
    bootstrap: str, joins: list[tuple[bytes, bytes]], rate: float, stop: threading.Event
) -> int:
    out, sent = producer(bootstrap), 0
    start = time.monotonic()
    while not stop.is_set() and sent < len(joins):
        due = min(len(joins), int((time.monotonic() - start) * rate))
        while sent < due:
            key, value = joins[sent]
            out.produce("wavematch.queue.v1", value, key)
            sent += 1
        out.poll(0)
        time.sleep(0.01)
    out.flush(30)
    return sent


async def end_offsets(bootstrap: str, topic: str) -> dict[int, int]:
    """Per partition, its end offset: the high-watermark a fetch response reports (the
    embedded broker's ListOffsets(LATEST) answers short of the end)."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        max_partition_fetch_bytes=1024,  # the high-watermark is wanted, not the records
    )
    await consumer.start()
    try:
        await consumer._client.force_metadata_update()
        tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        consumer.assign(tps)
        for tp in tps:
            consumer.seek(tp, 0)
        deadline = time.monotonic() + 30
        while any(consumer.highwater(tp) is None for tp in tps) and time.monotonic() < deadline:
            await consumer.getmany(timeout_ms=200, max_records=len(tps))
        ends = {tp.partition: consumer.highwater(tp) for tp in tps}
        missing = sorted(p for p, end in ends.items() if end is None)
        if missing:  # an end taken as 0 would measure a backlog that was never read
            raise SystemExit(f"{topic}: no high-watermark in 30 s for partitions {missing}")
        return {p: end for p, end in ends.items() if end is not None}
    finally:
        await consumer.stop()


def raw_rates(
    bootstrap: str, ends: dict[int, int], embedded: bool, cpus: set[int] | None = None
) -> dict[str, float]:
    """Records a second of the two bare loops over the queue topic's backlog, on ``cpus``
    when given (the workers' CPUs under ``--pin``)."""
    if cpus is None:
        return _raw_rates(bootstrap, ends, embedded)
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        return _raw_rates(bootstrap, ends, embedded)
    finally:
        os.sched_setaffinity(0, before)


def _raw_rates(bootstrap: str, ends: dict[int, int], embedded: bool) -> dict[str, float]:
    return {
        loop: asyncio.run(raw_rate(bootstrap, ends, loop == "per_record", embedded))
        for loop in ("batch", "per_record")
    }


async def raw_rate(bootstrap: str, ends: dict[int, int], per_record: bool, embedded: bool) -> float:
    """Records a second a bare aiokafka consumer reads the queue topic's backlog at, with
    the worker's fetch settings (streams/worker/direct.py) and nothing done with them: a
    ``getmany`` loop of the worker's batch size, or one ``async for`` record at a time."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        fetch_max_wait_ms=100 if embedded else 500,
        max_partition_fetch_bytes=4 * 1024 * 1024,
    )
    await consumer.start()
    try:
        tps = [TopicPartition("wavematch.queue.v1", p) for p in sorted(ends)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        total, seen = sum(ends.values()), 0
        started = time.monotonic()
        if per_record:
            async for _ in consumer:
                seen += 1
                if seen >= total:
                    break
        else:
            while seen < total:
                batches = await consumer.getmany(timeout_ms=500, max_records=2_000)
                seen += sum(len(records) for records in batches.values())
        return seen / (time.monotonic() - started)
    finally:
        await consumer.stop()


async def wave_records(bootstrap: str) -> list[tuple[str, int, int]]:
    """(region, tick time, WaveClosed broker timestamp) of every closed wave."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=None)
    await consumer.start()
    try:
        await consumer._client.force_metadata_update()
        topic = "wavematch.waves.v1"
        tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        consumer.assign(tps)
        await consumer.seek_to_end(*tps)
        ends = {tp: await consumer.position(tp) for tp in tps}
        await consumer.seek_to_beginning(*tps)
        out = []
        while any([await consumer.position(tp) < ends[tp] for tp in tps]):
            for records in (await consumer.getmany(timeout_ms=300)).values():
                for record in records:
                    wave = decode(record.value)
                    out.append(
                        (wave.region, int(wave.wave_id), record.timestamp)
                    )  # wave id = tick ms
        return out
    finally:
        await consumer.stop()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("backlog", "steady", "failover", "restart"))
    parser.add_argument("--broker", choices=("tansu", "kafka"), default="tansu")
    parser.add_argument("--down-s", type=float, default=5.0, help="restart: broker down this long")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--events", type=int, default=60_000)
    parser.add_argument("--rate", type=float, default=1_000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--no-status", action="store_true", help="publish_status = false")
    parser.add_argument("--workload", choices=("1v1", "roles"), default="1v1")
    parser.add_argument(
        "--keep-logs", action="store_true", help="keep the broker's and workers' logs"
    )
    parser.add_argument(
        "--raw", action="store_true", help="backlog: also time bare aiokafka loops (ratios)"
    )
    parser.add_argument(
        "--wave-interval-ms",
        type=int,
        default=1000,
        help="3600000 measures folding alone (no wave closes)",
    )
    parser.add_argument(
        "--session-timeout-ms",
        type=int,
        default=6_000,
        help="consumer session timeout (heartbeat: a tenth of it)",
    )
    parser.add_argument(
        "--ready-check-ms",
        type=int,
        default=0,
        help="a ready check on the queue (nobody answers: every proposal times out)",
    )
    parser.add_argument(
        "--one-ticket-per-player", action="store_true", help="joins admitted by claims"
    )
    parser.add_argument(
        "--worker-tree",
        help="run the workers from this checkout (its .venv), e.g. a `git worktree` of an "
        "older commit, against the same broker, backlog and raw loops",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="this script and the broker on the first CPU, the workers on the others "
        "(Linux): the worker's CPU per event then varies far less between runs",
    )
    args = parser.parse_args()
    worker_cpus = None
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            parser.error("--pin needs two CPUs or more")
        os.sched_setaffinity(0, {cpus[0]})  # the broker, started below, inherits it
        worker_cpus = set(cpus[1:])
    tree = Path(args.worker_tree).resolve() if args.worker_tree else ROOT
    if not (tree / ".venv" / "bin" / "python").exists() and tree != ROOT:
        parser.error(f"--worker-tree: {tree} has no .venv/bin/python")
    if args.mode == "restart" and args.broker != "kafka":
        parser.error("restart needs --broker kafka: the embedded broker loses every topic")
    # A `timeout` or Ctrl-C must still stop the workers and the broker (finally blocks).
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(130))
    work = Path(tempfile.mkdtemp(prefix="bench-worker-"))
    failed = True
    try:
        config = work / "wavematch.toml"
        # Written only when set, so that a --worker-tree from before these settings reads
        # the same configuration.
        ready = f"ready_check_ms = {args.ready_check_ms}\n" if args.ready_check_ms else ""
        queues = (
            role_queue(args.wave_interval_ms)
            if args.workload == "roles"
            else QUEUE_1V1.format(
                regions=list(REGIONS), interval=args.wave_interval_ms, ready=ready
            )
        )
        config.write_text(
            CONFIG.format(
                status=str(not args.no_status).lower(),
                session=args.session_timeout_ms,
                heartbeat=args.session_timeout_ms // 10,
                claims="one_ticket_per_player = true\n" if args.one_ticket_per_player else "",
            )
            + queues
        )
        result: dict[str, object] = {
            "mode": args.mode,
            "workload": args.workload,
            "broker": args.broker,
            "workers": args.workers,
            "wave_interval_ms": args.wave_interval_ms,
            "session_timeout_ms": args.session_timeout_ms,
            "ready_check_ms": args.ready_check_ms,
            "one_ticket_per_player": args.one_ticket_per_player,
            "worker_tree": str(tree),
            "pinned": args.pin,
        }
        with running_broker(args.broker, work) as broker:
            settings = load_settings(config, broker_url=broker.url)
            asyncio.run(ensure_topics(settings))
            workers: list[Worker] = []
            try:
                if args.mode == "backlog":
                    out, rng = producer(broker.bootstrap), random.Random(1)
                    for number in range(args.events):
                        key, value = join_value(number, rng)
                        out.produce("wavematch.queue.v1", value, key)
                        if number % 10_000 == 0:
                            out.poll(0)
                    out.flush(60)
                    ends = asyncio.run(end_offsets(broker.bootstrap, "wavematch.queue.v1"))
                    raw = (
                        raw_rates(broker.bootstrap, ends, args.broker == "tansu", worker_cpus)
                        if args.raw
                        else {}
                    )
                    workers = [
                        Worker(broker.url, config, work / f"w{n}.log", tree, worker_cpus)
                        for n in range(args.workers)
                    ]
                    _wait(
                        lambda: set().union(*(w.partitions() for w in workers)) == set(range(8)),
                        120,
                    )
                    start = time.monotonic()
                    cpu_before = sum(w.cpu_s() for w in workers)
                    # The workers start folding before they report their partitions: what they
                    # folded by then is left out of both the CPU and the events counted (and the
                    # ticks they append after the backlog are not part of it).
                    folded_before = folded_of(applied_by(workers), ends)
                    while time.monotonic() - start < 600 and not folded_to(
                        applied_by(workers), ends
                    ):
                        time.sleep(0.1)
                    elapsed = time.monotonic() - start
                    cpu = sum(w.cpu_s() for w in workers) - cpu_before
                    measured = sum(ends.values()) - folded_before
                    rate = measured / elapsed if measured else None
                    if rate is None:  # a small backlog can be folded before the report
                        print(
                            "backlog: the workers folded all of it before they reported their "
                            "partitions, so no rate was measured (give more --events)",
                            file=sys.stderr,
                        )
                    result.update(
                        events=args.events,
                        events_measured=measured,
                        seconds=round(elapsed, 2),
                        events_per_s=None if rate is None else round(rate),
                        # The workers' own CPU per event: what a machine's load cannot inflate
                        # much (all threads; includes the web views' polling by this script).
                        worker_cpu_us_per_event=(
                            None if rate is None else round(cpu / measured * 1e6, 1)
                        ),
                    )
                    if args.raw:
                        # After the workers too: the machine's load in the same minutes.
                        after = raw_rates(
                            broker.bootstrap, ends, args.broker == "tansu", worker_cpus
                        )
                        for loop in ("batch", "per_record"):
                            pair = [raw[loop], after[loop]]
                            result[f"raw_{loop}_per_s"] = [round(r) for r in pair]
                            result[f"ratio_to_raw_{loop}"] = (
                                None if rate is None else round(rate / statistics.mean(pair), 3)
                            )
                else:
                    workers = [
                        Worker(broker.url, config, work / f"w{n}.log", tree, worker_cpus)
                        for n in range(args.workers)
                    ]
                    _wait(
                        lambda: (
                            set().union(*(w.partitions() for w in workers)) == set(range(8))
                            and all(w.partitions() for w in workers)
                        ),
                        180,
                    )
                    stop = threading.Event()
                    sent: list[int] = []
                    lead_s = 2 + args.rate * args.seconds / 100_000  # building them takes a while
                    start_at = time.time() + lead_s
                    joins = (
                        role_joins(args.rate, args.seconds, int(start_at * 1000))
                        if args.workload == "roles"
                        else joins_at_rate(args.rate, args.seconds, int(start_at * 1000))
                    )
                    time.sleep(max(0.0, start_at - time.time()))
                    thread = threading.Thread(
                        target=lambda: sent.append(
                            publish_at_rate(broker.bootstrap, joins, args.rate, stop)
                        )
                    )
                    started = time.time()
                    cpu_before = sum(w.cpu_s() for w in workers)
                    thread.start()
                    lags, killed_at, takeover, restarted_at = [], None, None, None
                    folded: list[tuple[float, int]] = []  # (time, records applied so far)
                    # Per partition, the highest offset a worker reported applied: a killed
                    # worker's partitions keep theirs until the survivors report them again.
                    highest: dict[int, int] = {}
                    while thread.is_alive():
                        time.sleep(1)
                        ends = asyncio.run(end_offsets(broker.bootstrap, "wavematch.queue.v1"))
                        alive = [w for w in workers if w.process.poll() is None]
                        applied = applied_by(alive)
                        lags.append(sum(max(0, ends[p] - applied.get(p, -1) - 1) for p in ends))
                        for partition, offset in applied.items():
                            highest[partition] = max(offset, highest.get(partition, -1))
                        folded.append((time.monotonic(), sum(o + 1 for o in highest.values())))
                        if (
                            args.mode == "failover"
                            and killed_at is None
                            and time.time() - started > args.seconds / 3
                        ):
                            victim = victim_of(workers, args.workload)
                            victim.cpu_s()  # its CPU to the kill, counted once it is gone
                            victim.stop(signal.SIGKILL)
                            killed_at = time.time()
                        if (
                            args.mode == "restart"
                            and restarted_at is None
                            and time.time() - started > args.seconds / 3
                        ):
                            broker.stop(signal.SIGKILL)
                            time.sleep(args.down_s)
                            began = time.time()
                            broker.start()
                            restarted_at = time.time()
                            result["broker_start_s"] = round(restarted_at - began, 1)
                        if (
                            killed_at
                            and takeover is None
                            and set().union(*(w.partitions() for w in alive)) == set(range(8))
                        ):
                            takeover = time.time() - killed_at
                    thread.join()
                    published_s = time.time() - started
                    drained_at = time.monotonic()
                    while time.monotonic() - drained_at < 120:  # until the backlog is folded
                        ends = asyncio.run(end_offsets(broker.bootstrap, "wavematch.queue.v1"))
                        if folded_to(applied_by(workers), ends):
                            break
                        time.sleep(0.2)
                    drain_s = time.monotonic() - drained_at
                    cpu = sum(w.cpu_s() for w in workers) - cpu_before
                    time.sleep(3)
                    waves = asyncio.run(wave_records(broker.bootstrap))
                    latency = [ts - tick for _, tick, ts in waves if tick >= started * 1000]
                    gaps: dict[str, list[int]] = {}
                    for region, _, ts in sorted(waves, key=lambda w: w[2]):
                        gaps.setdefault(region, []).append(ts)
                    longest = max(
                        (b - a for stamps in gaps.values() for a, b in itertools.pairwise(stamps)),
                        default=0,
                    )
                    # Folded per second while publishing, from the workers' applied offsets
                    # (a worker's first sample can come before its state is loaded: skip it).
                    window = folded[1:] if len(folded) > 2 else folded
                    sustained = (
                        (window[-1][1] - window[0][1]) / (window[-1][0] - window[0][0])
                        if len(window) > 1
                        else None
                    )
                    result.update(
                        rate=args.rate,
                        seconds=args.seconds,
                        published=sent[0] if sent else 0,
                        published_per_s=round((sent[0] if sent else 0) / published_s),
                        folded_per_s=round(sustained) if sustained else None,
                        drain_after_publishing_s=round(drain_s, 1),
                        worker_cpu_us_per_event=(
                            round(cpu / sent[0] * 1e6, 1) if sent and sent[0] else None
                        ),
                        lag_events_median=statistics.median(lags) if lags else None,
                        lag_events_max=max(lags, default=0),
                        waves=len(latency),
                        wave_latency_ms_p50=percentile(latency, 0.5),
                        wave_latency_ms_p99=percentile(latency, 0.99),
                        longest_gap_between_waves_ms=longest,
                    )
                    if args.mode == "failover":
                        result.update(takeover_s=round(takeover, 1) if takeover else None)
                    if restarted_at is not None:
                        result.update(
                            down_s=args.down_s,
                            recovery_s=recovery_s(waves, restarted_at, set(REGIONS)),
                        )
            finally:
                for worker in workers:
                    worker.stop()
        failed = False
    finally:
        # Kept when asked, and when the run broke off: they are what says why.
        if args.keep_logs or failed:
            print(f"logs: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result))
    return 0


def recovery_s(
    waves: list[tuple[str, int, int]], restarted_at: float, regions: set[str]
) -> float | None:
    """From the broker's restart until the last region's first wave closed after it."""
    after: dict[str, int] = {}
    for region, _, ts in waves:
        if ts >= restarted_at * 1000 and (region not in after or ts < after[region]):
            after[region] = ts
    if set(after) != regions:
        return None
    return round(max(after.values()) / 1000 - restarted_at, 1)


def applied_by(workers: list[Worker]) -> dict[int, int]:
    """Per partition, the last offset the live workers report applied."""
    return {p: o for w in workers if w.process.poll() is None for p, o in w.applied().items()}


def folded_to(applied: dict[int, int], ends: dict[int, int]) -> bool:
    """Every partition applied up to its end offset."""
    return folded_of(applied, ends) == sum(ends.values())


def folded_of(applied: dict[int, int], ends: dict[int, int]) -> int:
    """The records before ``ends`` applied (not what the workers appended after them)."""
    return sum(min(end, applied.get(p, -1) + 1) for p, end in ends.items())


def _wait(predicate, timeout_s: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.3)
    raise SystemExit(f"not ready within {timeout_s} s")


if __name__ == "__main__":
    raise SystemExit(main())
