"""The topic map in one place: names, keys, partitioning, value schemas, retention intent.

Input partitioning is the contract that makes waves deterministic: every event of one
(queue, region) - its tickets and its WaveTicks - carries the key ``"<queue>/<region>"``
and so lands in one partition, in one order. The partition is the Java client's default:
``toPositive(murmur2(key)) % partitions``. aiokafka and the Java client do this out of the
box; librdkafka clients (confluent-kafka, kcat, Go, .NET) must set
``partitioner=murmur2_random``, because librdkafka's own default (crc32) differs.
"""

from __future__ import annotations

import functools
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from schemas.models import (
    QUEUE_EVENTS,
    BackfillResult,
    ConfigPublished,
    DeadLetter,
    MatchCreated,
    MatchProposed,
    Record,
    TicketDequeued,
    TicketStatus,
    WaveClosed,
)

#: Retention "forever" in Kafka's terms.
FOREVER: Final = -1
_DAY_MS: Final = 86_400_000
_KEY_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True, slots=True)
class Topic:
    """One topic of the contract, with the intent its deployment must honour."""

    name: str
    values: tuple[type[Record], ...]
    key: str
    partitioning: str
    cleanup_policy: str
    retention_ms: int
    doc: str
    #: "LogAppendTime": the broker stamps each record when it appends it, so a producer
    #: cannot date its records (docs/adr/0074). None: the producer's CreateTime.
    timestamp_type: str | None = None

    def config(self) -> dict[str, str]:
        """Return the Kafka topic configuration that expresses the intent."""
        config = {"cleanup.policy": self.cleanup_policy, "retention.ms": str(self.retention_ms)}
        if self.timestamp_type is not None:
            config["message.timestamp.type"] = self.timestamp_type
        return config


_MURMUR2 = "murmur2 of the key bytes, as the Java client's default partitioner"

QUEUE: Final = Topic(
    name="wavematch.queue.v1",
    values=QUEUE_EVENTS,
    key='"<queue>/<region>" in UTF-8, for example "1v1/eu" (see queue_key); ClaimRequested and '
    'ClaimReleased: "player/<player_id>" (see claim_key); SearchClaim REQUESTED and RELEASED: '
    '"search/<ticket_id>" (see search_key); SearchClaim GRANTED, REFUSED and ENDED and '
    'SearchHeld: the "<queue>/<region>" of the place answered or told',
    partitioning=f"{_MURMUR2}; one (queue, region) lives wholly in one partition. Never change "
    "the partition count of a live topic: it moves keys to other partitions mid-stream.",
    cleanup_policy="delete",
    retention_ms=FOREVER,
    doc="Queue input: tickets from platforms and wave ticks from the service's timer. It is "
    "the log of truth that every match is re-derived from, so it is kept forever. Its record "
    "timestamps are the broker's (LogAppendTime): a new tick, or a join dated ahead, whose "
    "own time is too far from its record's is dead-lettered (implausible_time); a join dated "
    "far back waits from the tolerance's bound.",
    timestamp_type="LogAppendTime",
)
MATCHES: Final = Topic(
    name="wavematch.matches.v1",
    values=(MatchCreated, MatchProposed, BackfillResult),
    key="the match id in UTF-8 (BackfillResult: the session id)",
    partitioning=_MURMUR2,
    cleanup_policy="delete",
    retention_ms=FOREVER,
    doc="Matches created by waves (and proposed, in queues with a ready check), for game "
    "servers and the platform; kept for audit.",
)
CLEANUP: Final = Topic(
    name="wavematch.cleanup.v1",
    values=(TicketDequeued,),
    key="the ticket id in UTF-8",
    partitioning=_MURMUR2,
    cleanup_policy="delete",
    retention_ms=7 * _DAY_MS,
    doc="One TicketDequeued per ticket that left the queue state: matched, left, expired "
    "or rejected. Consumers act on it within days; the queue log is the audit record.",
)
STATUS: Final = Topic(
    name="wavematch.status.v1",
    values=(TicketStatus,),
    key="the ticket id in UTF-8",
    partitioning=_MURMUR2,
    cleanup_policy="compact,delete",
    retention_ms=_DAY_MS,
    doc="Pushed status of waiting tickets. Compacted so the latest status per ticket stays, "
    "and deleted after a day because a ticket's search is over long before that.",
)
WAVES: Final = Topic(
    name="wavematch.waves.v1",
    values=(WaveClosed,),
    key='"<queue>/<region>" in UTF-8, as on the queue topic',
    partitioning=_MURMUR2,
    cleanup_policy="delete",
    retention_ms=FOREVER,
    doc="One summary per closed wave, for dashboards and audits; small, kept forever.",
)
DEADLETTER: Final = Topic(
    name="wavematch.deadletter.v1",
    values=(DeadLetter,),
    key="the original message's key, unchanged (none when it had none)",
    partitioning=_MURMUR2,
    cleanup_policy="delete",
    retention_ms=30 * _DAY_MS,
    doc="Input messages that could not be decoded or validated, with the reason and the "
    "original bytes; kept a month for the platform team to fix the sender.",
)

