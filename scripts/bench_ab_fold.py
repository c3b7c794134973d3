"""A/B of CPU per queue event and of a big wave close, across checkouts, in interleaved rounds.

    .venv/bin/python scripts/bench_ab_fold.py TREE [TREE ...] [--rounds 5]
        [--events 30000] [--players 10000]

Each round runs every tree once, in a rotated order, each in its own process (its own
``matcher``, ``schemas`` and ``streams``), so that all trees see the same load on a
shared machine; only the ratios between trees in the same rounds are evidence. Per tree
and round, in memory (no broker: one is too noisy on a shared machine):

- ``fold``: CPU per join of ``Folder.fold`` plus the encoding of its records, over a
  backlog of ``--events`` 1v1 JSON joins in 8 regions (``bench_join_fold.py``'s workload),
  each with its broker timestamp as the worker passes it (a tree whose fold takes none,
  such as 99e8068, folds without);
- ``worker``: the same backlog through ``QueueWorker.process`` (the worker's per-record
  path: metrics, the publisher's grouping, aiokafka's batch builders);
- ``wave``: CPU of a wave close of ``--players`` queued 1v1 players (``optimal``), the
  tick's fold plus the encoding of its records: the mean of ``WAVES_A_ROUND`` closes in a
  row, each on a fresh state, so that the full collections the waves' objects bring now
  and then (``paused_gc``) are shared among waves as in a worker, not all charged to
  a process's first wave.

Prints each figure's median over the rounds, and its ratio to the first tree's.
``--instructions`` counts instead, under ``valgrind --tool=callgrind``, the user-space
instructions of the ``fold`` loop, of the ``worker`` loop and of the wave close (one
round: the counts do not move with the machine's load). ``--memory`` measures instead,
under ``tracemalloc``, the bytes and memory blocks the state holds per queued ticket once
the ``--events`` joins are folded (every one still queued: no tick), one process a tree.
Make a tree of an older commit with ``git worktree add /tmp/NAME COMMIT``.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
WAVE_CONFIG = """
partitions = 8
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu"]
wave_interval_ms = 3600000
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--counted", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None and args.counted:
        counted_child(args.child, args.counted, args.events, args.players)
        return 0
    if args.child is not None and args.memory:
        print(json.dumps(memory_child(args.child, args.events)))
        return 0
    if args.child is not None:
        print(json.dumps(child(args.child, args.events, args.players)))
        return 0
    if args.instructions:
        return instructions(args)
    if args.memory:
        return memory(args)
    if not args.trees:
        parser.error("name at least one tree")
    trees = [tree.resolve() for tree in args.trees]
    figures: dict[Path, dict[str, list[float]]] = {tree: {} for tree in trees}
    for number in range(args.rounds):
        order = trees[number % len(trees) :] + trees[: number % len(trees)]
        for tree in order:
            run = subprocess.run(
                [
                    sys.executable,
                    str(HERE),
                    "--child",
                    str(tree),
                    "--events",
                    str(args.events),
                    "--players",
                    str(args.players),
                ],
                capture_output=True,
                text=True,
            )
            if run.returncode:
                sys.exit(f"{tree}: {run.stderr}")
            for name, value in json.loads(run.stdout.splitlines()[-1]).items():
                figures[tree].setdefault(name, []).append(value)
        print(f"round {number + 1}/{args.rounds} done", file=sys.stderr)
    first = figures[trees[0]]
    for name in first:
        print(f"{name}:")
        base = statistics.median(first[name])
        for tree in trees:
            values = figures[tree][name]
            median = statistics.median(values)
            shown = ", ".join(f"{v:.1f}" for v in values)
            print(f"  {tree}: median {median:.1f} ({median / base:.2f}x) [{shown}]")
    return 0


def instructions(args: argparse.Namespace) -> int:
    from callgrind import counted_run  # a sibling script: this directory is on the path

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        sys.exit("bench_ab_fold.py: --instructions needs valgrind")
    trees = [tree.resolve() for tree in args.trees]
    counts: dict[str, dict[Path, int]] = {}
    for what in ("fold", "worker", "wave"):
        for tree in trees:
            count, _ = counted_run(
                valgrind,
                [
                    str(HERE),
                    "--child",
                    str(tree),
                    "--counted",
                    what,
                    "--events",
                    str(args.events),
                    "--players",
                    str(args.players),
                ],
                str(tree),
            )
            counts.setdefault(what, {})[tree] = count
            print(f"{what} {tree}: {count:,} instructions", file=sys.stderr)
    per = {"fold": args.events, "worker": args.events, "wave": 1}
    names = {
        "fold": "fold instructions/join",
        "worker": "worker instructions/join",
        "wave": f"wave close of {args.players} players, instructions",
    }
    for what, by_tree in counts.items():
        print(f"{names[what]}:")
        base = by_tree[trees[0]] / per[what]
        for tree in trees:
            value = by_tree[tree] / per[what]
            print(f"  {tree}: {value:,.0f} ({value / base:.2f}x)")
    return 0


def memory(args: argparse.Namespace) -> int:
    """Each tree's state per queued ticket, in its own process (tracemalloc's counts do
    not move with the machine's load: one run a tree)."""
    trees = [tree.resolve() for tree in args.trees]
    if not trees:
        sys.exit("bench_ab_fold.py: --memory needs at least one tree")
    figures = {}
    for tree in trees:
        command = [sys.executable, str(HERE), "--child", str(tree), "--memory"]
        run = subprocess.run(
            [*command, "--events", str(args.events)], capture_output=True, text=True, check=False
        )
        if run.returncode:
            sys.exit(f"{tree}: {run.stderr[-800:]}")
        figures[tree] = json.loads(run.stdout.splitlines()[-1])
    for name in figures[trees[0]]:
        print(f"{name}:")
        base = figures[trees[0]][name]
        for tree in trees:
            value = figures[tree][name]
            print(f"  {tree}: {value:,.1f} ({value / base:.2f}x)")
    return 0


