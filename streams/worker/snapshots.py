"""A partition's queue state saved into the snapshot topic, and read back.

Why snapshots and not a row per ticket: a row per join and one per matched ticket would
cost a record for every event and make a 10,000-player wave write tens of thousands of
records to close. Instead the snapshot topic holds, per input partition, one snapshot of
every region queue in it, written every ``snapshot_min_events`` events as a few large
records; a takeover loads the snapshot and re-folds the input log after it
(docs/adr/0005-state-snapshots-and-log-catch-up.md).

Layout, all in snapshot partition P (the input partition's number):
``P/manifest`` -> JSON {offset, slot, chunks, sha256, finished}; ``P/<slot>/<i>`` -> chunk
bytes. Two slots alternate so a half-written snapshot never replaces the last complete
one: the manifest is written after its chunks, and a partition is ordered.
The regions' finished ticket ids live in segments of their own, listed by the manifest's
``finished`` (streams/worker/finished_log.py, docs/adr/0062); a manifest without it (an
older snapshot) has them inside the regions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from matcher.queue.claims import ClaimBook
from matcher.queue.fold import RegionQueue
from matcher.queue.records import queue_from_record, queue_to_record
from streams.worker.finished_log import FinishedLog, read_segments
from streams.worker.packed import CorruptSnapshot, pack, unpack

SLOTS = ("a", "b")

__all__ = ["CorruptSnapshot", "Snapshot", "decode_snapshot", "encode_snapshot"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every region queue of one input partition after applying ``offset``.

    ``finished``: the segments holding the regions' finished ids; None: inside the regions.
    """

    offset: int
    regions: Mapping[tuple[str, str], RegionQueue]
    finished: FinishedLog | None = None
    #: The partition's claim book (docs/adr/0110); None when it holds nothing.
    claims: ClaimBook | None = None


def manifest_key(partition: int) -> str:
    return f"{partition}/manifest"


def chunk_key(partition: int, slot: str, index: int) -> str:
    return f"{partition}/{slot}/{index}"


def encode_snapshot(
    partition: int, snapshot: Snapshot, previous_slot: str | None
) -> list[tuple[str, bytes]]:
    """Return the table records of a snapshot, manifest last (its finished segments are
    written before it: :func:`streams.worker.finished_log.write_segment`)."""
    inline = snapshot.finished is None
    regions = [queue_to_record(q, with_finished=inline) for q in snapshot.regions.values()]
    body: dict[str, Any] = {"offset": snapshot.offset, "regions": regions}
    claims = snapshot.claims
    if claims is not None and (claims.holders or claims.released):
        body["claims"] = claims.to_record()
    chunks, sha256 = pack(body)
    slot = SLOTS[1] if previous_slot == SLOTS[0] else SLOTS[0]
    records = [(chunk_key(partition, slot, i), chunk) for i, chunk in enumerate(chunks)]
    manifest: dict[str, Any] = {
        "offset": snapshot.offset,
        "slot": slot,
        "chunks": len(chunks),
        "sha256": sha256,
    }
    if snapshot.finished is not None:
        manifest["finished"] = snapshot.finished.to_manifest()
    records.append((manifest_key(partition), json.dumps(manifest).encode()))
    return records


def decode_snapshot(
    partition: int, read: Callable[[str], bytes | None]
) -> tuple[Snapshot, str] | None:
    """Read partition ``partition``'s last complete snapshot through ``read(key)``, or None."""
    raw_manifest = read(manifest_key(partition))
    if raw_manifest is None:
        return None
    manifest: dict[str, Any] = json.loads(raw_manifest)
    keys = [chunk_key(partition, manifest["slot"], i) for i in range(manifest["chunks"])]
    body = unpack(read, keys, manifest["sha256"], f"partition {partition}: snapshot")
    regions = {}
    for record in body["regions"]:
        queue = queue_from_record(record)
        regions[(queue.queue, queue.region)] = queue
    finished = None
    if "finished" in manifest:
        finished = FinishedLog.from_manifest(manifest["finished"])
        read_segments(partition, finished, regions, read)
    claims = ClaimBook.from_record(body["claims"]) if "claims" in body else None
    return Snapshot(body["offset"], regions, finished, claims), manifest["slot"]
