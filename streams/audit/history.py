"""`wavematch explain --ticket`: a ticket's life re-derived from the log, one line a step
(joined, proposed, returned to the queue and why, timed out, placed, dequeued)."""

from __future__ import annotations

import heapq
import json
from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple

from matcher.explain_backfill import backfill_ticket_line
from matcher.explain_life import LifeStory
from matcher.queue.claims import ClaimDecided, ClaimRequested, SearchHeld
from matcher.queue.events import TicketJoined
from matcher.queue.lifecycle import NO_POLICY, BackfillResult, StageStatus
from matcher.queue.searches import LEAVE_CLAIM
from schemas.codec import decode_queue_event
from schemas.errors import InvalidEvent
from schemas.topics import QUEUE
from streams.audit.rederive import LogRecord, rederive
from streams.wire.inbound import to_domain
from streams.wire.tickets import written_reason
from streams.worker.folding import Folder


def ticket_history(
    folder: Folder,
    records: Sequence[LogRecord],
    ticket_id: str,
    after: LogRecord | None = None,
) -> list[str]:
    """What the fold decided about ``ticket_id``, in log order; empty if nothing.
    ``after``: only what records after that one decided (the story is still followed
    from the ticket's join, so a line after it knows who had answered).

    Notes: folds the whole queue log once (every partition: claims live elsewhere).
    """
    return [
        f"[partition {step.partition} offset {step.offset}] {step.text}"
        for step in ticket_steps(folder, records, ticket_id, after)
    ]


class TicketStep(NamedTuple):
    """One line of a ticket's story and the queue record whose fold decided it."""

    partition: int
    offset: int
    text: str


def ticket_steps(
    folder: Folder,
    records: Sequence[LogRecord],
    ticket_id: str,
    after: LogRecord | None = None,
) -> list[TicketStep]:
    """:func:`ticket_history`'s lines with the record of each."""
    queue_log = in_time_order([r for r in records if r.topic == QUEUE.name])
    mark = ticket_id.encode()
    values = [r.value or b"" for r in queue_log]
    several = any(b'"searches":[{' in value and mark in value for value in values)
    steps = []
    story: LifeStory | None = None
    telling = after is None
    for item in rederive(folder, queue_log):
        step = item.folded.step
        where = partial(TicketStep, item.source.partition, item.source.offset)
        rejection = item.folded.rejection
        if rejection is not None and telling and _names_ticket(item.source, ticket_id):
            named = rejection.field and rejection.field not in rejection.reason
            why = f"{rejection.field}: {rejection.reason}" if named else rejection.reason
            steps.append(where(f"dead-lettered ({rejection.code}), not applied: {why}"))
        if step is None:
            continue
        about = _about(step, ticket_id, several)
        if story is None and about:  # the ticket's queue is known from its first step
            story = _story(folder, item.source, ticket_id)
        if story is not None:  # why it went back or was dequeued (matcher/explain_life.py)
            about += story.follow(partial(_event, item.source), step)
        if telling:
            steps += [where(text) for text in about]
        telling = telling or item.source == after
    return steps


def in_time_order(queue_log: Sequence[LogRecord]) -> list[LogRecord]:
    """The records of every partition interleaved by their broker timestamps, each
    partition's kept in its own order (a ticket searching several places lives in
    several partitions, which an export writes one after the other); as given when a
    record has no timestamp."""
    if any(record.timestamp is None for record in queue_log):  # exported before stamps
        return list(queue_log)
    by_partition: dict[int, list[LogRecord]] = {}
    for record in queue_log:
        by_partition.setdefault(record.partition, []).append(record)
    return list(heapq.merge(*by_partition.values(), key=_stamp))


def _stamp(record: LogRecord) -> int:
    return record.timestamp or 0


def _story(folder: Folder, first: LogRecord, ticket_id: str) -> LifeStory:
    """The story of ``ticket_id``, whose first step was decided on ``first``."""
    queue = getattr(_event(first), "queue", None)
    policy = folder.policies.get(queue or "", NO_POLICY)
    return LifeStory(ticket_id, policy.placement_requeues)


