"""The console's ticket and match pages answer one at a time: each folds the whole queue
log, and several at once starved the worker's event loop (waves closed a minute late)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from streams.console.views import AnswerGate
from streams.settings import load_settings


class Web:
    """What the gate asks of Faust's web: an HTML response with a status and headers."""

    def html(self, body: str, status: int = 200, headers: dict[str, str] | None = None) -> Any:
        return status, dict(headers or {}), body


class Request:
    def __init__(self, ident: str) -> None:
        self.query = {"id": ident}


def test_a_page_asked_while_another_is_answered_is_told_to_come_back() -> None:
    settings = load_settings(broker_url="kafka://localhost:1")
    release = threading.Event()
    folded: list[str] = []

    def slow_answer(folder: Any, records: Any, ident: str) -> list[str]:
        release.wait(10)
        folded.append(ident)
        return [f"the life of {ident}"]

    async def read() -> list[Any]:
        return []

    async def main() -> tuple[Any, Any, Any]:
        gate = AnswerGate()
        first = asyncio.ensure_future(
            gate.answer(Web(), Request("t-1"), "ticket", slow_answer, read, settings)
        )
        await asyncio.sleep(0.2)  # the first is being answered in its thread
        second = await gate.answer(Web(), Request("t-2"), "ticket", slow_answer, read, settings)
        release.set()
        answered = await first
        third = await gate.answer(Web(), Request("t-3"), "ticket", slow_answer, read, settings)
        return answered, second, third

    answered, second, third = asyncio.run(main())
    assert answered[0] == 200 and "the life of t-1" in answered[2]
    assert second[0] == 503 and second[1] == {"Retry-After": "10"}
    assert "being read from the log; retry" in second[2]
    assert third[0] == 200  # once the first is done, the next is answered
    assert folded == ["t-1", "t-3"]
