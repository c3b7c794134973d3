"""A Kafka client's stop cancelled halfway still closes the client, and the cancellation
goes on: aiokafka's fetcher swallows a cancellation that reaches it while it closes, and
a task asked to stop (a worker's config follower) then ran on for good."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition

from streams.connection import Connection, start_client, stop_client
from streams.embedded.broker import EmbeddedBroker
from streams.worker.catchup import group_less_reader

pytestmark = pytest.mark.integration

TOPIC = "stop-test"

#: Event-loop steps after which the stop is cancelled: from its first (a task cancelled
#: before its first step never runs) to past its end.
STEPS = range(1, 16)


@pytest.fixture(scope="module")
def bootstrap() -> Iterator[str]:
    with EmbeddedBroker() as broker:
        yield broker.bootstrap


def _plain(bootstrap: str) -> Connection:
    return Connection(
        bootstrap=bootstrap,
        security_protocol="PLAINTEXT",
        sasl_mechanism=None,
        sasl_username=None,
        sasl_password=None,
        ssl_cafile=None,
        ssl_certfile=None,
        ssl_keyfile=None,
        ssl_key_password=None,
    )


async def _stop_cancelled_after(bootstrap: str, steps: int) -> tuple[bool, bool]:
    """(cancelled before it ended, the cancellation went on) for a fetching reader."""
    reader = group_less_reader(_plain(bootstrap))
    await start_client(reader)
    reader.assign([TopicPartition(TOPIC, 0)])
    await reader.getmany(timeout_ms=100)  # a fetch of its own is in flight from here
    stopping = asyncio.create_task(stop_client(reader))
    for _ in range(steps):
        await asyncio.sleep(0)
    cancelled = stopping.cancel()
    try:
        await stopping
    except asyncio.CancelledError:
        went_on = True
    else:
        went_on = False
    connected = [conn for conn in reader._client._conns.values() if conn.connected()]
    assert reader._closed and connected == [], f"open after {steps} steps"
    return cancelled, went_on


async def test_a_stop_cancelled_at_any_step_closes_the_client_and_is_cancelled(
    bootstrap: str,
) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait(TOPIC, b"x", partition=0)
    finally:
        await producer.stop()
    outcomes = {steps: await _stop_cancelled_after(bootstrap, steps) for steps in STEPS}
    swallowed = [
        steps for steps, (cancelled, went_on) in outcomes.items() if cancelled and not went_on
    ]
    assert swallowed == []
    assert any(cancelled for cancelled, _ in outcomes.values()), "no stop was cancelled halfway"
