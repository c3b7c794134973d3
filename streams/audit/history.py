"""`wavematch explain --ticket`: a ticket's life re-derived from the log, one line a step
(joined, proposed, returned to the queue and why, timed out, placed, dequeued)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from matcher.explain_backfill import backfill_ticket_line
from matcher.explain_life import LifeStory
from matcher.queue.claims import ClaimDecided
from matcher.queue.lifecycle import NO_POLICY, BackfillResult, StageStatus
from schemas.codec import decode_queue_event
from schemas.errors import InvalidEvent
from schemas.topics import QUEUE
from streams.audit.rederive import LogRecord, rederive
from streams.wire.inbound import to_domain
from streams.worker.folding import Folder


def ticket_history(folder: Folder, records: Sequence[LogRecord], ticket_id: str) -> list[str]:
    """What the fold decided about ``ticket_id``, in log order; empty if nothing.

    Notes: folds the whole queue log once (every partition: claims live elsewhere).
    """
    queue_log = [r for r in records if r.topic == QUEUE.name]
    lines = []
    story: LifeStory | None = None
    for item in rederive(folder, queue_log):
        step = item.folded.step
        if step is None:
            continue
        where = f"[partition {item.source.partition} offset {item.source.offset}]"
        about = _about(step, ticket_id)
        if story is None and about:  # the ticket's queue is known from its first step
            story = _story(folder, item.source, ticket_id)
        if story is not None:  # why it went back or was dequeued (matcher/explain_life.py)
            about += story.follow(partial(_event, item.source), step)
        lines += [f"{where} {text}" for text in about]
    return lines


def _story(folder: Folder, first: LogRecord, ticket_id: str) -> LifeStory:
    """The story of ``ticket_id``, whose first step was decided on ``first``."""
    queue = getattr(_event(first), "queue", None)
    policy = folder.policies.get(queue or "", NO_POLICY)
    return LifeStory(ticket_id, policy.placement_requeues)


def _event(record: LogRecord) -> Any:
    """The record's domain event; None when it does not decode."""
    try:
        decoded = decode_queue_event(record.value or b"")
    except InvalidEvent:
        return None
    return to_domain(decoded)


def _about(step, ticket_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    out = []
    for status in step.statuses:
        if status.ticket_id == ticket_id and step.note == "joined":
            out.append(f"searching at place {status.position}")
    for output in step.outputs:
        if isinstance(output, StageStatus) and output.ticket_id == ticket_id:
            text = f"{output.stage.name} after {output.waves_waited} waves"
            if output.match_id:
                text += f", match {output.match_id}"
            if output.deadline_ms is not None:
                text += f", deadline {output.deadline_ms}"
            if output.detail:
                text += f": {output.detail}"
            out.append(text)
        elif isinstance(output, ClaimDecided) and output.ticket_id == ticket_id:
            verdict = "granted" if output.granted else f"refused (held by {output.holder})"
            out.append(f"claim on {output.player_id} {verdict}")
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
            text = f"dequeued {gone.reason.name} after {gone.waves_waited} waves"
            if gone.match_id:
                text += f", match {gone.match_id}"
            if gone.detail:
                text += f": {gone.detail}"
            out.append(text)
    return out
