"""Closing a region's wave at a tick, as named phases over its state.

refit (at a configuration switch) -> deadlines -> backfill -> expiry -> snapshot ->
strategy -> check -> take or hold -> remember -> summary. The strategy runs (and is
checked) before anything of the wave is taken; if it fails, only the refit, the
deadlines, the backfills and the expiry stand (they only return tickets to the queue,
fill sessions or end tickets). A step above
:class:`~matcher.queue.state.RegionState`: every change is one of its methods.
"""

from __future__ import annotations

from dataclasses import replace

from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.queue import backfill, held, searches
from matcher.queue.admission import admission_problem
from matcher.queue.cadence import CadencePolicy
from matcher.queue.events import WaveTick
from matcher.queue.lifecycle import LifecyclePolicy
from matcher.queue.outcomes import Draft, WaveFailure
from matcher.queue.seat_data import with_seat_data
from matcher.queue.state import QueuedTicket, QueueRules, RegionState
from matcher.queue.wave_close import summarise
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import get_strategy, result_problems


class InvalidWaveResult(RuntimeError):
    """A strategy returned a result its checker rejects: a bug, never published."""


def close(
    queue: RegionState,
    tick: WaveTick,
    profile: QueueProfile,
    rules: QueueRules,
    cadence: CadencePolicy | None,
    policy: LifecyclePolicy,
) -> Draft:
    """Close the wave ``tick`` names (a tick at or below the last one is a no-op).

    Notes: O(n) plus the strategy's cost.
    """
    if tick.sequence <= queue.last_sequence:
        return Draft("stale_tick")
    draft = Draft("wave_closed")
    if queue.refit_due:  # this tick switched the configuration
        draft.dequeued += queue.refuse_unfit(lambda t: admission_problem(t, profile), tick)
    if queue.life.holds():
        held.at_tick(queue, tick, rules, policy, draft)
    if queue.life.unfit:  # marks of tickets matched or ended since
        queue.life.keep_unfit()
    if queue.life.places:
        searches.at_tick(queue, tick, rules, draft)
    if queue.life.early_leaves:
        queue.life.prune_early_leaves(tick.tick_at_ms - rules.ticket_ttl_ms)
    if queue.life.backfills:  # after the ready checks: returned tickets may fill them
        try:
            draft.backfills = backfill.at_tick(queue, tick, rules, profile, draft)
        except backfill.InvalidBackfill as error:  # nothing taken: the requests wait
            expiring = queue.expiring(tick, rules.ticket_ttl_ms)
            return _fail(queue, tick, rules, expiring, str(error), draft)
    expiring = queue.expiring(tick, rules.ticket_ttl_ms)
    snapshot = _snapshot(queue, tick, profile, expiring)
    # Each queued player maps to its ticket: no pass over the snapshot's tickets.
    players = queue.players_queued - sum(len(q.ticket.players) for q in expiring)
    if queue.life.paused:  # held elsewhere: not offered, so not in the snapshot
        players = sum(len(w.ticket.players) for w in snapshot.tickets)
    try:
        result = run_strategy(snapshot, profile)
        if rules.verify_waves:
            _check(snapshot, profile, result)
    except InvalidWaveResult as error:
        return _fail(queue, tick, rules, expiring, str(error), draft)
    except Exception as error:  # a broken strategy must not stop expiry: tickets age out
        return _fail(queue, tick, rules, expiring, f"{type(error).__name__}: {error}", draft)
    result = with_seat_data(result, snapshot)
    queue.prune_finished(tick.tick_at_ms - rules.finished_retention_ms)
    expired = queue.expire(expiring, tick)
    draft.dequeued += expired
    draft.matches = _take_or_hold(queue, result, tick, policy, draft)
    if profile.auto_backfill:
        backfill.open_for(queue, draft.matches, tick, profile)
    _remember(queue, result, tick, profile, cadence)
    summary = summarise(tick, snapshot, players, result, len(expired), queue.waves_closed)
    queue.remember_population(summary.matched_players, rules.population_window_waves)
    draft.statuses = queue.wave_statuses(tick) if rules.publish_status else ()
    draft.summary, draft.result, draft.snapshot = summary, result, snapshot
    return draft


