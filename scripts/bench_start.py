"""How long `wavematch up` takes until its worker owns partitions, and its stop.

    .venv/bin/python scripts/bench_start.py                       # this tree, 5 rounds
    .venv/bin/python scripts/bench_start.py --baseline /tmp/old   # A/B, rounds interleaved

Per round and per tree: `wavematch up` (the embedded broker and one worker, its state in
a temporary directory, so a running `up` of yours is left alone) is started, and the
wall time is taken from the spawn until the worker's `/health` lists a partition (what
a new user waits for before the first match can be made, and what a replacement worker
takes before it folds), then from Ctrl-C (SIGINT) until the process has exited. Prints
the machine line, then one JSON object of medians (and, with --baseline, ratios). A
baseline tree is run with this interpreter and PYTHONPATH set to it, so both trees use
the same installed libraries and the same broker binary.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_cli import spawn_up, summary, up_record  # noqa: E402
from machine import machine_line  # noqa: E402

#: Longer than any start seen: a start that takes more is reported, not waited for.
READY_TIMEOUT_S = 120.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another tree to compare (A/B)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    print(machine_line(), flush=True)
    samples: dict[str, dict[str, list[float]]] = {
        name: {"ready_s": [], "stop_s": []} for name in trees
    }
    for index in range(args.rounds):
        # Alternate which tree goes first, so neither always meets a cold page cache.
        order = list(trees.items()) if index % 2 == 0 else list(reversed(trees.items()))
        for name, tree in order:
            ready, stop = start_and_stop(tree)
            samples[name]["ready_s"].append(ready)
            samples[name]["stop_s"].append(stop)
    print(json.dumps(summary(samples, digits=2), indent=1))


def start_and_stop(tree: Path) -> tuple[float, float]:
    """Seconds from spawning `wavematch up` in ``tree`` until its worker owns a partition,
    and from its SIGINT until it exited."""
    with tempfile.TemporaryDirectory(prefix="bench-start-") as state_dir:
        env = os.environ | {"PYTHONPATH": str(tree), "WAVEMATCH_STATE_DIR": state_dir}
        env.pop("WAVEMATCH_BROKER_URL", None)
        started = time.perf_counter()
        # The tree is the working directory too: `-m` puts it first on sys.path.
        up = spawn_up(tree, env)
        try:
            wait_ready(up, Path(state_dir), started)
            ready = time.perf_counter() - started
            stopping = time.perf_counter()
            up.send_signal(signal.SIGINT)
            up.wait(timeout=60)
            return ready, time.perf_counter() - stopping
        finally:
            if up.poll() is None:
                up.kill()
                up.wait()


def wait_ready(up: subprocess.Popen[bytes], state_dir: Path, started: float) -> None:
    web: str | None = None
    while time.perf_counter() - started < READY_TIMEOUT_S:
        if up.poll() is not None:
            raise SystemExit(f"wavematch up exited with {up.returncode}")
        if web is None:
            web = _web_url(state_dir)
        elif _owns_partitions(web):
            return
        time.sleep(0.05)
    raise SystemExit(f"wavematch up owned no partition within {READY_TIMEOUT_S:g} s")


def _web_url(state_dir: Path) -> str | None:
    webs = (up_record(state_dir) or {}).get("web") or []
    return str(webs[0]) if webs else None


def _owns_partitions(web: str) -> bool:
    try:
        with urllib.request.urlopen(f"{web}/health", timeout=2) as response:
            return bool(json.load(response)["partitions"])
    except (OSError, ValueError, KeyError):
        return False


if __name__ == "__main__":
    main()
