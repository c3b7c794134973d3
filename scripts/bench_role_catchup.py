"""CPU of re-folding a role queue's log, as a worker taking a partition over does.

    .venv/bin/python scripts/bench_role_catchup.py [--rate 75] [--seconds 40] [--seed 2]

examples/rules-5v5-roles.toml's queue and rules with 1-s waves (eu and na), its log
built in memory: ``--rate`` tickets a second for ``--seconds`` and a WaveTick a second
in each region, folded by ``Folder`` inside ``paused_gc`` as the worker folds a batch.
A takeover's catch-up re-folds the log since the partition's last snapshot this way,
waves included, before the region's next wave: a CPU time above the log's own length
means the survivor cannot catch up within the takeover promise (docs/benchmarks/
brokers.md). No broker.

Workload (an outside operator's, 2026-12-04): 80 % solo tickets, the rest parties of 2
or 3 in one region; each player offers tank, healer or dps (weights 2:2:6), 30 % a
second role, rated N(1500, 250) plus N(0, 60) per role; latency 15-75 ms to the home
region, 90-160 ms to the other; a language (half "en") and a platform, some allowing
crossplay.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from schemas import models as m  # noqa: E402
from schemas.codec import encode_json  # noqa: E402
from schemas.topics import murmur2_partition, queue_key  # noqa: E402
from streams.settings import load_settings  # noqa: E402
from streams.worker.folding import Folder, PartitionState, paused_gc  # noqa: E402

QUEUE, REGIONS = "5v5-ranked", ("eu", "na")
START_MS = 1_767_225_600_000
PARTITIONS = 8
LANGUAGES = ["en"] * 5 + ["de"] * 2 + ["fr", "es", "pl"]
PLATFORMS = ["pc"] * 3 + ["pc,crossplay"] * 3 + ["xbox,crossplay", "ps5,crossplay", "ps5", "xbox"]


def player(rng: random.Random, player_id: str, region: str) -> dict[str, object]:
    first = rng.choices(["tank", "healer", "dps"], weights=[2, 2, 6])[0]
    roles = [first]
    if rng.random() < 0.3:
        roles.append(rng.choice([r for r in ("tank", "healer", "dps") if r != first]))
    base = rng.gauss(1500, 250)
    other = next(r for r in REGIONS if r != region)
    return {
        "player_id": player_id,
        "ratings": {r: max(0, int(base + rng.gauss(0, 60))) for r in roles},
        "roles": roles,
        "latency_ms": {region: rng.randint(15, 75), other: rng.randint(90, 160)},
        "attributes": {"language": rng.choice(LANGUAGES), "platform": rng.choice(PLATFORMS)},
    }


def joins(
    rate: float, seconds: float, seed: int, start_ms: int = START_MS
) -> list[tuple[int, bytes, bytes]]:
    """(log time, key, value) of each join, in log order, the first at ``start_ms``."""
    rng, out, players = random.Random(seed), [], 0
    for number in range(int(rate * seconds)):
        size = 1 if rng.random() < 0.8 else rng.choice((2, 2, 3))
        region = rng.choice(REGIONS)
        party = [player(rng, f"p{players + k}", region) for k in range(size)]
        players += size
        at = start_ms + int(number * 1000 / rate)
        body: dict[str, object] = {
            "type": "TicketJoined",
            "ticket_id": f"t{number}",
            "queue": QUEUE,
            "region": region,
            "joined_at_ms": at,
            "players": party,
        }
        if size > 1:
            body["party_id"] = f"party{number}"
        out.append((at, queue_key(QUEUE, region), json.dumps(body).encode()))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=75.0)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    example = (ROOT / "examples" / "rules-5v5-roles.toml").read_text()
    one_second = example.replace("wave_interval_ms = 10000", "wave_interval_ms = 1000")
    with tempfile.TemporaryDirectory(prefix="bench-role-catchup-") as folder:
        config = Path(folder) / "wavematch.toml"
        config.write_text(f"partitions = {PARTITIONS}\n{one_second}")
        settings = load_settings(config)
    fold = Folder.from_settings(settings)
    states: dict[int, PartitionState] = {}
    offsets: dict[int, int] = {}

    def folded(key: bytes, value: bytes, at_ms: int) -> None:
        partition = murmur2_partition(key, PARTITIONS)
        state = states.setdefault(partition, fold.new_state(partition))
        offset = offsets.get(partition, 0)
        offsets[partition] = offset + 1
        with paused_gc(age_after=0):
            fold.fold(state, key, value, offset, at_ms)

    records = joins(args.rate, args.seconds, args.seed)
    fingerprint = settings.config_fingerprint()
    waves: list[float] = []
    next_tick, started = START_MS + 1000, time.process_time()
    for at, key, value in records:
        while at >= next_tick:
            for region in REGIONS:
                tick = m.WaveTick(
                    queue=QUEUE,
                    region=region,
                    wave_id=str(next_tick),
                    sequence=next_tick,
                    tick_at_ms=next_tick,
                    config_fingerprint=fingerprint,
                    interval_ms=1000,
                )
                wave_started = time.process_time()
                folded(queue_key(QUEUE, region), encode_json(tick), next_tick)
                waves.append((time.process_time() - wave_started) * 1e3)
            next_tick += 1000
        folded(key, value, at)
    cpu_s = time.process_time() - started
    log_s = (next_tick - 1000 - START_MS) / 1000
    print(
        f"log {log_s:.0f} s: {len(records)} joins, {len(waves)} waves; re-folded in "
        f"{cpu_s:.1f} s CPU ({cpu_s / max(log_s, 1e-9):.2f} s a second of log); a wave "
        f"median {statistics.median(waves or [0]):.0f} ms, max {max(waves or [0]):.0f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