def wave_snapshot(queue: RegionState, tick: WaveTick, rules: QueueRules) -> WaveSnapshot:
    """What the strategy is given when ``tick`` closes a wave (for ``explain``)."""
    expiring = queue.expiring(tick, rules.ticket_ttl_ms)
    return queue.snapshot(tick, leaving={q.ticket.ticket_id for q in expiring})


def _snapshot(
    queue: RegionState, tick: WaveTick, profile: QueueProfile, expiring: list[QueuedTicket]
) -> WaveSnapshot:
    """What the strategy is offered; rated once on the queue's rating key, so the
    checkers judge the seats by the ratings the strategy read."""
    snapshot = queue.snapshot(tick, leaving={q.ticket.ticket_id for q in expiring})
    return rated_snapshot(snapshot, profile.ruleset) if profile.rules else snapshot


def run_strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    # The snapshot is rated already: the strategy itself, not run_wave, which rates again.
    return get_strategy(profile.strategy)(snapshot, profile)


def _check(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> None:
    """The strategy's own checker (common rules included), then the queue's rules."""
    problems = result_problems(snapshot, profile, result)
    problems = problems or wave_rule_problems(snapshot, profile, result)
    if problems:
        raise InvalidWaveResult(f"{profile.strategy}: {problems[0]}")


def _take_or_hold(
    queue: RegionState, result: WaveResult, tick: WaveTick, policy: LifecyclePolicy, draft: Draft
) -> tuple[Match, ...]:
    """The matched tickets leave the queue (dequeued MATCHED), or are held for a ready
    check or a placement; returns the matches published as created. A match holding a
    ticket that searches other places too is tentative until its search claims answer."""
    if queue.life.places:
        plain: list[Match] = []
        tentative: list[Match] = []
        for match in result.matches:  # one look per match, the wave's order kept
            (tentative if searches.is_tentative(queue, match) else plain).append(match)
        if tentative:
            searches.hold_tentative(queue, tuple(tentative), tick, result.strategy, draft)
            result = replace(result, matches=tuple(plain))
    if policy.ready_check_ms or policy.placement_timeout_ms:
        created = held.divert(queue, result.matches, tick, result.strategy, policy, draft)
        queue.held_wave()
        return created
    draft.dequeued += queue.remove_matched(result.matches, tick)
    return result.matches


def _remember(
    queue: RegionState,
    result: WaveResult,
    tick: WaveTick,
    profile: QueueProfile,
    cadence: CadencePolicy | None,
) -> None:
    """Who met whom (for a rematch rule), then the wave counted closed."""
    rematch = profile.ruleset.rematch if profile.rules else None
    if rematch is not None:
        within_ms = int(rematch.within_s * 1000)
        # One more than the rule reads: a held match may be taken back (never played),
        # and the meeting before it must still be there.
        queue.remember_meetings(result.matches, tick.tick_at_ms, within_ms, rematch.last + 1)
    queue.close_wave(tick, len(result.matches), cadence)


def _fail(
    queue: RegionState,
    tick: WaveTick,
    rules: QueueRules,
    expiring: list[QueuedTicket],
    reason: str,
    draft: Draft,
) -> Draft:
    """A wave whose strategy (or a backfill) failed: no match, but the TTL still expires
    tickets, and what the tick's deadlines and backfills decided before stands."""
    queue.prune_finished(tick.tick_at_ms - rules.finished_retention_ms)
    draft.dequeued += queue.expire(expiring, tick)
    first = queue.fail_wave(tick, reason)
    draft.note = "wave_failed"
    draft.failure = WaveFailure(queue.queue, queue.region, tick.wave_id, reason, first)
    return draft
