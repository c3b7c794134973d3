"""Find the wave a match came from in the queue log, and rebuild that wave's snapshot;
or the tick that filled a backfill request, with the fold's choice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.queue import Step
from matcher.queue.backfill_choice import BackfillChoice
from matcher.queue.events import WaveTick
from matcher.queue.lifecycle import MatchProposal
from matcher.queue.wave import wave_snapshot
from schemas import models as wire
from schemas.codec import decode_queue_event
from schemas.topics import QUEUE
from streams.audit.rederive import LogRecord, rederive
from streams.wire.inbound import to_domain
from streams.worker.folding import Folder


@dataclass(frozen=True, slots=True)
class WaveOfMatch:
    snapshot: WaveSnapshot
    profile: QueueProfile
    result: WaveResult
    tick: LogRecord


def find_wave(folder: Folder, records: Sequence[LogRecord], match_id: str) -> WaveOfMatch | None:
    """The wave whose result holds ``match_id``, re-derived from ``records``; None if absent.

    The result, not the wave's outputs: a match holding a ticket that searches several
    places is published later, by the claim that grants it (docs/adr/0145).

    Notes: two passes over the queue log: one to find the tick, one to fold its
    partition up to just before it.
    """
    log = [r for r in records if r.topic == QUEUE.name]
    found = None
    for derived in rederive(folder, log):
        step = derived.folded.step
        if (
            step is not None
            and step.result is not None
            and any(m.match_id == match_id for m in (*step.result.matches, *_wave_matches(step)))
        ):
            found = (derived.source, step.result)
            break
    if found is None:
        return None
    tick_record, result = found
    state = folder.new_state(tick_record.partition)
    for record in log:
        if record.partition == tick_record.partition and record.offset < tick_record.offset:
            folder.fold(state, record.key, record.value, record.offset, record.timestamp)
    decoded = decode_queue_event(tick_record.value or b"")
    assert isinstance(decoded, wire.WaveTick)
    tick = to_domain(decoded)
    assert isinstance(tick, WaveTick)
    region_queue = state.book.regions[(tick.queue, tick.region)]
    # The configuration the tick switched its region to, if the log holds it (ADR 0160).
    under = folder.layouts.get(tick.config_fingerprint)
    rules = under.queue_rules.get(tick.queue, under.rules) if under else folder.rules_of(tick.queue)
    profile = (under.profiles if under else folder.profiles)[tick.queue]
    snapshot = wave_snapshot(region_queue, tick, rules)
    return WaveOfMatch(snapshot, profile, result, tick_record)


def _wave_matches(step: Step) -> list[Match]:
    """The matches a wave made: created, or proposed under a ready check."""
    proposed = [o.match for o in step.outputs if isinstance(o, MatchProposal)]
    return [*step.matches, *proposed]


def find_backfills(
    folder: Folder, records: Sequence[LogRecord], session_id: str
) -> list[tuple[BackfillChoice, LogRecord]]:
    """The fold's choice for every fill of ``session_id`` (a partial backfill's several,
    docs/adr/0192; an automatic backfill's under its match id, docs/adr/0157), each with
    its tick, in log order; empty if never filled.

    Notes: one pass over the queue log.
    """
    found = []
    for derived in rederive(folder, [r for r in records if r.topic == QUEUE.name]):
        step = derived.folded.step
        for choice in step.backfills if step is not None else ():
            if choice.session_id == session_id:
                found.append((choice, derived.source))
    return found