def _names_ticket(record: LogRecord, ticket_id: str) -> bool:
    """Whether ``record`` (one the worker dead-lettered) is about ``ticket_id``: its event's
    ticket, or, when it did not decode, the ``ticket_id`` field of its JSON."""
    value = record.value or b""
    if ticket_id.encode() not in value:
        return False
    event = _event(record)
    if event is not None:
        ticket = getattr(event, "ticket", None)
        return getattr(ticket, "ticket_id", getattr(event, "ticket_id", None)) == ticket_id
    try:
        body = json.loads(value)
    except ValueError:  # neither decodable Avro nor JSON: nothing names a ticket
        return False
    return isinstance(body, dict) and body.get("ticket_id") == ticket_id


def _event(record: LogRecord) -> Any:
    """The record's domain event; None when it does not decode."""
    try:
        decoded = decode_queue_event(record.value or b"")
    except InvalidEvent:
        return None
    return to_domain(decoded)


def _about(step, ticket_id: str, several: bool = False) -> list[str]:  # type: ignore[no-untyped-def]
    """``several``: the ticket searches several places, so each line names its place."""
    out = []
    for status in step.statuses:
        if status.ticket_id == ticket_id and step.note == "joined":
            where = f" in {status.queue}/{status.region}" if several else ""
            out.append(f"searching{where} at place {status.position}")
    for output in step.outputs:
        if type(output) in _SEARCHES and output.ticket_id == ticket_id:
            line = _search_line(output)
            if line:
                out.append(line)
        elif isinstance(output, TicketJoined) and output.ticket.ticket_id == ticket_id:
            here = next(s for s in output.searches if s.region == output.region)
            after = f" after {here.open_after_ms} ms" if here.open_after_ms else " at once"
            out.append(f"copied to {output.queue}/{output.region}, opening{after}")
        elif isinstance(output, StageStatus) and output.ticket_id == ticket_id:
            text = f"{output.stage.name} after {output.waves_waited} waves"
            if output.match_id:
                text += f", match {output.match_id}"
            if output.deadline_ms is not None:
                text += f", deadline {output.deadline_ms}"
            if output.detail:
                text += f": {output.detail}"
            out.append(text)
        elif isinstance(output, BackfillResult):
            # Chosen (with the team gap) or passed over: the fold's choice says why.
            for choice in step.backfills:
                line = choice.session_id == output.session_id and backfill_ticket_line(
                    choice, ticket_id
                )
                if line:
                    out.append(line)
    for gone in step.dequeued:
        if gone.ticket_id == ticket_id:
            where = f" in {gone.queue}/{gone.region}" if several else ""
            said = written_reason(gone.reason)  # as its record says, not a name of ours
            text = f"dequeued {said}{where} after {gone.waves_waited} waves"
            if gone.match_id:
                text += f", match {gone.match_id}"
            if gone.detail:
                text += f": {gone.detail}"
            out.append(text)
    return out


_SEARCHES = (ClaimRequested, ClaimDecided, SearchHeld)


def _search_line(output: ClaimRequested | ClaimDecided | SearchHeld) -> str | None:
    """A line of a ticket searching several places (docs/adr/0145), or None."""
    place = f"{output.queue}/{output.region}"
    if isinstance(output, SearchHeld):  # docs/adr/0204
        by = f"match {output.match_id} in {output.holder[0]}/{output.holder[1]}"
        if output.held:
            return f"search in {place} pauses: {by} holds it"
        return f"search in {place} resumes: {by} was not made"
    if isinstance(output, ClaimRequested):
        if output.match_id is None:
            return None
        if output.match_id == LEAVE_CLAIM:  # held so that no match asking later wins it
            return f"left {place}: its claim holds the ticket against later matches"
        return f"matched tentatively in {place} by match {output.match_id}: asks its claim"
    if output.ended is not None:
        holder = output.holder or ("", "?", "?")
        why = "matched" if output.ended == "matched_elsewhere" else "left"
        return f"search in {place} ends: {why} in {holder[1]}/{holder[2]}"
    if output.match_id is not None:
        if output.granted:
            return f"claim granted to match {output.match_id} in {place}"
        holder = output.holder or ("", "?", "?")
        held = f"{holder[1]}/{holder[2]}"
        return f"claim refused to match {output.match_id} in {place}: held in {held}"
    verdict = "granted" if output.granted else f"refused (held by {output.holder})"
    return f"claim on {output.player_id} {verdict}"