CONFIG: Final = Topic(
    name="wavematch.config.v1",
    values=(ConfigPublished,),
    key='the config fingerprint in UTF-8; "published" for `wavematch config publish`\'s',
    partitioning=_MURMUR2,
    cleanup_policy="compact",
    retention_ms=FOREVER,
    doc="The configuration behind each config fingerprint, published by every worker as it "
    "starts, so that a replay needs only the log (docs/adr/0075). Compacted: one record per "
    "fingerprint is enough, and it is kept as long as the waves that carry it. "
    "`wavematch config publish` writes its configuration under its fingerprint and under "
    'the key "published": the last valid record under that key is the configuration in '
    "force, which each region switches to at its next tick (docs/adr/0160).",
)
TOPICS: Final[tuple[Topic, ...]] = (QUEUE, MATCHES, CLEANUP, STATUS, WAVES, DEADLETTER, CONFIG)
BY_NAME: Final[dict[str, Topic]] = {topic.name: topic for topic in TOPICS}


@functools.lru_cache(maxsize=1_024)  # a worker writes to few places: each checked once
def queue_key(queue: str, region: str) -> bytes:
    """Return the key of a queue event: ``"<queue>/<region>"`` in UTF-8.

    >>> queue_key("1v1", "eu")
    b'1v1/eu'
    """
    for what, value in (("queue", queue), ("region", region)):
        if not _KEY_PART.fullmatch(value):
            raise ValueError(f"{what} {value!r} must be 1-64 of A-Z a-z 0-9 _ . - (no '/')")
    return f"{queue}/{region}".encode()


def claim_key(player_id: str) -> bytes:
    """Return the key of a player's ClaimRequested and ClaimReleased (docs/adr/0110).

    >>> claim_key("p-4411")
    b'player/p-4411'
    """
    return b"player/" + player_id.encode("utf-8")


def search_key(ticket_id: str) -> bytes:
    """Return the key of a SearchClaim REQUESTED or RELEASED (docs/adr/0145).

    >>> search_key("t-2f9c1b7e")
    b'search/t-2f9c1b7e'
    """
    return b"search/" + ticket_id.encode("utf-8")


