"""The console's routes on the worker's Faust web server, and what each page reads.

The overview reads this worker's queue states (as ``/queues`` does) and the last records
of the waves, matches and dead-letter topics; the ticket and match pages re-derive their
answers from the queue log as `wavematch explain` does, in a thread so the worker's
event loop keeps ticking waves meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import faust
from aiokafka.errors import KafkaError
from pydantic import TypeAdapter, ValidationError

from schemas.codec import decode
from schemas.errors import InvalidEvent
from schemas.models import Id
from schemas.topics import CONFIG, DEADLETTER, MATCHES, QUEUE, WAVES
from streams.audit.answers import match_answer, ticket_answer
from streams.audit.rederive import LogRecord
from streams.audit.topics import read_recent, read_topics
from streams.connection import Connection, connection_of
from streams.console import pages
from streams.settings import Settings
from streams.worker.folding import Folder

#: Records shown per section: what an operator scans, not a history.
RECENT = 20
#: Alternatives shown per player on a match's page (`explain`'s default).
NEAREST = 3

#: Seconds a turned-away browser is told to wait before asking again.
RETRY_AFTER_S = 10
#: What a read of a topic raises while the broker is down (refused, reset, timed out).
BROKER_DOWN = (KafkaError, OSError)

#: Ids are at most this long in every schema (``Id``): a longer one cannot be in the log.
MAX_ID_CHARS = 128
#: An id as every schema takes it: one no event can carry is refused before the log is
#: read and folded for it.
_ID = TypeAdapter(Id)


def _is_id(text: str) -> bool:
    """Whether ``text`` is an id as the contract spells one; bytes of a query that are no
    UTF-8 arrive as U+FFFD, which no id holds."""
    if "\ufffd" in text:
        return False
    try:
        _ID.validate_python(text)
    except ValidationError:
        return False
    return True


QueueRows = Callable[[], list[dict[str, Any]]]
Answer = Callable[[Folder, list[LogRecord], str], list[str] | None]


def add_console(app: faust.App, settings: Settings, queue_rows: QueueRows) -> None:
    """Serve the console's three pages on ``app``'s web server (read-only GETs)."""
    connection = connection_of(settings)

    @app.page("/console")
    async def overview(web: Any, request: Any) -> Any:
        try:
            waves, matches, dead = await asyncio.gather(
                read_recent(connection, WAVES.name, RECENT),
                read_recent(connection, MATCHES.name, RECENT),
                read_recent(connection, DEADLETTER.name, RECENT),
            )
        except BROKER_DOWN:
            return broker_unreachable(web, "wavematch console", connection)
        return web.html(
            pages.overview(
                [_queue(row) for row in queue_rows()],
                _newest(_bodies(waves, "WaveClosed")),
                _newest([_match(b) for b in _bodies(matches, "MatchCreated", "MatchProposed")]),
                _newest([_dead(b) for b in _bodies(dead, "DeadLetter")]),
            )
        )

    gate = AnswerGate()

    async def answer_page(web: Any, request: Any, kind: str, answer: Answer) -> Any:
        async def read() -> list[LogRecord]:
            return await read_topics(connection, (QUEUE.name, WAVES.name, CONFIG.name))

        try:
            return await gate.answer(web, request, kind, answer, read, settings)
        except BROKER_DOWN:
            return broker_unreachable(web, kind, connection)

    @app.page("/console/ticket")
    async def ticket(web: Any, request: Any) -> Any:
        return await answer_page(web, request, "ticket", ticket_answer)

    @app.page("/console/match")
    async def match(web: Any, request: Any) -> Any:
        return await answer_page(
            web, request, "match", lambda f, r, i: match_answer(f, r, i, NEAREST)
        )


def broker_unreachable(web: Any, title: str, connection: Connection) -> Any:
    """The page a console page gives while its topics cannot be read: a worker's web
    server answers through a broker outage, its pages come back with the broker."""
    line = f"the broker {connection.bootstrap} is unreachable: retry when it is back"
    headers = {"Retry-After": str(RETRY_AFTER_S)}
    return web.html(pages.answer(title, None, line), status=503, headers=headers)


class AnswerGate:
    """Answers the ticket and match pages one at a time: each re-reads and folds the
    whole queue log in a thread, and several at once multiply the worker's memory and
    starve its event loop, whose waves then close late. A page asked for meanwhile is
    told to come back (503 with ``Retry-After``), not queued behind the others."""

    def __init__(self) -> None:
        self._answering = asyncio.Lock()

    async def answer(
        self,
        web: Any,
        request: Any,
        kind: str,
        answer: Answer,
        read: Callable[[], Awaitable[list[LogRecord]]],
        settings: Settings,
    ) -> Any:
        """``kind``'s page for the id in the query: `explain`'s lines, or why there are none."""
        ident = request.query.get("id", "").strip()
        if not _is_id(ident):
            problem = f"id: give a {kind} id of 1 to {MAX_ID_CHARS} printable characters"
            return web.html(pages.answer(kind, None, problem), status=400)
        if self._answering.locked():
            busy = "another ticket or match page is being read from the log; retry when it is done"
            headers = {"Retry-After": str(RETRY_AFTER_S)}
            return web.html(pages.answer(kind, None, busy), status=503, headers=headers)
        async with self._answering:
            records = await read()
            folder = Folder.from_settings(settings)
            lines = await asyncio.to_thread(answer, folder, records, ident)
        if lines is None:
            missing = f"{kind} {ident}: not in this log under this configuration"
            return web.html(pages.answer(kind, None, missing), status=404)
        return web.html(pages.answer(f"{kind} {ident}", lines, ""))


def _bodies(records: list[LogRecord], *types: str) -> list[dict[str, Any]]:
    bodies = []
    for record in records:
        try:
            event = decode(record.value or b"")
        except InvalidEvent:
            continue  # a record another tool wrote: not the console's to show
        if type(event).__name__ in types:
            bodies.append({"type": type(event).__name__, **event.model_dump(mode="python")})
    return bodies


def _newest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    key = next(
        (k for k in ("closed_at_ms", "at_ms", "failed_at_ms") if rows and k in rows[0]), None
    )
    return sorted(rows, key=lambda row: row[key], reverse=True)[:RECENT] if key else rows


def _queue(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "waves": row["waves_closed"]}


def _match(body: dict[str, Any]) -> dict[str, Any]:
    at_ms = body.get("created_at_ms") or body.get("proposed_at_ms")
    tickets = dict.fromkeys(s["ticket_id"] for team in body["teams"] for s in team["players"])
    return {**body, "at_ms": at_ms, "tickets": list(tickets)}


def _dead(body: dict[str, Any]) -> dict[str, Any]:
    # The original record may hold what a platform should not have sent: never shown.
    return {k: v for k, v in body.items() if k not in ("original", "original_key")}
