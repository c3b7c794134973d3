"""A Kafka client cancelled while it starts finishes starting before the cancellation goes
on, so that its stop closes every connection (aiokafka's bootstrap, cancelled halfway,
leaves its own open: aio-libs/aiokafka#715)."""

from __future__ import annotations

import asyncio

import pytest

from streams.connection import start_client


class SlowClient:
    def __init__(self, seconds: float) -> None:
        self.seconds, self.started, self.cancelled = seconds, False, False

    async def start(self) -> None:
        try:
            await asyncio.sleep(self.seconds)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        self.started = True


async def _cancelled_while_starting(client: SlowClient) -> None:
    task = asyncio.create_task(start_client(client))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_start_cancelled_halfway_runs_to_its_end_first() -> None:
    client = SlowClient(0.1)
    await _cancelled_while_starting(client)
    assert client.started and not client.cancelled


async def test_a_start_that_outlasts_its_grace_is_cancelled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("streams.connection.CLIENT_GRACE_S", 0.05)
    client = SlowClient(3600)
    await _cancelled_while_starting(client)
    assert client.cancelled and not client.started


async def test_an_uncancelled_start_is_a_start() -> None:
    client = SlowClient(0)
    await start_client(client)
    assert client.started
