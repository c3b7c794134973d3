"""Run one variant of a scenario: the arrival stream through the real queue fold.

Events go through :class:`~matcher.queue.book.QueueBook` exactly as the worker applies
them - joins, leaves and wave ticks in time order - so every decision (admission,
strategy, expiry, wait estimates) is the production one. The engine only decides *when*
things happen: arrivals from the sessions, leaves from each ticket's patience, the next
wave from the cadence policy (a size trigger re-checks the queue after each join),
re-queues after a game.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from matcher.core import Match, Player, QueueProfile, Ticket
from matcher.peers import host_reach_ms, round_trip_ms
from matcher.queue.book import QueueBook
from matcher.queue.cadence import SIZE, next_interval_ms, size_due_at_ms, update_arrival_rate
from matcher.queue.events import DequeueReason, LeaveReason, TicketJoined, TicketLeft, WaveTick
from matcher.queue.fold import QueueRules, rating_diff
from matcher.queue.outcomes import Step
from matcher.sim.config import Scenario, Variant
from matcher.sim.population import Session, break_ms, patience_waves
from matcher.sim.repeats import met_before

_JOIN, _TICK = 0, 1  # at equal times joins go first, so a ticket joining at a tick is in it


@dataclass(frozen=True, slots=True)
class TicketOutcome:
    """How one ticket ended: ``matched``, ``left``, ``expired``, ``rejected`` or ``queued``.

    ``session`` groups the tickets of one party over its games (never-matched players).
    """

    ticket_id: str
    region: str
    players: int
    joined_at_ms: int
    outcome: str
    waves: int
    wait_ms: int
    session: str


@dataclass(frozen=True, slots=True)
class MatchRecord:
    region: str
    at_ms: int
    rating_diff: float
    imbalance: float
    spread: float
    mean_wait_ms: float
    #: Two of its opponents already played each other earlier in the run.
    repeat: bool = False
    #: Scenarios with [scenario.peers] only: the worst round trip between two players of
    #: the match, and the best host's worst round trip to the others (None: nobody can).
    round_trip_ms: float | None = None
    host_reach_ms: float | None = None


@dataclass(frozen=True, slots=True)
class WaveRecord:
    region: str
    at_ms: int
    players_queued: int
    matches: int
    interval_ms: int


@dataclass(frozen=True, slots=True)
class EstimateRecord:
    """A wait estimate given to a searching ticket, and the wait that followed it."""

    region: str
    at_ms: int
    estimated_ms: int
    realised_ms: int


@dataclass(slots=True)
class VariantRun:
    variant: str
    strategy: str
    tickets: list[TicketOutcome] = field(default_factory=list)
    matches: list[MatchRecord] = field(default_factory=list)
    waves: list[WaveRecord] = field(default_factory=list)
    estimates: list[EstimateRecord] = field(default_factory=list)
    sessions_matched: int = 0
    sessions: int = 0
    #: What the live checker found in the wave results (a what-if counts, never raises).
    violations: list[str] = field(default_factory=list)
    #: Waves whose strategy raised (the worker would dead-letter them and go on).
    failed_waves: int = 0
    #: Every pair of opponents matched so far (:mod:`matcher.sim.repeats`).
    met: set[tuple[str, str]] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class _NextTick:
    region: str
    number: int
    elapsed_ms: int


@dataclass(frozen=True, slots=True)
class _SizeCheck:
    """A size-triggered wave may be due (docs/adr/0183): checked again when it pops."""

    region: str


@dataclass(slots=True)
class _Live:
    """Book-keeping of one run; the queue state itself lives only in the fold."""

    run: VariantRun
    sessions: dict[str, Session]
    games_played: dict[str, int] = field(default_factory=dict)
    joined_at: dict[str, int] = field(default_factory=dict)
    pending_estimates: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    arrivals_since_tick: dict[str, int] = field(default_factory=dict)
    rates: dict[str, float | None] = field(default_factory=dict)
    #: Each region's next wave number: a fallback tick a size-triggered wave overtook is
    #: stale.
    numbers: dict[str, int] = field(default_factory=dict)
    heap: list[tuple[int, int, int, object]] = field(default_factory=list)
    counter: int = 0

    def push(self, at_ms: int, kind: int, payload: object) -> None:
        self.counter += 1
        heapq.heappush(self.heap, (at_ms, kind, self.counter, payload))


def variant_profile(scenario: Scenario, variant: Variant) -> QueueProfile:
    """The queue profile ``variant`` runs under in ``scenario``."""
    return QueueProfile(
        queue=scenario.queue,
        strategy=variant.strategy,
        maps=scenario.maps,
        team_size=scenario.team_size,
        roles=scenario.roles,
        options=dict(variant.options),
        rules=dict(variant.rules),
    )


def run_variant(
    scenario: Scenario,
    variant: Variant,
    sessions: tuple[Session, ...],
    seed: int,
    on_time: Callable[[int], None] | None = None,
) -> VariantRun:
    """Simulate ``variant`` on ``sessions`` until ``scenario.duration_s``.

    ``on_time`` hears the simulated time (ms) after each wave, for a progress bar.

    Notes: O(events log events) plus the cost of every wave's strategy.
    """
    profile = variant_profile(scenario, variant)
    book = QueueBook(
        {scenario.queue: profile},
        {scenario.queue: tuple(r.name for r in scenario.regions)},
        QueueRules(
            ticket_ttl_ms=scenario.ticket_ttl_ms, finished_retention_ms=scenario.ticket_ttl_ms
        ),
    )
    live = _Live(
        VariantRun(variant.name, variant.strategy, sessions=len(sessions)),
        {s.session_id: s for s in sessions},
    )
    for session in sessions:
        start = session.started_at_ms
        live.push(start, _JOIN, _ticket(scenario, session, 0, start))
    first = variant.cadence.interval_ms
    for spec in scenario.regions:
        live.rates[spec.name], live.numbers[spec.name] = None, 1
        live.push(first, _TICK, _NextTick(spec.name, 1, first))
    end_ms = scenario.duration_s * 1000
    while live.heap and live.heap[0][0] <= end_ms:
        at_ms, _, _, payload = heapq.heappop(live.heap)
        if isinstance(payload, Ticket):
            _join(book, live, payload)
            if variant.cadence.mode == SIZE:
                _after_join(scenario, variant, book, live, payload.region, at_ms)
            continue
        if isinstance(payload, _SizeCheck):
            payload = _size_tick(scenario, variant, book, live, payload.region, at_ms)
        assert payload is None or isinstance(payload, _NextTick)
        if payload is not None and payload.number == live.numbers[payload.region]:
            _tick(scenario, variant, book, live, seed, payload, at_ms)
            if on_time is not None:
                on_time(at_ms)
    _finish(book, live, end_ms)
    if on_time is not None:
        on_time(end_ms)
    live.run.sessions_matched = sum(1 for n in live.games_played.values() if n > 0)
    return live.run


def _ticket(scenario: Scenario, session: Session, game: int, at_ms: int) -> Ticket:
    party = session.session_id if len(session.players) > 1 else None
    return Ticket(
        f"{session.session_id}.g{game}",
        scenario.queue,
        session.region,
        session.players,
        at_ms,
        party_id=party,
    )


def _join(book: QueueBook, live: _Live, ticket: Ticket) -> None:
    step = book.apply(TicketJoined(ticket))
    live.arrivals_since_tick[ticket.region] = (
        live.arrivals_since_tick.get(ticket.region, 0) + ticket.size
    )
    live.joined_at[ticket.ticket_id] = ticket.joined_at_ms
    _observe(book, live, step)


def _size_due(
    scenario: Scenario, variant: Variant, book: QueueBook, region: str, at_ms: int
) -> int:
    """When ``region``'s size-triggered wave is due, read from the folded state as the
    worker's timer reads it."""
    state = book.region_queue(scenario.queue, region)
    waiting, arrivals = len(state.tickets), state.arrivals_since_tick
    return size_due_at_ms(variant.cadence, waiting, arrivals, state.last_tick_at_ms, at_ms)