def memory_child(tree: Path, events: int) -> dict[str, float]:
    """One tree's traced memory per queued ticket after folding ``events`` joins."""
    sys.path.insert(0, str(tree))
    joins = _load("bench_join_fold", HERE.with_name("bench_join_fold.py"))
    import gc
    import tracemalloc

    from streams.worker.folding import Folder

    settings, records = joins.backlog(events)
    folder = Folder.from_settings(settings)
    states = {p: folder.new_state(p) for p in {r.partition for r in records}}
    stamped = joins.stamps_records(folder)
    gc.collect()
    tracemalloc.start()
    for r in records:
        state = states[r.partition]
        if stamped:
            folder.fold(state, r.key, r.value, r.offset, r.timestamp)
        else:
            folder.fold(state, r.key, r.value, r.offset)
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    blocks = sum(stat.count for stat in tracemalloc.take_snapshot().statistics("filename"))
    tracemalloc.stop()
    queued = sum(len(q.tickets) for s in states.values() for q in s.book.regions.values())
    if queued == 0:
        sys.exit("bench_ab_fold.py: no ticket queued after the joins")
    return {
        "state bytes a queued ticket": held / queued,
        "memory blocks a queued ticket": blocks / queued,
    }


def counted_child(tree: Path, what: str, events: int, players: int) -> None:
    """One tree's ``what`` inside ``functools.reduce``, the only code callgrind counts."""
    sys.path.insert(0, str(tree))
    joins = _load("bench_join_fold", HERE.with_name("bench_join_fold.py"))
    from streams.worker.folding import Folder, paused_gc

    if what == "wave":
        prepared = prepare_wave(
            Folder.from_settings(joins.settings_from(WAVE_CONFIG)), joins, players
        )
        functools.reduce(lambda done, _: (prepared(), done)[1], range(1), 0)
        return
    settings, records = joins.backlog(events)
    folder = Folder.from_settings(settings)
    if what == "worker":
        # Imported before counting: worker_loop imports them, and only once.
        import prometheus_client  # noqa: F401

        import streams.worker.queue_worker  # noqa: F401

        functools.reduce(
            lambda done, _: (joins.worker_loop(folder, settings, records), done)[1], range(1), 0
        )
        return
    states = {p: folder.new_state(p) for p in {r.partition for r in records}}
    encode = joins.encoder()
    stamped = joins.stamps_records(folder)

    def fold_all(done: int, _: int) -> int:
        for start in range(0, len(records), joins.BATCH):
            with paused_gc(age_after=0):
                for r in records[start : start + joins.BATCH]:
                    state = states[r.partition]
                    folded = (
                        folder.fold(state, r.key, r.value, r.offset, r.timestamp)
                        if stamped
                        else folder.fold(state, r.key, r.value, r.offset)
                    )
                    topic = "wavematch.queue.v1"
                    encode(folded, topic=topic, partition=r.partition, key=r.key, value=r.value)
        return done

    functools.reduce(fold_all, range(1), 0)


def child(tree: Path, events: int, players: int) -> dict[str, float]:
    """One round of one tree: its packages first on the path."""
    sys.path.insert(0, str(tree))
    joins = _load("bench_join_fold", HERE.with_name("bench_join_fold.py"))
    from streams.worker.folding import Folder

    settings, records = joins.backlog(events)
    seconds, _ = joins.fold_loop(Folder.from_settings(settings), records)
    worker = joins.worker_loop(Folder.from_settings(settings), settings, records)
    wave = wave_close(joins, players)
    return {
        "fold CPU us/join": seconds / len(records) * 1e6,
        "worker CPU us/join": worker / len(records) * 1e6,
        f"wave close of {players} players, CPU ms": wave * 1e3,
    }


#: Wave closes a round's ``wave`` figure is the mean of.
WAVES_A_ROUND = 6


def wave_close(joins: Any, players: int) -> float:
    """Mean CPU seconds of a tick's fold and encoding, ``players`` 1v1 players queued,
    over ``WAVES_A_ROUND`` closes in a row, each on a fresh state."""
    from streams.worker.folding import Folder

    spent = 0.0
    for _ in range(WAVES_A_ROUND):
        close = prepare_wave(Folder.from_settings(joins.settings_from(WAVE_CONFIG)), joins, players)
        started = time.process_time()
        close()
        spent += time.process_time() - started
        del close  # its state goes before the next wave's is built, as a worker's region
    return spent / WAVES_A_ROUND


def prepare_wave(folder: Any, joins: Any, players: int) -> Any:
    """``close()``: the tick's fold and encoding, once ``players`` players are queued."""
    from schemas.topics import murmur2_partition, queue_key

    key = queue_key("1v1", "eu")
    partition = murmur2_partition(key, 8)
    state = folder.new_state(partition)
    records = [r for r in joins.joins(players * 8, queue_key, murmur2_partition)]
    queued = [r for r in records if r.key == key][:players]
    for offset, record in enumerate(queued):
        assert folder.fold(state, key, record.value, offset) is not None
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
    encode = joins.encoder()

    def close() -> None:
        folded = folder.fold(state, key, value, len(queued))
        topic = "wavematch.queue.v1"
        outputs = encode(folded, topic=topic, partition=partition, key=key, value=value)
        assert folded.step is not None and folded.step.summary is not None, folded
        assert len(outputs) > players, len(outputs)  # matches, dequeues, statuses, summary

    return close


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    raise SystemExit(main())
