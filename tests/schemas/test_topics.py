"""The topic map and the partitioner that keeps one (queue, region) in one partition."""

from __future__ import annotations

import pytest
from aiokafka.partitioner import DefaultPartitioner
from aiokafka.partitioner import murmur2 as aiokafka_murmur2
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.models import EVENTS
from schemas.topics import (
    BY_NAME,
    QUEUE,
    TOPICS,
    murmur2,
    murmur2_many,
    murmur2_partition,
    murmur2_partitions,
    queue_key,
    queue_partition,
)

# org.apache.kafka.common.utils.UtilsTest#testMurmur2 (Java's signed ints).
JAVA_VECTORS = [
    (b"21", -973932308),
    (b"foobar", -790332482),
    (b"a-little-bit-long-string", -985981536),
    (b"a-little-bit-longer-string", -1486304829),
    (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
    (b"abc", 479470107),
]


@pytest.mark.parametrize(("key", "java"), JAVA_VECTORS)
def test_murmur2_matches_the_java_client(key: bytes, java: int) -> None:
    assert murmur2(key) == java % 2**32
    # Java: Utils.toPositive(murmur2(key)) % n
    assert murmur2_partition(key, 12) == (java & 0x7FFFFFFF) % 12


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=70), st.integers(1, 1000))
def test_partition_matches_aiokafkas_default_partitioner(key: bytes, partitions: int) -> None:
    assert murmur2(key) == aiokafka_murmur2(key)
    every = list(range(partitions))
    assert murmur2_partition(key, partitions) == DefaultPartitioner()(key, every, every)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.binary(max_size=12), max_size=120),
    st.lists(st.binary(min_size=36, max_size=36), min_size=16, max_size=40),
    st.integers(1, 64),
)
def test_the_vectorised_hash_equals_the_scalar_one(
    short: list[bytes], uuids: list[bytes], partitions: int
) -> None:
    keys = short + uuids + [bytes([n]) * 5 for n in range(20)]  # groups above the cut-off
    assert murmur2_many(keys) == [murmur2(key) for key in keys]
    assert murmur2_partitions(keys, partitions) == [
        murmur2_partition(key, partitions) for key in keys
    ]
    assert (
        murmur2_many([key for key, _ in JAVA_VECTORS] * 20)
        == [java % 2**32 for _, java in JAVA_VECTORS] * 20
    )


def test_librdkafka_murmur2_random_puts_keys_where_we_do() -> None:
    confluent_kafka = pytest.importorskip("confluent_kafka")

    def partitions_by(partitioner: str) -> tuple[int, dict[bytes, int]]:
        producer = confluent_kafka.Producer(
            {"test.mock.num.brokers": 1, "partitioner": partitioner, "log_level": 0}
        )
        placed: dict[bytes, int] = {}
        keys = [queue_key(f"q{i}", "eu") for i in range(64)] + ["ü/é".encode()]
        for key in keys:
            producer.produce(
                "placement",
                key=key,
                value=b"x",
                on_delivery=lambda err, msg: placed.__setitem__(msg.key(), msg.partition()),
            )
        assert producer.flush(20) == 0
        count = len(producer.list_topics("placement", timeout=10).topics["placement"].partitions)
        return count, placed

    count, placed = partitions_by("murmur2_random")
    assert count > 1 and len(placed) == 65
    assert placed == {key: murmur2_partition(key, count) for key in placed}
    # librdkafka's own default hashes differently: the setting is not optional.
    count, default = partitions_by("consistent_random")
    assert default != {key: murmur2_partition(key, count) for key in default}


def test_queue_key_and_partition() -> None:
    assert queue_key("5v5-ranked", "eu-west") == b"5v5-ranked/eu-west"
    assert queue_partition("1v1", "eu", 8) == murmur2_partition(b"1v1/eu", 8)


@pytest.mark.parametrize(
    ("queue", "region"),
    [("1v1/x", "eu"), ("1v1", ""), ("", "eu"), ("1v1", "eu west"), ("-1v1", "eu")],
)
def test_queue_key_refuses_parts_that_would_make_keys_ambiguous(queue: str, region: str) -> None:
    with pytest.raises(ValueError, match="must be 1-64 of"):
        queue_key(queue, region)


def test_partitions_must_be_positive() -> None:
    with pytest.raises(ValueError):
        murmur2_partition(b"k", 0)


def test_topic_map_names_every_event_once() -> None:
    assert [t.name for t in TOPICS] == [
        "wavematch.queue.v1",
        "wavematch.matches.v1",
        "wavematch.cleanup.v1",
        "wavematch.status.v1",
        "wavematch.waves.v1",
        "wavematch.deadletter.v1",
        "wavematch.config.v1",
    ]
    carried = [model.__name__ for topic in TOPICS for model in topic.values]
    assert sorted(carried) == sorted(EVENTS)
    assert [m.__name__ for m in QUEUE.values] == [
        "TicketJoined",
        "TicketLeft",
        "WaveTick",
        "ReadyCheckAnswered",
        "PlacementReported",
        "ClaimRequested",
        "ClaimDecided",
        "ClaimReleased",
        "BackfillRequested",
        "BackfillCancelled",
        "SearchClaim",
        "SearchHeld",
    ]
    assert BY_NAME["wavematch.status.v1"].config() == {
        "cleanup.policy": "compact,delete",
        "retention.ms": "86400000",
    }
    assert QUEUE.config()["retention.ms"] == "-1"
