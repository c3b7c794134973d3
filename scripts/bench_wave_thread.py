"""Cost of closing a wave on a thread (ADR 0216) against on the event loop, side by side.

    .venv/bin/python scripts/bench_wave_thread.py [--players 256 1000 10000] [--rounds 7]

For each size, each round builds two identical states of N queued 1v1 players (the
worker mix of ratings, ``optimal``, bench_wave_close.py's queue), then closes one's wave
with ``Folder.close_wave`` called on a running event loop and the other's through
``asyncio.to_thread``, as ``QueueWorker`` does from ``OFF_LOOP_TICKETS`` tickets, in
alternating order, each from a collected heap. The garbage collector is held as the
worker holds it over a batch.
Prints per size the median CPU (every thread of the process) and wall time of each, and
their ratio; only the ratio is evidence on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_join_fold import settings_from  # noqa: E402
from bench_wave_close import CONFIG, _join, _tick  # noqa: E402
from machine import machine_line  # noqa: E402

from schemas.topics import murmur2_partition, queue_key  # noqa: E402
from streams.worker import folding  # noqa: E402
from streams.worker.folding import Folder, PartitionState, WaveDue, paused_gc  # noqa: E402
from tests.duel.waves import worker_mix_ratings  # noqa: E402

KEY = queue_key("1v1", "eu")
START_MS = 1_767_225_600_000


def queued(folder: Folder, players: int, seed: int) -> tuple[PartitionState, WaveDue]:
    state = folder.new_state(murmur2_partition(KEY, 8))
    for number, (bw, sc2) in enumerate(worker_mix_ratings(players, seed)):
        ratings = {race: mmr for race, mmr in (("bw", bw), ("sc2", sc2)) if mmr is not None}
        folder.fold(
            state,
            KEY,
            _join(f"t{number}", START_MS, {"player_id": f"p{number}", "ratings": ratings}),
            number,
        )
    due = folder.read(state, KEY, _tick(START_MS + 10_000, 1), players)
    assert isinstance(due, WaveDue)
    return state, due


async def close(
    folder: Folder, state: PartitionState, due: WaveDue, on_thread: bool
) -> tuple[float, float]:
    # Each close starts from a collected heap measured as the base: the full collection
    # paused_gc runs once the heap grew would otherwise fall on whichever variant's close
    # crossed its bar.
    gc.collect()
    folding._survivors, folding._heap_check_due = None, False
    began, began_cpu = time.perf_counter(), time.process_time()
    with paused_gc():
        if on_thread:
            folded = await asyncio.to_thread(folder.close_wave, state, due)
        else:
            folded = folder.close_wave(state, due)
    took = (time.perf_counter() - began) * 1e3, (time.process_time() - began_cpu) * 1e3
    assert folded.step is not None and folded.step.summary is not None
    return took


async def measure(sizes: list[int], rounds: int) -> None:
    folder = Folder.from_settings(
        settings_from(
            CONFIG.format(strategy="optimal", status="true", ready=0),
            broker_url="kafka://localhost:1",
        )
    )
    await close(folder, *queued(folder, 64, 0), on_thread=True)  # the pool's thread, imports
    for players in sizes:
        taken: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for round_ in range(rounds):
            for on_thread in (bool(round_ % 2), not round_ % 2):
                state, due = queued(folder, players, seed=round_)
                taken[on_thread].append(await close(folder, state, due, on_thread))
        loop_wall, loop_cpu = (statistics.median(t[i] for t in taken[False]) for i in (0, 1))
        thread_wall, thread_cpu = (statistics.median(t[i] for t in taken[True]) for i in (0, 1))
        cpu_ratio, wall_ratio = thread_cpu / loop_cpu, thread_wall / loop_wall
        print(
            f"players={players:>6} rounds={rounds}  on the loop {loop_cpu:8.2f} ms CPU "
            f"{loop_wall:8.2f} ms wall  on a thread {thread_cpu:8.2f} ms CPU "
            f"{thread_wall:8.2f} ms wall  thread/loop CPU x{cpu_ratio:.3f} wall x{wall_ratio:.3f}",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[256, 1000, 10_000])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(machine_line(), flush=True)
    asyncio.run(measure(args.players, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
