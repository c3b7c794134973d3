"""Record the audit test's session: a seeded queue log run through a live worker, exported.

    .venv/bin/python scripts/record_session.py            # writes tests/data/recorded-session.avro

The queue events - joins, leaves and the wave ticks themselves, each record stamped at its
event's instant - come from a seeded generator (ticks are events like any other, so the
recording does not depend on the clock); a real worker on the embedded broker folds them
and publishes its outputs, and the queue and output topics are exported with `wavematch
export`. The auditors' test (tests/audit) replays the file offline and must get the very
same outputs.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from confluent_kafka import Producer  # noqa: E402

from schemas.codec import decode, encode  # noqa: E402
from schemas.models import TicketJoined, TicketLeft, WaveTick  # noqa: E402
from schemas.topics import queue_key  # noqa: E402
from streams.embedded.broker import EmbeddedBroker, free_port  # noqa: E402
from streams.settings import load_settings  # noqa: E402

DATA = ROOT / "tests" / "data"
CONFIG = DATA / "recorded-session.toml"
REGIONS = ("eu", "na", "asia")
START_MS = 1_767_225_600_000
WAVE_MS = 1_000


def session(seed: int, waves: int, fingerprint: str) -> list[tuple[bytes, bytes]]:
    """Joins, leaves and ticks of ``waves`` waves in three regions, in publication order."""
    rng = random.Random(seed)
    events: list[tuple[bytes, bytes]] = []
    waiting: dict[str, list[str]] = {region: [] for region in REGIONS}
    number = 0
    for wave in range(1, waves + 1):
        for region in REGIONS:
            key = queue_key("1v1", region)
            for _ in range(rng.randint(4, 14)):
                at_ms = START_MS + (wave - 1) * WAVE_MS + rng.randint(0, WAVE_MS - 1)
                side = rng.random()
                mmr = int(rng.gauss(1500, 250))
                ratings = (
                    {"bw": max(0, mmr)}
                    if side < 0.35
                    else {"sc2": max(0, mmr)}
                    if side < 0.7
                    else {"bw": max(0, mmr), "sc2": max(0, mmr + rng.randint(-150, 150))}
                )
                ticket = f"s{number}"
                number += 1
                events.append(
                    (
                        key,
                        encode(
                            TicketJoined(
                                ticket_id=ticket,
                                queue="1v1",
                                region=region,
                                joined_at_ms=at_ms,
                                players=[
                                    {
                                        "player_id": f"player-{number}",
                                        "ratings": ratings,
                                        "vetoed_maps": rng.sample(
                                            ["Polypoid", "Eclipse", "Vermeer"], rng.randint(0, 1)
                                        ),
                                    }
                                ],
                            )
                        ),
                    )
                )
                waiting[region].append(ticket)
            if waiting[region] and rng.random() < 0.5:
                ticket = rng.choice(waiting[region])
                events.append(
                    (
                        key,
                        encode(
                            TicketLeft(
                                ticket_id=ticket,
                                queue="1v1",
                                region=region,
                                reason="REQUESTED",
                                left_at_ms=START_MS + wave * WAVE_MS - 1,
                            )
                        ),
                    )
                )
            events.append(
                (
                    key,
                    encode(
                        WaveTick(
                            queue="1v1",
                            region=region,
                            wave_id=str(START_MS + wave * WAVE_MS),
                            sequence=START_MS + wave * WAVE_MS,  # the instant (ADR 0007)
                            tick_at_ms=START_MS + wave * WAVE_MS,
                            config_fingerprint=fingerprint,
                            interval_ms=WAVE_MS,
                        )
                    ),
                )
            )
    return events


def _instant(value: bytes) -> int:
    event = decode(value)
    if isinstance(event, TicketJoined):
        return event.joined_at_ms
    if isinstance(event, TicketLeft):
        return event.left_at_ms
    assert isinstance(event, WaveTick)
    return event.tick_at_ms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--waves", type=int, default=36)
    parser.add_argument("--output", type=Path, default=DATA / "recorded-session.avro")
    args = parser.parse_args()
    settings = load_settings(CONFIG, broker_url="tansu://127.0.0.1:1")
    events = session(args.seed, args.waves, settings.config_fingerprint())
    with EmbeddedBroker() as broker:
        port = free_port()
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streams.cli",
                "worker",
                "--broker",
                broker.url,
                "--config",
                str(CONFIG),
                "--web-port",
                str(port),
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_ready(port, worker)
            producer = Producer(
                {"bootstrap.servers": broker.bootstrap, "partitioner": "murmur2_random"}
            )
            for key, value in events:
                # Stamped at the event's own instant: the fold checks event times against
                # record timestamps (docs/adr/0074), and the embedded broker keeps these.
                producer.produce("wavematch.queue.v1", value, key, timestamp=_instant(value))
            assert producer.flush(30) == 0
            time.sleep(8)  # let the worker fold everything and commit
            worker.terminate()
            worker.wait(30)
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "streams.cli",
                    "export",
                    "--broker",
                    broker.url,
                    "--config",
                    str(CONFIG),
                    "--output",
                    str(args.output),
                ],
                cwd=ROOT,
                check=True,
            )
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    print(f"{len(events)} queue events recorded into {args.output}")
    return 0


def _wait_ready(port: int, worker: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise SystemExit("the worker exited before it was ready")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                if json.load(response)["partitions"]:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("the worker was not ready within 90 s")


if __name__ == "__main__":
    raise SystemExit(main())