def _after_join(
    scenario: Scenario, variant: Variant, book: QueueBook, live: _Live, region: str, at_ms: int
) -> None:
    due = _size_due(scenario, variant, book, region, at_ms)
    last = book.region_queue(scenario.queue, region).last_tick_at_ms
    if due < size_due_at_ms(variant.cadence, 0, 0, last, at_ms):  # before the fallback
        live.push(due, _TICK, _SizeCheck(region))


def _size_tick(
    scenario: Scenario, variant: Variant, book: QueueBook, live: _Live, region: str, at_ms: int
) -> _NextTick | None:
    """The wave a size check closes now, or None (a wave, or a leave, came first)."""
    if _size_due(scenario, variant, book, region, at_ms) > at_ms:
        return None
    last = book.region_queue(scenario.queue, region).last_tick_at_ms
    return _NextTick(region, live.numbers[region], at_ms - last)


def _tick(
    scenario: Scenario,
    variant: Variant,
    book: QueueBook,
    live: _Live,
    seed: int,
    due: _NextTick,
    at_ms: int,
) -> None:
    region, number = due.region, due.number
    state = book.region_queue(scenario.queue, region)
    for queued in list(state.tickets.values()):
        ticket = queued.ticket
        patience = patience_waves(seed, ticket.ticket_id, scenario.behaviour.leave_per_wave)
        if state.waves_waited(queued) >= patience:
            reason = LeaveReason.REQUESTED
            left = TicketLeft(ticket.ticket_id, scenario.queue, region, reason, at_ms)
            _observe(book, live, book.apply(left))
    policy = variant.cadence
    arrived = live.arrivals_since_tick.get(region, 0)
    rate = update_arrival_rate(policy, live.rates[region], arrived, due.elapsed_ms)
    live.rates[region], live.arrivals_since_tick[region] = rate, 0
    interval = next_interval_ms(policy, rate, scenario.players_per_match)
    # A size-triggered wave's interval is the one it closed, not the fallback's.
    used = due.elapsed_ms if policy.mode == SIZE else interval
    wave_id = f"{region}-{number}"
    tick = WaveTick(scenario.queue, region, wave_id, number, at_ms, variant.name, used)
    step = book.apply(tick)
    if step.failure is not None:  # the worker would go on; a what-if run must say so
        raise RuntimeError(f"wave {wave_id} of {variant.name!r} failed: {step.failure.reason}")
    _observe(book, live, step, scenario, seed)
    if step.summary is not None:
        live.run.waves.append(
            WaveRecord(region, at_ms, step.summary.players_in_snapshot, step.summary.matches, used)
        )
    live.numbers[region] = number + 1
    live.push(at_ms + interval, _TICK, _NextTick(region, number + 1, interval))


