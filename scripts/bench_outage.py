"""Count what a worker logs while its broker is away, and whether its waves resume.

    .venv/bin/python scripts/bench_outage.py --outage-s 60

Starts the embedded broker behind a proxy (tests/integration/outage.py), one worker with
1-s waves in 3 regions, cuts the proxy for ``--outage-s`` seconds, restores it on the same
port and prints: log lines written during the outage and in the 20 s after it, how many
of them are Kafka client errors, and whether every region closed a wave after it. To
compare releases, run a copy of it from the other tree's root (with the other tree's
tests/integration/outage.py): the worker runs the code of the tree it starts in
(docs/benchmarks/outage.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.machine import machine_line  # noqa: E402
from streams.embedded.broker import free_port  # noqa: E402
from streams.processes import stop_process  # noqa: E402
from streams.settings import load_settings  # noqa: E402
from streams.topics import ensure_topics  # noqa: E402
from tests.integration.conftest import DEFAULT_CONFIG, wait_until, wavematch_process  # noqa: E402
from tests.integration.outage import CuttableBroker  # noqa: E402

#: aiokafka's words for a connection failure (as streams/worker/outage.py, for old trees too).
CLIENT_ERROR = re.compile(r"NodeNotReadyError|KafkaConnectionError|Unable connect|Unable to update")


def waves(web: str) -> dict[str, int]:
    try:
        with urllib.request.urlopen(f"{web}/queues", timeout=5) as response:
            rows = json.load(response)["queues"]
    except OSError:
        return {}
    return {row["region"]: row["waves_closed"] for row in rows}


def run(outage_s: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        broker = CuttableBroker(root / "broker.log").start()
        config = root / "wavematch.toml"
        config.write_text(DEFAULT_CONFIG)
        asyncio.run(ensure_topics(load_settings(config, broker_url=broker.url)))
        log, port = root / "worker.log", free_port()
        worker = wavematch_process(
            ["worker", "--broker", broker.url, "--web-port", str(port)],
            log,
            WAVEMATCH_CONFIG_FILE=str(config),
        )
        web = f"http://127.0.0.1:{port}"
        try:
            wait_until(lambda: len(waves(web)) == 3, 90, "worker ready")
            time.sleep(3)
            before = len(log.read_text().splitlines())
            broker.cut()
            time.sleep(outage_s)
            during = log.read_text().splitlines()[before:]
            broker.restore()
            at_restore = waves(web)
            time.sleep(20)
            after = log.read_text().splitlines()[before + len(during) :]
            resumed = all(waves(web).get(r, 0) > n for r, n in at_restore.items())
        finally:
            stop_process(worker, 30)
            broker.stop()
        errors = sum(1 for line in during + after if CLIENT_ERROR.search(line))
        print(
            f"outage {outage_s:g} s: {len(during)} lines during it, {len(after)} in the 20 s "
            f"after; {errors} Kafka client error lines; waves resumed in every region: "
            f"{'yes' if resumed else 'NO'}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outage-s", type=float, default=60)
    args = parser.parse_args()
    print(machine_line())
    run(args.outage_s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
