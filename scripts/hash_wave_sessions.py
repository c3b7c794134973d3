"""Hash the outputs of four multi-wave sessions, to prove a wave-close change byte-identical.

    .venv/bin/python scripts/hash_wave_sessions.py [TREE]   # one line per session

Each session folds seeded joins, leaves and ticks through the worker's Folder and encodes
every step with records_of: vetoes, parties, unfit tickets, several servers and a
fallback list, expiries, leaves, unicode ids, `optimal` and `ladder-v2.1`, one session
with 2,500 joins a wave. The hash covers every output record (WaveClosed without its
wall-clock duration) and each region's queue_to_record after every tick. Run it in a
copy of the tree from before a change (TREE; default: this checkout) and after it: the
lines must be equal.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from matcher.queue.records import queue_to_record  # noqa: E402
from schemas.codec import encode  # noqa: E402
from schemas.models import WaveTick  # noqa: E402
from schemas.topics import murmur2_partition, queue_key  # noqa: E402
from streams.settings import load_settings  # noqa: E402
from streams.wire.outbound import Writer  # noqa: E402
from streams.worker.folding import Folder  # noqa: E402
from streams.worker.outputs import records_of  # noqa: E402

MAPS = ["Fighting Spirit", "Polypoid", "Eclipse", "Vermeer", "Circuit Breaker"]

SESSIONS = {
    "optimal-mixed": dict(strategy="optimal", regions=["eu", "na"], ttl=25_000, parties=True),
    "ladder-mixed": dict(strategy="ladder-v2.1", regions=["eu", "na"], ttl=25_000, parties=True),
    "optimal-big": dict(strategy="optimal", regions=["eu"], ttl=600_000, parties=False, big=True),
    "optimal-servers": dict(
        strategy="optimal", regions=["eu", "na", "asia"], ttl=12_000, parties=True, servers=True
    ),
}


def config(name: str, spec: dict, folder: Path) -> Path:
    routes = ""
    if spec.get("servers"):
        routes = """
[[routes]]
region_a = "eu"
region_b = "eu"
servers = ["fra-1", "ams-2", "lon-3"]
[[routes]]
region_a = "eu"
region_b = "na"
servers = ["nyc-1"]
"""
    text = f"""
partitions = 4
ticket_ttl_ms = {spec["ttl"]}
fallback_servers = ["fb-1", "fb-2"]
[[queues]]
name = "1v1"
strategy = "{spec["strategy"]}"
regions = {json.dumps(spec["regions"])}
maps = {json.dumps(MAPS)}
wave_interval_ms = 2000
{routes}"""
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


def events(spec: dict, seed: int):
    rng = random.Random(seed)
    t = 1_767_225_600_000
    waves = 12
    per_wave = 2500 if spec.get("big") else 60
    number = 0
    queued: dict[str, list[str]] = {r: [] for r in spec["regions"]}
    for wave in range(1, waves + 1):
        for _ in range(per_wave):
            region = rng.choice(spec["regions"])
            number += 1
            tid = f"t{number}" if rng.random() < 0.9 else f"tí-ü{number}"
            size = 2 if spec.get("parties") and rng.random() < 0.05 else 1
            players = []
            for k in range(size):
                mmr = max(0, int(rng.gauss(1500, 300)))
                side = rng.random()
                if side < 0.03:
                    ratings = {"zerg": mmr}  # unfit
                elif side < 0.35:
                    ratings = {"bw": mmr}
                elif side < 0.7:
                    ratings = {"sc2": mmr}
                else:
                    ratings = {"bw": mmr, "sc2": mmr + rng.randint(-100, 100)}
                player = {"player_id": f"p{number}-{k}", "ratings": ratings}
                if rng.random() < 0.15:
                    player["vetoed_maps"] = rng.sample(MAPS, rng.randint(1, 3))
                if rng.random() < 0.05:
                    player["roles"] = ["bw"]
                players.append(player)
            t += rng.randint(1, 20)
            yield (
                queue_key("1v1", region),
                {
                    "type": "TicketJoined",
                    "ticket_id": tid,
                    "queue": "1v1",
                    "region": region,
                    "joined_at_ms": t - rng.randint(0, 3000),
                    "players": players,
                },
            )
            queued[region].append(tid)
            if rng.random() < 0.05 and queued[region]:
                gone = rng.choice(queued[region])
                yield (
                    queue_key("1v1", region),
                    {
                        "type": "TicketLeft",
                        "ticket_id": gone,
                        "queue": "1v1",
                        "region": region,
                        "reason": "REQUESTED",
                        "left_at_ms": t,
                    },
                )
        t += 2000
        for region in spec["regions"]:
            yield (
                queue_key("1v1", region),
                WaveTick(
                    queue="1v1",
                    region=region,
                    wave_id=f"w{wave}",
                    sequence=wave,
                    tick_at_ms=t,
                    config_fingerprint="fp",
                    interval_ms=2000,
                ),
            )


def run(name: str, spec: dict, configs: Path) -> str:
    settings = load_settings(config(name, spec, configs), broker_url="kafka://x:1")
    folder = Folder.from_settings(settings)
    writer = Writer()  # one per run, as a worker has one
    states = {}
    digest = hashlib.sha256()
    for offset, (key, event) in enumerate(events(spec, 7)):
        partition = murmur2_partition(key, 4)
        state = states.get(partition) or states.setdefault(partition, folder.new_state(partition))
        value = encode(event) if isinstance(event, WaveTick) else json.dumps(event).encode()
        folded = folder.fold(state, key, value, offset)
        assert folded is not None
        for topic, k, v in records_of(
            writer, folded, topic="q", partition=partition, key=key, value=value
        ):
            if topic == "wavematch.waves.v1":
                v = v[:-8]  # duration_ms is wall time
            digest.update(topic.encode() + b"|" + k + b"|" + v + b"\n")
        if isinstance(event, WaveTick):
            for q in state.book.regions.values():
                digest.update(json.dumps(queue_to_record(q), sort_keys=True).encode())
    return digest.hexdigest()


# A folder of its own: two runs at once (the trees before and after a change) must not
# read each other's half-written configurations.
with tempfile.TemporaryDirectory(prefix="hash-wave-sessions-") as configs:
    for name, spec in SESSIONS.items():
        print(name, run(name, spec, Path(configs)), flush=True)
