"""Memory and time of a role queue's waves that seat nobody, through the worker's fold.

    .venv/bin/python scripts/bench_role_memory.py [--ticks 30] [--players 23]

examples/rules-5v5-roles.toml's queue, one region: ``--players`` solo joins offering
tank or dps (no healer: no group can fill its roles), then one WaveTick every 10 s of
wave time, each record folded by ``Folder`` inside ``paused_gc(age_after=0)`` as the
worker folds a batch. The players stay queued, as an operator saw in production. Prints
the process's resident memory and the CPU per tick; a worker that keeps what its waves
leave grows with every tick. No broker.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from schemas.topics import murmur2_partition, queue_key  # noqa: E402
from streams.settings import load_settings  # noqa: E402
from streams.worker.folding import Folder, paused_gc  # noqa: E402

QUEUE, REGION = "5v5-ranked", "eu"
START_MS = 1_767_225_600_000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=30)
    parser.add_argument("--players", type=int, default=23)
    args = parser.parse_args()
    settings = load_settings(ROOT / "examples" / "rules-5v5-roles.toml")
    folder = Folder.from_settings(settings)
    key = queue_key(QUEUE, REGION)
    state = folder.new_state(murmur2_partition(key, settings.partitions))
    rng = random.Random(1)
    offset = 0
    for number in range(args.players):
        offered = rng.sample(("tank", "dps"), rng.randint(1, 2))
        player = {
            "player_id": f"p{number}",
            "ratings": {role: rng.randint(1400, 1600) for role in offered},
            "latency_ms": {REGION: rng.randint(20, 60)},
            "attributes": {"language": rng.choice(("en", "de")), "platform": "pc"},
        }
        join = {
            "type": "TicketJoined",
            "ticket_id": f"t{number}",
            "queue": QUEUE,
            "region": REGION,
            "joined_at_ms": START_MS + number * 100,
            "players": [player],
        }
        with paused_gc(age_after=0):
            folded = folder.fold(state, key, json.dumps(join).encode(), offset)
        assert folded is not None and folded.rejection is None, folded
        offset += 1
    start, spent = rss_mb(), 0.0
    for tick_number in range(args.ticks):
        at = START_MS + 10_000 * (tick_number + 1)
        tick = {
            "type": "WaveTick",
            "queue": QUEUE,
            "region": REGION,
            "wave_id": f"w{tick_number}",
            "sequence": at,
            "tick_at_ms": at,
            "config_fingerprint": "f",
            "interval_ms": 10_000,
        }
        started = time.process_time()
        with paused_gc(age_after=0):
            folded = folder.fold(state, key, json.dumps(tick).encode(), offset)
        spent += time.process_time() - started
        offset += 1
        assert folded is not None and folded.rejection is None, folded
    grown = rss_mb() - start
    print(
        f"{args.ticks} ticks of {args.players} unseatable players: resident memory "
        f"+{grown:.1f} MB, {spent / args.ticks * 1e3:.1f} ms CPU a tick, "
        f"{state.tickets()} tickets still queued"
    )
    return 0


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 1e6


if __name__ == "__main__":
    raise SystemExit(main())
