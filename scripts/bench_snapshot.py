"""Cost of a worker's snapshots as a busy region's remembered ticket ids pile up.

    .venv/bin/python scripts/bench_snapshot.py [--waves 60] [--per-wave 10000]

Each wave finishes ``--per-wave`` ticket ids (a 10,000-player wave's matched tickets)
and is followed by one snapshot, as a worker snapshots every max(5,000, queued tickets)
events. Ids stay remembered for the retention window (600 s of 10 s waves: 60 waves, so
up to 600,000 ids). Two ways to save them, timed per snapshot (CPU): every id inside the
regions (the format before docs/adr/0062) and a base plus one journal a snapshot
(streams/worker/finished_log.py). Then the load of the last snapshot of each (a takeover).
The queued tickets' part of a snapshot is the same both ways and is left out.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matcher.queue.fold import RegionQueue
from streams.worker import finished_log, snapshots

START_MS = 1_767_225_600_000
WAVE_MS = 10_000
RETENTION_MS = 600_000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waves", type=int, default=90)
    parser.add_argument("--per-wave", type=int, default=10_000)
    args = parser.parse_args()
    inline, journaled = RegionQueue("1v1", "eu"), RegionQueue("1v1", "eu")
    log = finished_log.FinishedLog()
    tables: dict[str, dict[str, bytes]] = {"inline": {}, "journaled": {}}
    slots: dict[str, str | None] = {"inline": None, "journaled": None}
    costs: dict[str, list[float]] = {"inline": [], "journaled": []}
    print("| wave | ids remembered | inline ms | journaled ms |\n|---|---|---|---|")
    for wave in range(args.waves):
        at = START_MS + wave * WAVE_MS
        ids = [str(uuid.UUID(int=wave * args.per_wave + i)) for i in range(args.per_wave)]
        for queue in (inline, journaled):
            queue.finished.prune(at - RETENTION_MS)
            queue.finished.finish_all(ids, at)
        start = time.process_time()
        snapshot = snapshots.Snapshot(wave, {("1v1", "eu"): inline})
        records = snapshots.encode_snapshot(0, snapshot, slots["inline"])
        costs["inline"].append(time.process_time() - start)
        tables["inline"].update(records)
        slots["inline"] = "b" if slots["inline"] == "a" else "a"
        start = time.process_time()
        written = finished_log.write_segment(0, log, {("1v1", "eu"): journaled})
        snapshot = snapshots.Snapshot(wave, {("1v1", "eu"): journaled}, written.log)
        records = written.records + snapshots.encode_snapshot(0, snapshot, slots["journaled"])
        costs["journaled"].append(time.process_time() - start)
        tables["journaled"].update(records)
        for key in written.obsolete:
            del tables["journaled"][key]
        log = written.log
        slots["journaled"] = "b" if slots["journaled"] == "a" else "a"
        if wave % 10 == 9 or wave == args.waves - 1:
            print(
                f"| {wave + 1} | {len(inline.finished):,} | {costs['inline'][-1] * 1000:.0f} | "
                f"{costs['journaled'][-1] * 1000:.1f} |"
            )
    steady = slice(RETENTION_MS // WAVE_MS, None)  # once the window is full
    for name in ("inline", "journaled"):
        cost = statistics.mean(costs[name][steady] or costs[name])
        start = time.process_time()
        loaded = snapshots.decode_snapshot(0, tables[name].get)
        took = time.process_time() - start
        assert loaded is not None
        stored = sum(len(v) for v in tables[name].values())
        print(
            f"{name}: {cost * 1000:.1f} ms a snapshot once the window is full, "
            f"{cost / args.per_wave * 1e6:.2f} us an event; load {took * 1000:.0f} ms; "
            f"{stored / 1e6:.1f} MB stored in the table"
        )
    assert dict(inline.finished) == dict(journaled.finished)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
