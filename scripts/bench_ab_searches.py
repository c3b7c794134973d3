"""A/B of tickets searching several places (docs/adr/0145) against a tree without them.

    .venv/bin/python scripts/bench_ab_searches.py BASE NEW [--rounds 5]
        [--events 30000] [--players 10000] [--base-searches]

Each round runs both trees in a rotated order, each in its own process, so both see the
same load on a shared machine; only ratios inside the same rounds are evidence. Per tree:

- ``plain``: CPU per join of ``Folder.fold`` and its encoding, all joins searching one
  region (``bench_join_fold.py``'s backlog): what the feature costs when unused.
- ``half`` (NEW only): the same backlog with every other join searching a second region
  too (open at once); the copies the fold writes are folded in their own partitions, as
  a worker would. Reported per platform join and per folded queue record.
- ``wave``: one wave close of ``--players`` queued 1v1 players (``optimal``): on BASE all
  searching one region, on NEW half of them searching a second one too (their matches
  are tentative: the wave writes search claims instead of creating them). ``settle``
  (NEW only): the CPU of folding those claims and their answers until every tentative
  match is created.
- ``--base-searches``: BASE has the feature too (a change to it): both trees run NEW's
  workloads, and every figure is compared with BASE's own.
- ``records``: on NEW, queue-topic records written per join searching two places, over
  its whole life (copy, claim request and answer, end notice), and the records of the
  other topics (dequeue in the other place).

``--instructions`` counts instead, under ``valgrind --tool=callgrind``, the user-space
instructions of ``plain`` (per join) and ``half`` (per folded record) in one run per
tree, both through the loop that feeds the copies back, and of the ``wave`` close (its
tick's fold and encoding): figures the machine's load does not move (as
``bench_ab_fold.py --instructions``).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
WAVE_CONFIG = """
partitions = 8
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "na"]
wave_interval_ms = 3600000
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument(
        "--base-searches",
        action="store_true",
        help="BASE has several places too: run NEW's workloads on both (a change to them)",
    )
    parser.add_argument("--instructions", action="store_true", help="count under callgrind")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--new", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--counted", choices=("plain", "half", "wave"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None and args.counted == "wave":
        counted_wave(args.child, args.new, args.players)
        return 0
    if args.child is not None and args.counted is not None:
        print(counted_child(args.child, args.counted, args.events))
        return 0
    if args.child is not None:
        print(json.dumps(child(args.child, args.new, args.events, args.players)))
        return 0
    if len(args.trees) != 2:
        parser.error("name BASE and NEW")
    trees = [tree.resolve() for tree in args.trees]
    if args.instructions:
        return instructions(trees, args.events, args.players, args.base_searches)
    figures: dict[Path, dict[str, list[float]]] = {tree: {} for tree in trees}
    for number in range(args.rounds):
        for tree in trees[number % 2 :] + trees[: number % 2]:
            command = [sys.executable, str(HERE), "--child", str(tree)]
            command += ["--events", str(args.events), "--players", str(args.players)]
            command += ["--new"] if tree == trees[1] or args.base_searches else []
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode:
                sys.exit(f"{tree}: {run.stderr}")
            for name, value in json.loads(run.stdout.splitlines()[-1]).items():
                figures[tree].setdefault(name, []).append(value)
        print(f"round {number + 1}/{args.rounds} done", file=sys.stderr)
    base = {name: statistics.median(v) for name, v in figures[trees[0]].items()}
    for name, values in figures[trees[1]].items():
        median = statistics.median(values)
        shown = ", ".join(f"{v:.1f}" for v in values)
        compared = base.get(name) or base.get(_BASE_OF.get(name, ""))
        if name.startswith("per searching join"):
            compared = None  # counts, not costs
        ratio = f" ({median / compared:.2f}x BASE {compared:.1f})" if compared else ""
        print(f"{name}: NEW median {median:.1f}{ratio} [{shown}]")
    return 0


#: NEW's figures compared with another BASE figure (BASE cannot run the workload).
_BASE_OF = {
    "half: fold CPU us/join": "plain: fold CPU us/join",
    "half: fold CPU us/record": "plain: fold CPU us/join",
}


#: The one function callgrind counts inside (as scripts/count_instructions.py does).
_COUNTED = "functools_reduce"


def instructions(trees: list[Path], events: int, players: int, base_searches: bool) -> int:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        sys.exit("bench_ab_searches.py: --instructions needs valgrind")
    per: dict[str, dict[Path, float]] = {}
    for what in ("plain", "half", "wave"):
        for tree in trees if what != "half" or base_searches else trees[1:]:
            command = [valgrind, "--tool=callgrind", "--collect-atstart=no"]
            command += [f"--toggle-collect={_COUNTED}", "--callgrind-out-file=/dev/null"]
            command += [sys.executable, str(HERE), "--child", str(tree), "--counted", what]
            command += ["--events", str(events), "--players", str(players)]
            command += ["--new"] if tree == trees[1] or base_searches else []
            run = subprocess.run(command, capture_output=True, text=True, check=False)
            found = re.search(r"Collected : (\d+)", run.stderr)
            if run.returncode or found is None:
                sys.exit(f"{tree}: valgrind failed: {run.stderr[-800:]}")
            folded = 1 if what == "wave" else int(run.stdout.split()[-1])
            per.setdefault(what, {})[tree] = int(found.group(1)) / folded
            print(f"{what} {tree}: {int(found.group(1)):,} instructions", file=sys.stderr)
    names = {"plain": "plain: instructions/join", "half": "half: instructions/record"}
    base = per["plain"][trees[0]]
    for what in ("plain", "half"):
        print(f"{names[what]}:")
        for tree, value in per[what].items():
            print(f"  {tree}: {value:,.0f} ({value / base:.2f}x BASE's plain join)")
    closes = per["wave"]
    print(f"wave close of {players} players (NEW: half searching), instructions:")
    for tree, value in closes.items():
        print(f"  {tree}: {value:,.0f} ({value / closes[trees[0]]:.2f}x BASE's)")
    return 0


def counted_wave(tree: Path, new: bool, players: int) -> None:
    """One tree's wave close (``_wave``'s tick) inside ``functools.reduce``."""
    sys.path.insert(0, str(tree))
    joins = _load("bench_join_fold", HERE.with_name("bench_join_fold.py"))
    from streams.worker.folding import Folder

    _wave(Folder.from_settings(joins.settings_from(WAVE_CONFIG)), joins, players, new, counted=True)


def counted_child(tree: Path, what: str, events: int) -> int:
    """One tree's ``plain`` or ``half`` fold inside ``functools.reduce``, the only code
    callgrind counts; returns the records folded."""
    sys.path.insert(0, str(tree))
    joins = _load("bench_join_fold", HERE.with_name("bench_join_fold.py"))
    from streams.worker.folding import Folder

    settings, records = joins.backlog(events)
    folder = Folder.from_settings(settings)
    if what == "half":
        records = _with_searches(records, joins.REGIONS)
    folded: list[int] = []  # both through one loop: only the records differ

    def fold_all(done: int, _: int) -> int:
        folded.append(_fold_feeding_back(folder, records, joins)[1])
        return done

    functools.reduce(fold_all, [0], 0)
    return folded[0]


def child(tree: Path, new: bool, events: int, players: int) -> dict[str, float]:
    sys.path.insert(0, str(tree))
    joins = _load("bench_join_fold", HERE.with_name("bench_join_fold.py"))
    from streams.worker.folding import Folder

    settings, records = joins.backlog(events)
    seconds, _ = joins.fold_loop(Folder.from_settings(settings), records)
    out = {"plain: fold CPU us/join": seconds / len(records) * 1e6}
    if new:
        half = _with_searches(records, joins.REGIONS)
        seconds, folded = _fold_feeding_back(Folder.from_settings(settings), half, joins)
        out["half: fold CPU us/join"] = seconds / len(half) * 1e6
        out["half: fold CPU us/record"] = seconds / folded * 1e6
    wave, settle, counts = _wave(
        Folder.from_settings(joins.settings_from(WAVE_CONFIG)), joins, players, new
    )
    out[f"wave close of {players} players, CPU ms"] = wave * 1e3
    if new:
        out["settle of the tentative matches, CPU ms"] = settle * 1e3
        out.update(counts)
    return out


def _with_searches(records: list[Any], regions: tuple[str, ...]) -> list[Any]:
    """Every other join searches the next region too."""
    out = []
    for number, record in enumerate(records):
        body = json.loads(record.value)
        if number % 2:
            here = regions.index(body["region"])
            there = regions[(here + 1) % len(regions)]
            body["searches"] = [{"region": body["region"]}, {"region": there}]
        out.append(record._replace(value=json.dumps(body).encode()))
    return out


def _fold_feeding_back(folder: Any, records: list[Any], joins: Any) -> tuple[float, int]:
    """CPU of folding ``records`` and every queue record their fold writes, in batches."""
    from schemas.topics import murmur2_partition
    from streams.worker.folding import paused_gc

    encode = joins.encoder()
    states = {p: folder.new_state(p) for p in range(8)}
    offsets = Counter[int]()
    todo = [(r.partition, r.key, r.value) for r in records]
    folded = 0
    started = time.process_time()
    while todo:
        batch, todo = todo[: joins.BATCH], todo[joins.BATCH :]
        with paused_gc(age_after=0):
            for partition, key, value in batch:
                offsets[partition] += 1
                done = folder.fold(states[partition], key, value, offsets[partition])
                folded += 1
                if done is None:
                    continue
                for topic, out_key, out_value in encode(
                    done, topic="wavematch.queue.v1", partition=partition, key=key, value=value
                ):
                    if topic == "wavematch.queue.v1":
                        todo.append((murmur2_partition(out_key, 8), out_key, out_value))
    return time.process_time() - started, folded


def _wave(
    folder: Any, joins: Any, players: int, new: bool, counted: bool = False
) -> tuple[float, float, dict]:
    """The CPU of one tick's close (and of settling its tentative matches); ``counted``:
    the close alone, inside ``functools.reduce`` for callgrind, and nothing after it."""
    from schemas.topics import murmur2_partition, queue_key
    from streams.worker.folding import paused_gc

    key = queue_key("1v1", "eu")
    states = {p: folder.new_state(p) for p in range(8)}
    records = [r for r in joins.joins(players * 8, queue_key, murmur2_partition)]
    queued = [r for r in records if r.key == key][:players]
    offsets = Counter[int]()
    encode = joins.encoder()
    copies = []
    for number, record in enumerate(queued):
        body = json.loads(record.value)
        if new and number % 2:
            body["searches"] = [{"region": "eu"}, {"region": "na"}]
        value = json.dumps(body).encode()
        partition = murmur2_partition(key, 8)
        offsets[partition] += 1
        done = folder.fold(states[partition], key, value, offsets[partition])
        for topic, k, v in encode(
            done, topic="wavematch.queue.v1", partition=partition, key=key, value=value
        ):
            if topic == "wavematch.queue.v1":
                copies.append((k, v))
    for k, v in copies:  # the copies wait in na, never ticked: they end by notice
        partition = murmur2_partition(k, 8)
        offsets[partition] += 1
        folder.fold(states[partition], k, v, offsets[partition])
    at_ms = joins.START_MS + 60_000
    tick = {
        "type": "WaveTick",
        "queue": "1v1",
        "region": "eu",
        "wave_id": "w-1",
        "sequence": at_ms,
        "tick_at_ms": at_ms,
        "config_fingerprint": "f",
        "interval_ms": 10_000,
    }
    value = json.dumps(tick).encode()
    partition = murmur2_partition(key, 8)
    offsets[partition] += 1

    def close(written: list[Any], _: int) -> list[Any]:
        with paused_gc():
            done = folder.fold(states[partition], key, value, offsets[partition])
            written += encode(
                done, topic="wavematch.queue.v1", partition=partition, key=key, value=value
            )
        return written

    if counted:
        functools.reduce(close, [0], [])
        return 0.0, 0.0, {}
    started = time.process_time()
    written = close([], 0)
    wave = time.process_time() - started
    todo = [(k, v) for t, k, v in written if t == "wavematch.queue.v1"]
    counts = Counter[str]()
    counts["queue records: copy"] = len(copies)
    other = Counter[str]()
    started = time.process_time()
    with paused_gc():
        while todo:
            k, v = todo.pop(0)
            p = murmur2_partition(k, 8)
            offsets[p] += 1
            done = folder.fold(states[p], k, v, offsets[p])
            kind = k.split(b"/")[0].decode()
            counts[
                f"queue records: {'claim request' if kind == 'search' else 'answer or notice'}"
            ] += 1
            for t, k2, v2 in encode(done, topic="wavematch.queue.v1", partition=p, key=k, value=v):
                if t == "wavematch.queue.v1":
                    todo.append((k2, v2))
                else:
                    other[t] += 1
    settle = time.process_time() - started
    searching = len(copies) or 1
    per = {f"per searching join, {name}": n / searching for name, n in counts.items()}
    per |= {
        f"per searching join, {t} records after the wave": n / searching for t, n in other.items()
    }
    return wave, settle, per


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    raise SystemExit(main())
