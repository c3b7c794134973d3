"""The queue consumer's supervision (streams/worker/app.py): whatever ends it but the
worker's own stop crashes the worker, a cancellation from inside the client included."""

from __future__ import annotations

import asyncio

import pytest

from streams.worker.app import run_or_crash


async def _crashes(run) -> list[BaseException]:  # type: ignore[no-untyped-def]
    crashed: list[BaseException] = []

    async def crash(error: BaseException) -> None:
        crashed.append(error)

    await run_or_crash(run, crash)
    return crashed


async def test_a_cancellation_raised_inside_the_client_crashes_the_worker() -> None:
    async def fetch_cancelled_by_the_client() -> None:
        fetch = asyncio.get_running_loop().create_future()
        fetch.cancel()  # the client's own future, not this task
        await fetch

    (error,) = await _crashes(fetch_cancelled_by_the_client)
    assert "cancelled inside the Kafka client" in str(error)


async def test_a_failure_crashes_the_worker() -> None:
    async def broken() -> None:
        raise OSError("connection reset")

    (error,) = await _crashes(broken)
    assert isinstance(error, OSError)


async def test_the_workers_own_stop_is_a_stop_not_a_crash() -> None:
    started = asyncio.Event()
    crashed: list[BaseException] = []

    async def consume() -> None:
        started.set()
        await asyncio.sleep(3600)

    async def crash(error: BaseException) -> None:
        crashed.append(error)

    task = asyncio.create_task(run_or_crash(consume, crash))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert crashed == []
