"""A partition's finished ticket ids in its snapshots: one base, then one journal a snapshot.

Why (docs/adr/0062): a busy region remembers the ids of its retention window (600 s of
10,000-player waves: ~600,000), and writing them all into every snapshot cost ~0.8 s
each, every few thousand events. Instead each snapshot writes one *segment*: the
journal of writes and prunes since the previous one
(:meth:`matcher.queue.finished.FinishedTickets.take_journal`). The first segment, and
one whenever the segments since the base hold more than twice the ids still remembered
(plus ``MIN_REWRITE``), is a new *base*: every region's whole map. Replaying base and
journals in order rebuilds each map exactly, entries and order. Per id remembered that
is O(1) written per snapshot, amortised, instead of O(all remembered ids).

Records, beside the snapshot's own (streams/worker/snapshots.py), in the same snapshot
partition P: ``P/finished/<seq>/<i>`` -> chunk i of segment seq (zlib'd JSON
``{"regions": [[queue, region, reset, journal], ...]}``). The manifest lists the live
segments, base first; segments replaced by a newer base are deleted (tombstones, which
compaction removes on Apache Kafka) after the manifest that no longer needs them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from matcher.queue.fold import RegionQueue
from streams.worker.packed import CorruptSnapshot, pack, unpack

#: A base is rewritten when the segments since it hold more ids than twice the ids
#: remembered plus this (a quiet partition need not rewrite its base every snapshot).
MIN_REWRITE = 10_000

Regions = Mapping[tuple[str, str], RegionQueue]


@dataclass(frozen=True, slots=True)
class Segment:
    """One written segment: its number, its chunk count and the sha256 of its bytes."""

    seq: int
    chunks: int
    sha256: str


@dataclass(slots=True)
class FinishedLog:
    """The live segments of a partition (base first) and the ids written since the base."""

    segments: list[Segment] = field(default_factory=list)
    written: int = 0

    def to_manifest(self) -> dict[str, Any]:
        return {
            "segments": [[s.seq, s.chunks, s.sha256] for s in self.segments],
            "written": self.written,
        }

    @classmethod
    def from_manifest(cls, record: Mapping[str, Any]) -> FinishedLog:
        return cls([Segment(*row) for row in record["segments"]], record["written"])


@dataclass(frozen=True, slots=True)
class Written:
    """What a snapshot writes for its finished ids: ``records`` before its manifest,
    ``obsolete`` keys (to delete) after it, and the log its manifest records."""

    records: list[tuple[str, bytes]]
    obsolete: list[str]
    log: FinishedLog


def chunk_key(partition: int, seq: int, index: int) -> str:
    return f"{partition}/finished/{seq}/{index}"


def write_segment(partition: int, log: FinishedLog, regions: Regions) -> Written:
    """The segment of this snapshot: every region's journal, or a new base when due.

    A region not journaling yet (new since the last snapshot, or loaded from an older
    snapshot format) is written whole and starts its journal. Notes: O(journal entries),
    O(remembered ids) for a base.
    """
    remembered = sum(len(queue.finished) for queue in regions.values())
    rebase = not log.segments or log.written > 2 * remembered + MIN_REWRITE
    parts: list[list[Any]] = []
    written = 0
    for (queue, region), state in regions.items():
        finished = state.finished
        whole = rebase or not finished.journaling
        journal = finished.take_journal()
        if whole:
            journal = finished.as_journal()
        if whole or journal:
            parts.append([queue, region, whole, journal])
            written += sum(len(entry[1]) if len(entry) == 2 else 1 for entry in journal)
    if not parts:
        return Written([], [], log)
    seq = log.segments[-1].seq + 1 if log.segments else 0
    chunks, sha256 = pack({"regions": parts})
    records = [(chunk_key(partition, seq, i), chunk) for i, chunk in enumerate(chunks)]
    segment = Segment(seq, len(chunks), sha256)
    if not rebase:
        return Written(records, [], FinishedLog([*log.segments, segment], log.written + written))
    obsolete = [chunk_key(partition, s.seq, i) for s in log.segments for i in range(s.chunks)]
    return Written(records, obsolete, FinishedLog([segment], written))


def read_segments(
    partition: int, log: FinishedLog, regions: Regions, read: Callable[[str], bytes | None]
) -> None:
    """Rebuild the regions' finished ids from the log's segments; each region journals on.

    Notes: O(ids in the segments).
    """
    for segment in log.segments:
        keys = [chunk_key(partition, segment.seq, i) for i in range(segment.chunks)]
        what = f"partition {partition}: finished segment {segment.seq}"
        for queue, region, whole, journal in unpack(read, keys, segment.sha256, what)["regions"]:
            state = regions.get((queue, region))
            if state is None:
                raise CorruptSnapshot(f"partition {partition}: no region {queue}/{region}")
            state.replay_finished(journal, from_scratch=bool(whole))
    for state in regions.values():
        state.finished.take_journal()  # what follows goes into the next segment