def _observe(
    book: QueueBook, live: _Live, step: Step, scenario: Scenario | None = None, seed: int = 0
) -> None:
    waits: dict[str, int] = {}
    for gone in step.dequeued:
        joined = live.joined_at.pop(gone.ticket_id, gone.at_ms)
        waits[gone.ticket_id] = gone.at_ms - joined
        estimates = live.pending_estimates.pop(gone.ticket_id, [])
        session_id, _, game = gone.ticket_id.rpartition(".g")
        session = live.sessions[session_id]
        live.run.tickets.append(
            TicketOutcome(
                gone.ticket_id,
                gone.region,
                len(session.players),
                joined,
                gone.reason.value,
                gone.waves_waited,
                gone.at_ms - joined,
                session_id,
            )
        )
        if gone.reason is not DequeueReason.MATCHED:
            continue
        live.run.estimates.extend(
            EstimateRecord(gone.region, at, estimate, gone.at_ms - at) for at, estimate in estimates
        )
        played = live.games_played[session_id] = live.games_played.get(session_id, 0) + 1
        if scenario is not None and played < session.games:
            back_ms = gone.at_ms + break_ms(seed, gone.ticket_id, scenario.behaviour.game_length_s)
            live.push(back_ms, _JOIN, _ticket(scenario, session, int(game) + 1, back_ms))
    record_estimates_and_matches(
        live.run, live.pending_estimates, step, waits, lambda tid: _session_of(live, tid).players
    )


