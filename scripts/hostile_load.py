"""Hostile messages against `wavematch up`: does any message stop a worker or a region?

Starts `wavematch up` (embedded broker, one worker), publishes HOSTILE hostile queue
messages interleaved with VALID valid joins through librdkafka, then reports: worker exits,
the share of rejected records with exactly one DeadLetter (the rejections re-derived from
the log with the worker's own fold), valid joins lost (no TicketStatus), whether every
region closed a wave after the load, and the worker's RSS before and after.

    .venv/bin/python scripts/hostile_load.py [--hostile 10000] [--valid 2000] [--seed 23]
        [--keep-logs]

The service's logs and configuration are removed at the end, kept with ``--keep-logs`` or
when the run breaks off (their folder is printed).

Figures: docs/benchmarks/hostile.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from confluent_kafka import Producer  # noqa: E402
from machine import machine_line  # noqa: E402

from schemas.codec import decode  # noqa: E402
from schemas.models import DeadLetter, WaveClosed  # noqa: E402
from schemas.topics import DEADLETTER, QUEUE, STATUS, WAVES, queue_key  # noqa: E402
from streams.audit.rederive import rederive  # noqa: E402
from streams.audit.topics import committed_offsets, read_topics  # noqa: E402
from streams.settings import load_settings  # noqa: E402
from streams.worker.folding import Folder  # noqa: E402
from tests.fuzz.worker_path import seeds  # noqa: E402

REGIONS = ("eu", "na", "asia")
CONFIG = """
partitions = 4
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "na", "asia"]
wave_interval_ms = 1000
"""
DAY_MS = 86_400_000

#: (key, value, headers, partition or None) as handed to librdkafka.
Message = tuple[bytes | None, bytes, list[tuple[str, bytes]] | None, int | None]


def now_ms() -> int:
    return int(time.time() * 1000)


def join(ticket: str, region: str, rng: random.Random, at_ms: int, player: str = "") -> bytes:
    race = rng.choice(("bw", "sc2"))
    body = {
        "type": "TicketJoined",
        "ticket_id": ticket,
        "queue": "1v1",
        "region": region,
        "joined_at_ms": at_ms,
        "players": [
            {"player_id": player or f"p-{ticket}", "ratings": {race: rng.randint(800, 2200)}}
        ],
    }
    return json.dumps(body, ensure_ascii=False).encode()


def tick(region: str, at_ms: int, sequence: int) -> bytes:
    body = {
        "type": "WaveTick",
        "queue": "1v1",
        "region": region,
        "wave_id": str(at_ms),
        "sequence": sequence,
        "tick_at_ms": at_ms,
        "config_fingerprint": "forged",
        "interval_ms": 1000,
    }
    return json.dumps(body).encode()


def mutated(rng: random.Random, corpus: list[bytes]) -> bytes:
    data = bytearray(rng.choice(corpus)[1:])
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(data) + 1)
        data[at : at + rng.randint(0, 4)] = rng.randbytes(rng.randint(0, 4))
    return bytes(data)


def hostile(number: int, rng: random.Random, corpus: list[bytes]) -> Message:
    """One hostile message; the kinds follow one another in turn."""
    region = REGIONS[number % len(REGIONS)]
    key = queue_key("1v1", region)
    now = now_ms()
    kinds = [
        lambda: (key, mutated(rng, corpus), None, None),
        lambda: (rng.choice([key, None, rng.randbytes(8)]), mutated(rng, corpus), None, None),
        lambda: (key, b"[" * (depth := rng.randint(500, 30_000)) + b"]" * depth, None, None),
        lambda: (
            key,
            b'{"type": "TicketJoined", "players": ' + b"[" * 5_000 + b"]" * 5_000 + b"}",
            None,
            None,
        ),
        lambda: (b"k" * 100_000, join(f"h{number}", region, rng, now), None, None),
        lambda: (None, rng.randbytes(rng.randint(0, 64)), None, None),
        lambda: (key, join(f"h{number}\x85", region, rng, now), None, None),
        lambda: (key, join(f"h{number}", region, rng, now, player="p\x9f"), None, None),
        lambda: (key, tick(region, now, 2**63 - 1), None, None),
        lambda: (key, tick(region, 7_258_118_399_999, 7_258_118_399_999), None, None),
        lambda: (key, tick(region, now - DAY_MS, now - DAY_MS), None, None),
        lambda: (key, join(f"h{number}", region, rng, now + DAY_MS), None, None),
        lambda: (
            key,
            b"\xc3\x01" + rng.randbytes(200),
            [("h" * 200, rng.randbytes(20_000))] * 5,
            None,
        ),
        lambda: (key, rng.randbytes(100_000), None, None),
        lambda: (key, join(f"h{number}", region, rng, now), None, (_home(key) + 1) % 4),
    ]
    return kinds[number % len(kinds)]()


def _home(key: bytes) -> int:
    from schemas.topics import murmur2_partition

    return murmur2_partition(key, 4)


def rss_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in KiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hostile", type=int, default=10_000)
    parser.add_argument("--valid", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument(
        "--keep-logs", action="store_true", help="keep the service's logs and configuration"
    )
    args = parser.parse_args()
    print(machine_line())
    work = Path(tempfile.mkdtemp(prefix="wavematch-hostile-"))
    config = work / "wavematch.toml"
    config.write_text(CONFIG)
    env = {**os.environ, "WAVEMATCH_STATE_DIR": str(work)}
    up = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streams.cli",
            "up",
            "--config",
            str(config),
            "--log-dir",
            str(work),
        ],
        cwd=ROOT,
        env=env,
        stdout=(work / "up.out").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    failed = True
    try:
        code = run(args, up, work, config)
        failed = False
        return code
    finally:
        up.terminate()
        try:
            up.wait(30)
        except subprocess.TimeoutExpired:
            up.kill()
        # Kept when asked, and when the run broke off: they are what says why.
        if args.keep_logs or failed:
            print(f"logs: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, up: subprocess.Popen[bytes], work: Path, config: Path) -> int:
    state_file = work / "up.json"
    deadline = time.monotonic() + 120
    while not state_file.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    state = json.loads(state_file.read_text())
    bootstrap = state["broker_url"].removeprefix("tansu://")
    settings = load_settings(config, broker_url=state["broker_url"])
    time.sleep(10)  # the worker joins its group and loads its partitions
    workers = [pid for pid in children(up.pid) if pid != state["broker_pid"]]
    rss_before = {pid: rss_kb(pid) for pid in workers}

    rng = random.Random(args.seed)
    corpus = seeds()
    messages: list[tuple[str, Message]] = [
        ("hostile", hostile(n, rng, corpus)) for n in range(args.hostile)
    ]
    valid_ids = [f"v-{n}" for n in range(args.valid)]
    messages += [
        (
            "valid",
            (queue_key("1v1", REGIONS[n % 3]), join(t, REGIONS[n % 3], rng, now_ms()), None, None),
        )
        for n, t in enumerate(valid_ids)
    ]
    rng.shuffle(messages)
    producer = Producer(
        {"bootstrap.servers": bootstrap, "partitioner": "murmur2_random", "linger.ms": 5}
    )
    started = time.monotonic()
    for _, (key, value, headers, partition) in messages:
        extra = {"partition": partition} if partition is not None else {}
        producer.produce(QUEUE.name, value=value, key=key, headers=headers, **extra)
        producer.poll(0)
    assert producer.flush(60) == 0, "not every message was delivered"
    load_end_ms = now_ms()

    # Processed: the group's committed offsets reach the end of the queue topic.
    ends: dict[int, int] = {}
    while time.monotonic() - started < 300:
        queue = asyncio.run(read_topics(bootstrap, [QUEUE.name], idle_s=1.0))
        ends = {}
        for record in queue:
            ends[record.partition] = max(ends.get(record.partition, 0), record.offset + 1)
        done = asyncio.run(committed_offsets(bootstrap, settings.queue_group, QUEUE.name))
        if all(done.get(p, 0) >= end for p, end in ends.items()):
            break
        time.sleep(2)
    processed_s = time.monotonic() - started
    time.sleep(4)  # a few more waves after the load
    alive = up.poll() is None and all(Path(f"/proc/{pid}").exists() for pid in workers)
    rss_after = {pid: rss_kb(pid) for pid in workers if Path(f"/proc/{pid}").exists()}
    report(settings, bootstrap, queue, valid_ids, load_end_ms, args, processed_s)
    print(f"worker exits          {0 if alive else 'at least 1'} (up alive: {up.poll() is None})")
    for pid, (rss, _) in rss_before.items():
        after, peak = rss_after.get(pid, (0, 0))
        print(
            f"worker {pid} RSS      {rss / 1024:.0f} MiB before, {after / 1024:.0f} MiB after "
            f"(+{(after - rss) / 1024:.0f} MiB), peak {peak / 1024:.0f} MiB"
        )
    return 0 if alive else 1


def report(settings, bootstrap, queue, valid_ids, load_end_ms, args, processed_s) -> None:  # type: ignore[no-untyped-def]
    outputs = asyncio.run(read_topics(bootstrap, [STATUS.name, DEADLETTER.name, WAVES.name]))
    rejected = {
        (item.source.partition, item.source.offset): item.folded.rejection.code
        for item in rederive(Folder.from_settings(settings), queue)
        if item.folded.rejection is not None
    }
    letters: Counter[tuple[int, int]] = Counter()
    for record in outputs:
        if record.topic == DEADLETTER.name:
            letter = decode(record.value or b"")
            assert isinstance(letter, DeadLetter)
            letters[(letter.partition, letter.offset)] += 1
    exactly_one = sum(1 for at in rejected if letters[at] == 1)
    stray = sum(count for at, count in letters.items() if at not in rejected)
    statuses = {decode(r.value or b"").ticket_id for r in outputs if r.topic == STATUS.name}
    lost = [t for t in valid_ids if t not in statuses]
    later_waves = {
        (wave.queue, wave.region)
        for r in outputs
        if r.topic == WAVES.name
        and isinstance(wave := decode(r.value or b""), WaveClosed)
        and wave.closed_at_ms > load_end_ms
    }
    codes = Counter(rejected.values())
    print(
        f"messages              {args.hostile} hostile + {args.valid} valid joins, seed {args.seed}"
    )
    print(f"processed in          {processed_s:.1f} s (publish to last commit)")
    print(f"queue records         {len(queue)}; rejected by the fold {len(rejected)}")
    print(
        f"exactly one letter    {exactly_one} of {len(rejected)} "
        f"({100 * exactly_one / max(1, len(rejected)):.2f} %); letters for applied records: {stray}"
    )
    print(f"rejection codes       {dict(codes.most_common())}")
    print(f"valid joins lost      {len(lost)} of {len(valid_ids)}")
    closing = sorted(r for _, r in later_waves)
    print(f"regions closing waves after the load: {closing} of {list(REGIONS)}")


if __name__ == "__main__":
    raise SystemExit(main())
