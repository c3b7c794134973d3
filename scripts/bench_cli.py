"""How long a publishing command takes: import time and `wavematch join` end to end.

    .venv/bin/python scripts/bench_cli.py                      # this tree, 10 rounds
    .venv/bin/python scripts/bench_cli.py --baseline /tmp/old  # A/B, rounds interleaved

Starts `wavematch up` (its state file in a temporary directory, so a running `up` of
yours is left alone), then per round and per tree: the import time of the `join`
command (`python -X importtime`, the sum of the top-level imports) and the wall time
of a `wavematch join` subprocess against that `up`, from start to exit, and its CPU time
(user + system: on a machine others load, closer to what an idle one takes). Prints the
machine line, then one JSON object of medians (and, with --baseline, ratios). A
baseline tree is run with this interpreter and PYTHONPATH set to it, so both trees use
the same installed libraries.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from machine import machine_line  # noqa: E402

#: What `wavematch join` imports before it publishes: the CLI, the command, its settings.
IMPORT_JOIN = (
    "import streams.cli as c; c.build_parser(['join']); "
    "import streams.commands.join; from streams.settings import load_settings; load_settings()"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--baseline", type=Path, help="another tree to compare (A/B)")
    args = parser.parse_args()
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    print(machine_line(), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as state_dir:
        up, broker_url = start_up(Path(state_dir))
        try:
            samples = measure(trees, broker_url, args.rounds)
        finally:
            up.terminate()
            up.wait(timeout=30)
    print(json.dumps(summary(samples), indent=1))


def start_up(state_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    up = spawn_up(state_dir, os.environ | {"WAVEMATCH_STATE_DIR": str(state_dir)})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        record = up_record(state_dir) or {}
        if "broker_url" in record:
            return up, str(record["broker_url"])
        if up.poll() is not None:
            raise SystemExit(f"wavematch up exited with {up.returncode}")
        time.sleep(0.2)
    up.terminate()
    raise SystemExit("wavematch up did not start within 120 s")


def spawn_up(cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`wavematch up` started in ``cwd`` with ``env``, its output discarded."""
    return subprocess.Popen(
        [sys.executable, "-m", "streams.cli", "up"],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def up_record(state_dir: Path) -> dict[str, Any] | None:
    """The state record a running `up` wrote in ``state_dir``; None until one is whole."""
    for path in state_dir.glob("*.json"):
        try:
            record: dict[str, Any] = json.loads(path.read_text())
            return record
        except ValueError:
            pass  # written as we read it: the next look finds it whole
    return None


Samples = dict[str, dict[str, list[float]]]


def measure(trees: dict[str, Path], broker_url: str, rounds: int) -> Samples:
    samples: Samples = {name: {"import_ms": [], "join_ms": [], "join_cpu_ms": []} for name in trees}
    for index in range(rounds):
        for name, tree in trees.items():
            # The tree is the working directory too: `-c` and `-m` put it first on sys.path.
            env = os.environ | {"PYTHONPATH": str(tree)}
            env.pop("WAVEMATCH_BROKER_URL", None)
            samples[name]["import_ms"].append(import_ms(env, tree))
            wall, cpu = join_ms(env, tree, broker_url, f"{name}-{index}")
            samples[name]["join_ms"].append(wall)
            samples[name]["join_cpu_ms"].append(cpu)
    return samples


def import_ms(env: dict[str, str], tree: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", IMPORT_JOIN],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    top_level = 0
    for line in done.stderr.splitlines():
        # "import time: self [us] | cumulative | imported package"; top level: one space.
        parts = line.split("|")
        if len(parts) == 3 and parts[2].startswith(" ") and not parts[2].startswith("  "):
            cumulative = parts[1].strip()
            if cumulative.isdigit():
                top_level += int(cumulative)
    return top_level / 1000


def join_ms(env: dict[str, str], tree: Path, broker_url: str, player: str) -> tuple[float, float]:
    """Wall and CPU milliseconds of one `wavematch join`."""
    command = [sys.executable, "-m", "streams.cli", "join", "--broker", broker_url]
    command += ["--queue", "1v1", "--region", "eu", "--player", f"{player}:bw=1500"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=tree, env=env, capture_output=True, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall * 1000, cpu * 1000


def summary(samples: Samples, digits: int = 1) -> dict[str, object]:
    """Per tree and figure the median of its rounds, and each figure's ratio this/baseline."""
    medians = {
        name: {
            figure: round(statistics.median(values), digits) for figure, values in figures.items()
        }
        for name, figures in samples.items()
    }
    rounds = len(next(iter(samples["this"].values())))
    result: dict[str, object] = {"rounds": rounds, "medians": medians}
    if "baseline" in medians:
        result["this_over_baseline"] = {
            figure: round(medians["this"][figure] / medians["baseline"][figure], 2)
            for figure in medians["this"]
        }
    return result


if __name__ == "__main__":
    main()