def _session_of(live: _Live, ticket_id: str) -> Session:
    return live.sessions[ticket_id.rpartition(".g")[0]]


def record_estimates_and_matches(
    run: VariantRun,
    pending_estimates: dict[str, list[tuple[int, int]]],
    step: Step,
    waits: dict[str, int],
    players_of: Callable[[str], tuple[Player, ...]] | None = None,
) -> None:
    """Keep each status's wait estimate until its ticket ends (it is scored then, if the
    ticket is matched), and record the wave's matches; ``waits`` by ticket id,
    ``players_of`` a ticket's players by its id (for the round trips of peers)."""
    for status in step.statuses:
        if status.estimated_wait_ms is not None:
            pending_estimates.setdefault(status.ticket_id, []).append(
                (status.at_ms, status.estimated_wait_ms)
            )
    for match in step.matches:
        run.matches.append(match_record(step, match, waits, met_before(run.met, match), players_of))


def match_record(
    step: Step,
    match: Match,
    waits: dict[str, int],
    repeat: bool = False,
    players_of: Callable[[str], tuple[Player, ...]] | None = None,
) -> MatchRecord:
    """The figures of ``match``, created by the wave of ``step``; ``waits`` by ticket id."""
    assert step.summary is not None
    team_totals = [sum(seat.rating for seat in team.seats) for team in match.teams]
    seats = [seat.rating for team in match.teams for seat in team.seats]
    ticket_waits = [waits[tid] for tid in match.ticket_ids()]
    return MatchRecord(
        step.summary.region,
        step.summary.closed_at_ms,
        rating_diff(match),
        float(max(team_totals) - min(team_totals)),
        float(max(seats) - min(seats)),
        sum(ticket_waits) / len(ticket_waits),
        repeat,
        *_round_trips(match, players_of),
    )


def _round_trips(
    match: Match, players_of: Callable[[str], tuple[Player, ...]] | None
) -> tuple[float | None, float | None]:
    """(worst pair round trip, best host's reach) of a match whose players measured peers."""
    if players_of is None:
        return None, None
    seated = [p for tid in match.ticket_ids() for p in players_of(tid)]
    if not any(p.peer_latency_ms for p in seated):
        return None, None
    pairs = [round_trip_ms(a, b) for i, a in enumerate(seated) for b in seated[i + 1 :]]
    worst = None if None in pairs else max((ms for ms in pairs if ms is not None), default=0)
    reaches = [host_reach_ms(p, seated) for p in seated if p.can_host]
    known = [ms for ms in reaches if ms is not None]
    return (
        None if worst is None else float(worst),
        float(min(known)) if known else None,
    )


def _finish(book: QueueBook, live: _Live, end_ms: int) -> None:
    live.run.tickets.extend(
        still_queued(book, end_ms, lambda ticket: ticket.ticket_id.rpartition(".g")[0])
    )


def still_queued(
    book: QueueBook, end_ms: int, session_of: Callable[[Ticket], str]
) -> list[TicketOutcome]:
    """Tickets still searching at the end: counted as ``queued`` with their wait so far."""
    return [
        TicketOutcome(
            queued.ticket.ticket_id,
            queued.ticket.region,
            queued.ticket.size,
            queued.ticket.joined_at_ms,
            "queued",
            state.waves_waited(queued),
            end_ms - queued.ticket.joined_at_ms,
            session_of(queued.ticket),
        )
        for state in book.regions.values()
        for queued in state.tickets.values()
    ]
