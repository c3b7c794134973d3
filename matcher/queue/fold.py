"""The queue of one (queue, region) as a fold over its log.

Why a mutable object and not ``apply(state, event) -> new_state``: a region holds
10,000+ tickets and sees tens of thousands of events per second; copying the state per
event would make every join O(n). The object is owned by exactly one caller (a worker's
partition, a replay, a simulation), every decision is a function of the events applied
so far, and :meth:`RegionQueue.to_record` / :meth:`RegionQueue.from_record` snapshot it.
See docs/adr/0003-queue-fold-mutates-one-state-per-region.md.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from matcher.core import (
    LastMatch,
    QueueProfile,
    Ticket,
    WaitingTicket,
    WaveSnapshot,
    derive_seed,
)
from matcher.fastbuild import builder
from matcher.queue import answers, backfill, claim_admission, departures, held, lifecycle, statuses
from matcher.queue.admission import admission_problem
from matcher.queue.cadence import CadencePolicy, next_interval_ms, update_arrival_rate
from matcher.queue.estimate import WaitEstimator
from matcher.queue.events import DequeueReason, QueueEvent, TicketJoined, TicketLeft, WaveTick
from matcher.queue.finished import FinishedTickets
from matcher.queue.lifecycle import NO_POLICY, Lifecycle, LifecyclePolicy
from matcher.queue.meetings import History, prune_meetings, record_meetings
from matcher.queue.outcomes import Dequeued, Step, WaveFailure
from matcher.queue.wave_close import rating_diff, summarise
from matcher.rules.check import queue_rules, rated_snapshot, wave_rule_problems
from matcher.strategies import result_problems, run_wave

__all__ = ["InvalidWaveResult", "QueueRules", "QueuedTicket", "RegionQueue", "rating_diff"]


class InvalidWaveResult(RuntimeError):
    """A strategy returned a result its checker rejects: a bug, never published."""


@dataclass(frozen=True, slots=True)
class QueueRules:
    """Rules of the fold that are not the strategy's business.

    ``finished_retention_ms`` bounds how long a dequeued ticket id is remembered, so a
    redelivered or retried join of it is a no-op; it must be at least the TTL, since a
    join older than the TTL is rejected as expired anyway.
    """

    ticket_ttl_ms: int = 600_000
    finished_retention_ms: int = 600_000
    population_window_waves: int = 10
    verify_waves: bool = True
    publish_status: bool = True
    #: One active ticket per player across regions: joins wait for claims (docs/adr/0110).
    claims: bool = False

    def __post_init__(self) -> None:
        if self.ticket_ttl_ms <= 0:
            raise ValueError("ticket_ttl_ms: must be > 0")
        if self.finished_retention_ms < self.ticket_ttl_ms:
            raise ValueError("finished_retention_ms: must be >= ticket_ttl_ms")


@dataclass(frozen=True, slots=True)
class QueuedTicket:
    ticket: Ticket
    joined_wave: int


# Built once per join: tens of thousands a second on a busy worker.
_make_step = builder(Step)


@dataclass(slots=True)
class RegionQueue:
    """State of one (queue, region); apply events in log order with :meth:`apply`."""

    queue: str
    region: str
    tickets: dict[str, QueuedTicket] = field(default_factory=dict)
    player_ticket: dict[str, str] = field(default_factory=dict)
    finished: FinishedTickets = field(default_factory=FinishedTickets)
    waves_closed: int = 0
    last_sequence: int = -1
    last_tick_at_ms: int = 0
    last_interval_ms: int = 0
    recent_matched_players: deque[int] = field(default_factory=deque)
    last_matches: dict[str, LastMatch] = field(default_factory=dict)
    estimator: WaitEstimator = field(default_factory=WaitEstimator)
    # Players who joined since the last wave and their moving rate: the pop timer's input.
    arrivals_since_tick: int = 0
    arrival_rate_per_s: float | None = None
    # Held tickets: proposed matches, placements, joins awaiting claims (lifecycle.py).
    life: Lifecycle = field(default_factory=Lifecycle)
    # Why the last wave failed (None after a good one): a failure is reported once.
    failing: str | None = None
    # Recent matches per player, kept only for a queue with a rematch rule.
    meetings: dict[str, History] = field(default_factory=dict)
    # Matches placed so far: channels rotate over the region's matches across waves.
    matches_placed: int = 0

    def apply(
        self,
        event: QueueEvent | lifecycle.LifecycleEvent,
        profile: QueueProfile,
        rules: QueueRules,
        cadence: CadencePolicy | None = None,
        policy: LifecyclePolicy = NO_POLICY,
    ) -> Step:
        """Apply one event of this region's log and return what it decided.

        Notes: O(1) for joins and leaves; a tick is O(n) plus the strategy's cost.
        """
        if isinstance(event, TicketJoined):
            return self._join(event.ticket, profile, rules)
        if isinstance(event, TicketLeft):
            return self._leave(event)
        if isinstance(event, WaveTick):
            return self._close_wave(event, profile, rules, cadence, policy)
        if isinstance(event, lifecycle.ReadyCheckAnswered):
            return answers.answer(self, event, policy)
        if isinstance(event, lifecycle.PlacementReported):
            return answers.placement(self, event, policy)
        if isinstance(event, lifecycle.BackfillRequested):
            return backfill.request(self, event, profile)
        if isinstance(event, lifecycle.BackfillCancelled):
            return backfill.cancel(self, event)
        return claim_admission.claim_decided(self, event, rules)

    def next_tick_at_ms(self, cadence: CadencePolicy, players_per_match: int) -> int | None:
        """When the next wave is due under ``cadence``; None before the first wave.

        A function of the log, so every worker that folded it picks the same instant
        (and so the same tick sequence: a second worker's tick is a stale no-op).
        """
        if not self.last_tick_at_ms:
            return None
        interval = next_interval_ms(cadence, self.arrival_rate_per_s or 0.0, players_per_match)
        return self.last_tick_at_ms + interval

    @property
    def players_queued(self) -> int:
        return len(self.player_ticket)

    def waves_waited(self, queued: QueuedTicket) -> int:
        return self.waves_closed - queued.joined_wave

    # -- joins and leaves -------------------------------------------------------------

    def _join(self, ticket: Ticket, profile: QueueProfile, rules: QueueRules) -> Step:
        ticket_id, tickets, last_tick = ticket.ticket_id, self.tickets, self.last_tick_at_ms
        if ticket_id in tickets:
            return Step("duplicate")
        if ticket_id in self.finished:
            return Step("duplicate_finished")
        if last_tick and ticket.joined_at_ms + rules.ticket_ttl_ms <= last_tick:
            return self._refuse(ticket, DequeueReason.EXPIRED, "joined longer ago than the TTL")
        problem = self._conflict(ticket) or admission_problem(ticket, profile)
        if problem:
            return self._refuse(ticket, DequeueReason.REJECTED, problem)
        if rules.claims:
            return claim_admission.hold_for_claims(self, ticket)
        return self._admit(ticket, rules, ticket.joined_at_ms)

    def _admit(self, ticket: Ticket, rules: QueueRules, at_ms: int) -> Step:
        """Queue a join that passed every check; its status is SEARCHING from ``at_ms``."""
        tickets = self.tickets
        tickets[ticket.ticket_id] = QueuedTicket(ticket, self.waves_closed)
        players = ticket.players
        self.arrivals_since_tick += len(players)
        for player in players:
            self.player_ticket[player.player_id] = ticket.ticket_id
        if not rules.publish_status:
            return _make_step("joined", (), (), (), None, None, None, (), ())
        status = statuses.searching(self, ticket, len(tickets), 0, at_ms, None)
        return _make_step("joined", (), (), (status,), None, None, None, (), ())

    def _conflict(self, ticket: Ticket) -> str | None:
        if len(ticket.players) == 1:  # the usual solo join: one lookup
            player_id = ticket.players[0].player_id
            other = self.player_ticket.get(player_id)
            if other is None and self.life.players:
                other = self.life.players.get(player_id)
            if other is None:
                return None
            return f"player {player_id} is already queued in ticket {other}"
        seen: set[str] = set()
        for player in ticket.players:
            if player.player_id in seen:
                return f"player {player.player_id} appears twice in the ticket"
            seen.add(player.player_id)
            other = self.player_ticket.get(player.player_id) or self.life.players.get(
                player.player_id
            )
            if other is not None:
                return f"player {player.player_id} is already queued in ticket {other}"
        return None

    def _refuse(self, ticket: Ticket, reason: DequeueReason, detail: str) -> Step:
        self.finished[ticket.ticket_id] = max(ticket.joined_at_ms, self.last_tick_at_ms)
        dequeued = Dequeued(
            ticket.ticket_id,
            self.queue,
            self.region,
            reason,
            0,
            ticket.joined_at_ms,
            detail=detail,
        )
        return Step(reason.value, dequeued=(dequeued,))

    def _leave(self, event: TicketLeft) -> Step:
        queued = self.tickets.pop(event.ticket_id, None)
        if queued is None:
            held = answers.leave(self, event) if self.life.holds() else None
            if held is None and event.ticket_id not in self.finished:
                # A leave that overtook its join: the join, when it comes, is a no-op.
                self.finished[event.ticket_id] = event.left_at_ms
            return held or Step("unknown_ticket")
        self._forget(queued.ticket, event.left_at_ms)
        dequeued = Dequeued(
            event.ticket_id,
            self.queue,
            self.region,
            DequeueReason.LEFT,
            self.waves_waited(queued),
            event.left_at_ms,
            detail=event.reason.value,
        )
        return Step("left", dequeued=(dequeued,))

    def _forget(self, ticket: Ticket, at_ms: int) -> None:
        for player in ticket.players:
            self.player_ticket.pop(player.player_id, None)
        self.finished[ticket.ticket_id] = at_ms

    # -- waves ------------------------------------------------------------------------

    def _close_wave(
        self,
        tick: WaveTick,
        profile: QueueProfile,
        rules: QueueRules,
        cadence: CadencePolicy | None = None,
        policy: LifecyclePolicy = NO_POLICY,
    ) -> Step:
        """Close a wave. The strategy runs before any change; if it fails, only expiry happens
        (and the deadlines the tick reached, decided first: they only return tickets to the
        queue or end held ones).
        """
        if tick.sequence <= self.last_sequence:
            return Step("stale_tick")
        decided: tuple[list[Dequeued], list[lifecycle.LifecycleOutput]] = ([], [])
        if self.life.holds():
            decided = answers.at_tick(self, tick, rules, policy)
        choices: tuple[object, ...] = ()
        if self.life.backfills:  # after the ready checks: returned tickets may fill them
            try:
                filled = backfill.at_tick(self, tick, rules, profile)
            except backfill.InvalidBackfill as error:  # nothing taken: the requests wait
                return self._fail_wave(tick, rules, self._expiring(tick, rules), error, decided)
            decided = (decided[0] + filled[0], decided[1] + filled[1])
            choices = tuple(filled[2])
        expiring = self._expiring(tick, rules)
        snapshot = self.snapshot(tick, leaving={q.ticket.ticket_id for q in expiring})
        # Each queued player maps to its ticket: no pass over the snapshot's tickets.
        players = self.players_queued - sum(len(q.ticket.players) for q in expiring)
        if profile.rules:  # the checkers judge the seats by the ratings the strategy read
            snapshot = rated_snapshot(snapshot, queue_rules(profile))
        try:
            result = run_wave(snapshot, profile)
            if rules.verify_waves:
                # The strategy's own checker (common rules included), then the queue's rules.
                problems = result_problems(snapshot, profile, result)
                problems = problems or wave_rule_problems(snapshot, profile, result)
                if problems:
                    raise InvalidWaveResult(f"{profile.strategy}: {problems[0]}")
        except Exception as error:  # a broken strategy must not stop expiry: tickets age out
            return self._fail_wave(tick, rules, expiring, error, decided, choices)
        self.failing = None
        self._prune_finished(tick.tick_at_ms - rules.finished_retention_ms)
        expired = departures.expire(self, expiring, tick)
        created, outputs = result.matches, decided[1]
        if policy.ready_check_ms or policy.placement_timeout_ms:
            created, matched, diverted = held.divert(
                self, result.matches, tick, result.strategy, policy
            )
            outputs = [*outputs, *diverted]
            # The wave still opens the estimator's next window: its held tickets count
            # when they are matched for good (held.matched, docs/adr/0115).
            self.estimator.observe_bands([])
        else:
            matched = departures.remove_matched(self, result.matches, tick)
        rematch = queue_rules(profile).rematch if profile.rules else None
        if rematch is not None:
            at_ms, within_ms = tick.tick_at_ms, int(rematch.within_s * 1000)
            self.meetings = prune_meetings(self.meetings, at_ms - within_ms)
            # One more than the rule reads: a held match may be taken back (never
            # played), and the meeting before it must still be there.
            record_meetings(self.meetings, result.matches, at_ms, rematch.last + 1)
        self.waves_closed += 1
        self.matches_placed += len(result.matches)
        if cadence is not None and self.last_tick_at_ms:
            self.arrival_rate_per_s = update_arrival_rate(
                cadence,
                self.arrival_rate_per_s,
                self.arrivals_since_tick,
                tick.tick_at_ms - self.last_tick_at_ms,
            )
        self.arrivals_since_tick = 0
        self.last_sequence = tick.sequence
        self.last_tick_at_ms = tick.tick_at_ms
        self.last_interval_ms = tick.interval_ms
        summary = summarise(tick, snapshot, players, result, len(expired), self.waves_closed)
        self._remember_population(summary.matched_players, rules.population_window_waves)
        waiting = statuses.wave_statuses(self, tick) if rules.publish_status else ()
        return Step(
            "wave_closed",
            matches=created,
            dequeued=(*decided[0], *expired, *matched),
            statuses=waiting,
            summary=summary,
            result=result,
            lifecycle=tuple(outputs),
            backfills=choices,
        )

    def _fail_wave(
        self,
        tick: WaveTick,
        rules: QueueRules,
        expiring: list[QueuedTicket],
        error: Exception,
        decided: tuple[list[Dequeued], list[lifecycle.LifecycleOutput]] = ([], []),
        choices: tuple[object, ...] = (),
    ) -> Step:
        """A wave whose strategy failed: no match, but the TTL still expires tickets (and
        ``decided``, what the tick's deadlines and backfills decided before the strategy
        ran, stands)."""
        reason = (
            str(error)
            if isinstance(error, (InvalidWaveResult, backfill.InvalidBackfill))
            else (f"{type(error).__name__}: {error}")
        )
        first = reason != self.failing
        self.failing = reason
        self._prune_finished(tick.tick_at_ms - rules.finished_retention_ms)
        expired = departures.expire(self, expiring, tick)
        self.last_sequence = tick.sequence
        self.last_tick_at_ms = tick.tick_at_ms
        self.last_interval_ms = tick.interval_ms
        failure = WaveFailure(self.queue, self.region, tick.wave_id, reason, first)
        return Step(
            "wave_failed",
            dequeued=(*decided[0], *expired),
            failure=failure,
            lifecycle=tuple(decided[1]),
            backfills=choices,
        )

    def _queued_meetings(self, queued: list[QueuedTicket]) -> tuple[tuple[str, History], ...]:
        meetings = self.meetings
        if not meetings:
            return ()
        return tuple(
            (p.player_id, meetings[p.player_id])
            for q in queued
            for p in q.ticket.players
            if p.player_id in meetings
        )

    def wave_snapshot(self, tick: WaveTick, rules: QueueRules) -> WaveSnapshot:
        """What the strategy is given when ``tick`` closes a wave (for ``explain``)."""
        return self.snapshot(
            tick, leaving={q.ticket.ticket_id for q in self._expiring(tick, rules)}
        )

    def _expiring(self, tick: WaveTick, rules: QueueRules) -> list[QueuedTicket]:
        deadline = tick.tick_at_ms - rules.ticket_ttl_ms
        return [q for q in self.tickets.values() if q.ticket.joined_at_ms <= deadline]

    def snapshot(
        self, tick: WaveTick, leaving: set[str] | frozenset[str] = frozenset()
    ) -> WaveSnapshot:
        """The queue exactly at ``tick``: tickets in join order with their wait cycles.

        ``leaving`` are tickets the tick expires; they are not offered to the strategy.
        """
        queued = list(self.tickets.values())
        if leaving:
            queued = [q for q in queued if q.ticket.ticket_id not in leaving]
        closed = self.waves_closed
        waiting = tuple(WaitingTicket(q.ticket, closed - q.joined_wave) for q in queued)
        last_matches = self.last_matches
        history = tuple(
            last_matches[p.player_id]
            for q in (queued if last_matches else ())
            for p in q.ticket.players
            if p.player_id in last_matches
        )
        return WaveSnapshot(
            queue=self.queue,
            region=self.region,
            wave_id=tick.wave_id,
            wave_number=self.waves_closed + 1,
            seed=derive_seed(self.queue, self.region, tick.wave_id),
            closed_at_ms=tick.tick_at_ms,
            tickets=waiting,
            active_population=self.players_queued + sum(self.recent_matched_players),
            last_matches=history,
            meetings=self._queued_meetings(queued),
            matches_placed=self.matches_placed,
        )

    def _remember_population(self, matched_players: int, window: int) -> None:
        self.recent_matched_players.append(matched_players)
        while len(self.recent_matched_players) > window:
            self.recent_matched_players.popleft()

    def _prune_finished(self, older_than_ms: int) -> None:
        self.finished.prune(older_than_ms)
        if len(self.last_matches) > 4 * (len(self.player_ticket) + 1000):
            queued = self.player_ticket
            self.last_matches = {k: v for k, v in self.last_matches.items() if k in queued}
