"""Apache Kafka against the embedded broker (Tansu), same machine, one run: the worker
benchmarks of bench_worker.py and bench_wave_close.py, each run once per broker.

    .venv/bin/python scripts/bench_brokers.py [--seconds 20] [--rate 20000]

Per broker: sustained queue events/s of one worker (``steady`` at --rate, folding
alone: no wave closes), the worker's CPU per event, a
10,000-player wave from tick to the broker's acknowledgement of its last record
(``bench_wave_close.py --publish``, median of --repeat), SIGKILL takeover time and the
longest gap between two waves of a region (``failover``, two workers), and on Apache
Kafka the broker-restart recovery (``restart``). Prints the machine line, each script's
JSON, then a Markdown table (docs/benchmarks/brokers.md records the runs).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from machine import machine_line  # noqa: E402

BROKERS = ("kafka", "tansu")


def run_script(argv: list[str], timeout_s: float = 900) -> dict[str, Any]:
    """Run a benchmark script; its last stdout line is its JSON result."""
    done = subprocess.run(
        [sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=timeout_s
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"error": f"{' '.join(argv)}: exit {done.returncode}: {tail[0]}"}
    result: dict[str, Any] = json.loads(lines[-1])
    print(json.dumps(result), flush=True)
    return result


def measure(broker: str, args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    worker = "scripts/bench_worker.py"
    seconds = str(args.seconds)
    runs = {
        # Folding alone, as the target's row in docs/benchmarks/worker.md (no wave closes).
        "steady": [worker, "steady", "--broker", broker, "--rate", str(args.rate),
                   "--seconds", seconds, "--wave-interval-ms", "3600000"],
        "wave": ["scripts/bench_wave_close.py", "--publish", "--broker", broker,
                 "--players", "10000", "--repeat", str(args.repeat)],
        "failover": [worker, "failover", "--broker", broker, "--workers", "2",
                     "--rate", "500", "--seconds", str(args.failover_seconds)],
    }  # fmt: skip
    if broker == "kafka":
        runs["restart"] = [worker, "restart", "--broker", broker, "--workers", "2",
                           "--rate", "500", "--seconds", str(args.failover_seconds)]  # fmt: skip
    return {name: run_script(argv) for name, argv in runs.items()}


def table(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    rows = [
        ("queue events/s, one worker (target >= 20,000)", "steady", "folded_per_s"),
        ("worker CPU per event, us (steady)", "steady", "worker_cpu_us_per_event"),
        ("consumer lag while publishing, max (events)", "steady", "lag_events_max"),
        ("10,000-player wave, tick -> last record acked, ms (<= 300)", "wave",
         "tick_to_published_ms"),
        ("SIGKILL of 1 of 2 workers: takeover, s", "failover", "takeover_s"),
        ("longest gap between waves of a region, ms (<= 15,000)", "failover",
         "longest_gap_between_waves_ms"),
        ("broker restart (after 5 s down): broker ready again, s", "restart", "broker_start_s"),
        ("broker restart: from ready to waves again in every region, s", "restart",
         "recovery_s"),
        ("longest gap between waves across the broker restart, ms", "restart",
         "longest_gap_between_waves_ms"),
    ]  # fmt: skip
    lines = ["| figure | Apache Kafka | Tansu |", "|---|---|---|"]
    for label, run, key in rows:
        cells = []
        for broker in BROKERS:
            result = results[broker].get(run)
            if result is None:
                cells.append("n/a (memory-only)" if run == "restart" else "n/a")
            elif "error" in result:
                cells.append("failed")
            else:
                cells.append(str(result.get(key)))
        lines.append(f"| {label} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=20, help="steady run length")
    parser.add_argument("--rate", type=int, default=20_000, help="steady publishing rate")
    parser.add_argument("--failover-seconds", type=int, default=45)
    parser.add_argument("--repeat", type=int, default=3, help="wave close: median of")
    args = parser.parse_args()
    print(machine_line(), flush=True)
    results = {broker: measure(broker, args) for broker in BROKERS}
    for broker, runs in results.items():
        for name, result in runs.items():
            if "error" in result:
                print(f"{broker} {name}: {result['error']}", file=sys.stderr)
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