def murmur2(key: bytes) -> int:
    """Return Kafka's murmur2 hash of ``key`` as an unsigned 32-bit number.

    This is ``org.apache.kafka.common.utils.Utils.murmur2`` (seed 0x9747b28c); Java's
    signed result is this value minus 2**32 when it is 2**31 or more.

    >>> murmur2(b"21") - 2**32  # Kafka's UtilsTest: -973932308
    -973932308
    """
    m, length = 0x5BD1E995, len(key)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    whole = length & ~3
    for (k,) in struct.iter_unpack("<I", key[:whole]):
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail = key[whole:]
    if len(tail) == 3:
        h ^= tail[2] << 16
    if len(tail) >= 2:
        h ^= tail[1] << 8
    if tail:
        h = ((h ^ tail[0]) * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    return h ^ (h >> 15)


def murmur2_partition(key: bytes, partitions: int) -> int:
    """Return the partition the Java client's default partitioner picks for ``key``.

    >>> murmur2_partition(b"1v1/eu", 1)
    0
    """
    if partitions < 1:
        raise ValueError(f"partitions must be at least 1, got {partitions}")
    return (murmur2(key) & 0x7FFFFFFF) % partitions


def murmur2_partitions(keys: Sequence[bytes], partitions: int) -> list[int]:
    """``[murmur2_partition(key, partitions) for key in keys]``, vectorised over keys of
    equal length: a 10,000-player wave publishes 15,000 records, and every join one.

    >>> murmur2_partitions([b"1v1/eu", b"21"], 3) == [murmur2_partition(b"1v1/eu", 3),
    ...                                              murmur2_partition(b"21", 3)]
    True
    """
    if partitions < 1:
        raise ValueError(f"partitions must be at least 1, got {partitions}")
    hashes = _murmur2_array(keys)
    return ((hashes & 0x7FFFFFFF) % partitions).tolist()  # type: ignore[no-any-return]


def murmur2_many(keys: Sequence[bytes]) -> list[int]:
    """``[murmur2(key) for key in keys]``, with NumPy over each group of equal-length keys."""
    return _murmur2_array(keys).tolist()  # type: ignore[no-any-return]


def _murmur2_array(keys: Sequence[bytes]) -> Any:
    """The hashes of ``keys`` as a NumPy uint64 array; no Python loop over the keys but
    for groups of fewer than 16 keys of one length (NumPy's set-up costs more there)."""
    import numpy as np  # only the worker's publisher needs it: keep `schemas` light

    lengths = np.fromiter(map(len, keys), dtype=np.intp, count=len(keys))
    hashes = np.zeros(len(keys), dtype=np.uint64)
    if not len(keys):
        return hashes
    # An object array picks a group's keys in C (keys[i] for each index would not).
    column = np.empty(len(keys), dtype=object)
    column[:] = keys
    m, mask = np.uint64(0x5BD1E995), np.uint64(0xFFFFFFFF)
    for length in np.unique(lengths).tolist():
        indexes = np.flatnonzero(lengths == length)
        if len(indexes) < 16:
            for index in indexes.tolist():
                hashes[index] = murmur2(keys[index])
            continue
        rows = np.frombuffer(b"".join(column[indexes]), dtype=np.uint8)
        rows = rows.reshape(len(indexes), length)
        h = np.full(len(indexes), (0x9747B28C ^ length) & 0xFFFFFFFF, dtype=np.uint64)
        whole = length & ~3
        # Products stay below 2**63 (32-bit by 31-bit), so uint64 is exact before masking.
        words = rows[:, :whole].copy().view("<u4").astype(np.uint64)
        for word in range(words.shape[1]):
            k = (words[:, word] * m) & mask
            k ^= k >> np.uint64(24)
            k = (k * m) & mask
            h = ((h * m) & mask) ^ k
        tail = rows[:, whole:].astype(np.uint64)
        if tail.shape[1] == 3:
            h ^= tail[:, 2] << np.uint64(16)
        if tail.shape[1] >= 2:
            h ^= tail[:, 1] << np.uint64(8)
        if tail.shape[1]:
            h = ((h ^ tail[:, 0]) * m) & mask
        h ^= h >> np.uint64(13)
        h = (h * m) & mask
        h ^= h >> np.uint64(15)
        hashes[indexes] = h
    return hashes


def queue_partition(queue: str, region: str, partitions: int) -> int:
    """Return the partition of ``wavematch.queue.v1`` that holds ``queue`` in ``region``."""
    return murmur2_partition(queue_key(queue, region), partitions)


def topics_table() -> str:
    """The Markdown table of :data:`TOPICS` that schemas/README.md shows.

    >>> topics_table().splitlines()[4]
    '| `wavematch.cleanup.v1` | TicketDequeued | the ticket id in UTF-8 | `delete` | 7 d |'
    """
    lines = ["| topic | values | key | cleanup | retention |", "|---|---|---|---|---|"]
    for topic in TOPICS:
        values = ", ".join(value.__name__ for value in topic.values)
        kept = "forever" if topic.retention_ms == FOREVER else f"{topic.retention_ms // _DAY_MS} d"
        lines.append(
            f"| `{topic.name}` | {values} | {topic.key} | `{topic.cleanup_policy}` | {kept} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(topics_table())
