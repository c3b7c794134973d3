"""The state of one (queue, region) and its only mutators.

Why a mutable object and not ``apply(state, event) -> new_state``: a region holds
10,000+ tickets and sees tens of thousands of events per second; copying the state per
event would make every join O(n). The object is owned by exactly one caller (a worker's
partition, a replay, a simulation), every decision is a function of the events applied
so far, and :mod:`matcher.queue.records` snapshots it (docs/adr/0003).

Every change of the state is a method here (admit, refuse, finish,
drop, requeue, expire, remove the matched, remember encounters and meetings, take a
meeting back, close a wave): the steps above it
(:mod:`~matcher.queue.fold`'s dispatch, :mod:`~matcher.queue.wave`,
:mod:`~matcher.queue.held`, :mod:`~matcher.queue.backfill`) decide and call them, and
never write a field (docs/adr/0125).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from matcher.core import LastMatch, Match, Ticket, WaitingTicket, WaveSnapshot, derive_seed
from matcher.fastbuild import builder
from matcher.queue import statuses
from matcher.queue.cadence import CadencePolicy, next_interval_ms, update_arrival_rate
from matcher.queue.estimate import WaitEstimator, rating_band
from matcher.queue.events import DequeueReason, WaveTick
from matcher.queue.finished import FinishedTickets, JournalEntry
from matcher.queue.meetings import History, forget_meeting, prune_meetings, record_meetings
from matcher.queue.outcomes import Dequeued, Searching
from matcher.queue.tickets import Held, Lifecycle, QueuedTicket
from matcher.queue.wave_close import matched_ticket_ids

__all__ = ["QueueRules", "QueuedTicket", "RegionState"]


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


#: :meth:`RegionState.conflict`'s answer for a join of a ticket held here (in a ready
#: check, a placement, or waiting for its claims): the first join of an id wins.
HELD_AGAIN = "its ticket is held here"

# Built by the thousand when a big wave closes: fastbuild matters (docs/benchmarks/duel.md).
_make_dequeued = builder(Dequeued)
_make_last_match = builder(LastMatch)
_make_waiting = builder(WaitingTicket)
# Once per join, without the frozen __init__'s two object.__setattr__ calls.
_make_queued = builder(QueuedTicket)


@dataclass(slots=True)
class RegionState:
    """State of one (queue, region). Events are applied by :mod:`matcher.queue.fold`."""

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
    # Held tickets: proposed matches, placements, joins awaiting claims.
    life: Lifecycle = field(default_factory=Lifecycle)
    # Why the last wave failed (None after a good one): a failure is reported once.
    failing: str | None = None
    # Recent matches per player, kept only for a queue with a rematch rule.
    meetings: dict[str, History] = field(default_factory=dict)
    # Matches placed so far: channels rotate over the region's matches across waves.
    matches_placed: int = 0
    # The fingerprint of the configuration its last tick switched it to (docs/adr/0160);
    # None: the book's own.
    config: str | None = None
    # A tick switched the configuration: that tick's wave checks the queued tickets
    # against it (docs/adr/0209). Never in a snapshot: set and cleared in one tick's fold.
    refit_due: bool = False

    # -- reading ----------------------------------------------------------------------

    @property
    def players_queued(self) -> int:
        return len(self.player_ticket)

    def waves_waited(self, queued: QueuedTicket, closing: int = 0) -> int:
        """Waves ``queued`` has waited; ``closing`` is 1 inside a wave close, whose wave
        counts as waited. The one formula: the bulk loops below inline it."""
        return self.waves_closed + closing - queued.joined_wave

    def next_tick_at_ms(self, cadence: CadencePolicy, players_per_match: int) -> int | None:
        """When the next wave is due under ``cadence``; None before the first wave.

        A function of the log, so every worker that folded it picks the same instant
        (and so the same tick sequence: a second worker's tick is a stale no-op).
        """
        if not self.last_tick_at_ms:
            return None
        interval = next_interval_ms(cadence, self.arrival_rate_per_s or 0.0, players_per_match)
        return self.last_tick_at_ms + interval

    def conflict(self, ticket: Ticket) -> str | None:
        """Why ``ticket`` cannot join beside the tickets queued or held, or None;
        :data:`HELD_AGAIN` when its own id is held here (its join sent again)."""
        life = self.life
        if len(ticket.players) == 1:  # the usual solo join: one lookup
            player_id = ticket.players[0].player_id
            other = self.player_ticket.get(player_id)
            if other is None:
                if not life.players:
                    return None
                if life.holds_ticket(ticket.ticket_id):
                    return HELD_AGAIN
                other = life.players.get(player_id)
                if other is None:
                    return None
            elif life.players and life.holds_ticket(ticket.ticket_id):
                return HELD_AGAIN
            return f"player {player_id} is already queued in ticket {other}"
        if life.players and life.holds_ticket(ticket.ticket_id):
            return HELD_AGAIN
        seen: set[str] = set()
        for player in ticket.players:
            if player.player_id in seen:
                return f"player {player.player_id} appears twice in the ticket"
            seen.add(player.player_id)
            other = self.player_ticket.get(player.player_id) or life.players.get(player.player_id)
            if other is not None:
                return f"player {player.player_id} is already queued in ticket {other}"
        return None

    def expiring(self, tick: WaveTick, ticket_ttl_ms: int) -> list[QueuedTicket]:
        deadline = tick.tick_at_ms - ticket_ttl_ms
        return [q for q in self.tickets.values() if q.ticket.joined_at_ms <= deadline]

    # -- tickets arriving ------------------------------------------------------------

    def admit(self, ticket: Ticket) -> int:
        """Queue a join that passed every check; return its position (it is last)."""
        tickets = self.tickets
        tickets[ticket.ticket_id] = _make_queued(ticket, self.waves_closed)
        players = ticket.players
        self.arrivals_since_tick += len(players)
        for player in players:
            self.player_ticket[player.player_id] = ticket.ticket_id
        return len(tickets)

    def refuse(self, ticket: Ticket, reason: DequeueReason, detail: str) -> Dequeued:
        """A join refused: its id is remembered so a retried copy is a no-op."""
        self.finished[ticket.ticket_id] = max(ticket.joined_at_ms, self.last_tick_at_ms)
        return self._dequeued(ticket.ticket_id, reason, 0, ticket.joined_at_ms, detail=detail)

    def end_unqueued(
        self, ticket: Ticket, reason: DequeueReason, detail: str, at_ms: int
    ) -> Dequeued:
        """A ticket held here but never queued (a copy not open yet) ends at ``at_ms``."""
        self.forget_ticket(ticket.ticket_id, at_ms)
        return self._dequeued(ticket.ticket_id, reason, 0, at_ms, detail=detail)

    def forget_ticket(self, ticket_id: str, at_ms: int) -> None:
        """A ticket that never came here ended elsewhere: a later copy of it is a no-op."""
        self.finished[ticket_id] = at_ms

    # -- tickets leaving ---------------------------------------------------------------

    def finish(
        self,
        queued: QueuedTicket,
        reason: DequeueReason,
        at_ms: int,
        *,
        closing: int = 0,
        match_id: str | None = None,
        wave_id: str | None = None,
        detail: str | None = None,
    ) -> Dequeued:
        """A queued ticket leaves for good: out of the queue, its players freed, its id
        remembered at ``at_ms``."""
        ticket = queued.ticket
        del self.tickets[ticket.ticket_id]
        for player in ticket.players:
            self.player_ticket.pop(player.player_id, None)
        self.finished[ticket.ticket_id] = at_ms
        waited = self.waves_waited(queued, closing)
        return self._dequeued(ticket.ticket_id, reason, waited, at_ms, match_id, wave_id, detail)

    def finish_held(
        self,
        tickets: dict[str, QueuedTicket],
        reason: DequeueReason,
        at_ms: int,
        match_id: str | None = None,
        wave_id: str | None = None,
        detail: str | None = None,
    ) -> tuple[Dequeued, ...]:
        """Held tickets leave for good, in ticket id order: seats freed, ids remembered."""
        life, out = self.life, list[Dequeued]()
        for ticket_id, queued in sorted(tickets.items()):
            life.unhold(queued.ticket)
            self.finished[ticket_id] = at_ms
            life.forget_failures(ticket_id)
            waited = self.waves_waited(queued)
            # The time-to-match metric's start, as for a ticket matched at its wave.
            joined = queued.ticket.joined_at_ms if reason is DequeueReason.MATCHED else None
            out.append(
                self._dequeued(ticket_id, reason, waited, at_ms, match_id, wave_id, detail, joined)
            )
        return tuple(out)

    def finish_pending(
        self,
        ticket_id: str,
        reason: DequeueReason,
        at_ms: int,
        wave_id: str | None = None,
        detail: str | None = None,
    ) -> Dequeued | None:
        """A join still waiting for its claims leaves; None if it is not pending."""
        if self.life.end_pending(ticket_id) is None:
            return None
        self.finished[ticket_id] = at_ms
        return self._dequeued(ticket_id, reason, 0, at_ms, None, wave_id, detail)

    def switch_config(self, fingerprint: str | None) -> None:
        """The region is under ``fingerprint``'s configuration from this tick on."""
        if fingerprint != self.config:
            self.config = fingerprint
            self.refit_due = True

    def refuse_unfit(
        self, problem_of: Callable[[Ticket], str | None], tick: WaveTick
    ) -> list[Dequeued]:
        """Take out the queued tickets the configuration now in force would refuse at
        join (``problem_of`` says why), each dequeued REJECTED at ``tick``: the queue
        could never match them; mark the held ones it would refuse, to be dequeued so if
        they come back. A ticket searching several places keeps searching: its other
        places judge it under their own configurations."""
        self.refit_due = False
        life = self.life
        places, unfit = life.places, []
        for queued in self.tickets.values():
            problem = None if queued.ticket.ticket_id in places else problem_of(queued.ticket)
            if problem is not None:
                unfit.append((queued, problem))
        if life.players:  # held ones are judged when they come back (docs/adr/0213)
            for ticket_id, ticket in life.held_tickets():
                problem = None if ticket_id in places else problem_of(ticket)
                if problem is not None:
                    life.mark_unfit(ticket_id, problem)
        at_ms, wave_id = tick.tick_at_ms, tick.wave_id
        return [
            self.finish(
                queued,
                DequeueReason.REJECTED,
                at_ms,
                wave_id=wave_id,
                detail=f"the configuration in force from this wave refuses it: {problem}",
            )
            for queued, problem in unfit
        ]

    def expire(self, expiring: list[QueuedTicket], tick: WaveTick) -> list[Dequeued]:
        """Take ``expiring`` out of the queue: each is dequeued EXPIRED at ``tick``."""
        reason, at_ms, wave_id = DequeueReason.EXPIRED, tick.tick_at_ms, tick.wave_id
        return [self.finish(q, reason, at_ms, wave_id=wave_id) for q in expiring]

    def remove_matched(self, matches: tuple[Match, ...], tick: WaveTick) -> list[Dequeued]:
        """Take the matched tickets out of the state, in match order then ticket id order.

        Returns their dequeues, and tells the estimator each one's rating band and wait.
        A big wave matches most of the queue (10,000 tickets) in an order unrelated to
        the order they joined in, which is about the order they lie in memory: the
        tickets are read in join order (in match order, each read would miss the
        cache), once.
        """
        ticket_ids, match_ids = matched_ticket_ids(matches)
        gone = set(ticket_ids)
        if len(gone) != len(ticket_ids):  # as deleting a ticket twice would
            raise KeyError(next(t for t in ticket_ids if ticket_ids.count(t) > 1))
        tickets = self.tickets
        if not tickets.keys() >= gone:
            raise KeyError(next(t for t in ticket_ids if t not in tickets))
        waited_base = self.waves_closed + 1  # waves_waited(q, closing=1), inlined
        if 2 * len(gone) < len(tickets):  # a few: looked up
            chosen = [(t, tickets[t]) for t in ticket_ids]
        else:
            chosen = [(t, q) for t, q in tickets.items() if t in gone]
        # (rating band, waves waited) of each; the estimator's histograms do not depend
        # on the order they are given in.
        taken = {t: (rating_band(q.ticket), waited_base - q.joined_wave) for t, q in chosen}
        joined = {t: q.ticket.joined_at_ms for t, q in chosen}
        self.drop(gone, chosen)
        self.estimator.observe_bands(list(taken.values()))
        at_ms, wave_id, name, region = tick.tick_at_ms, tick.wave_id, self.queue, self.region
        reason = DequeueReason.MATCHED
        out = [
            _make_dequeued(
                t, name, region, reason, taken[t][1], at_ms, match_id, wave_id, None, joined[t]
            )
            for t, match_id in zip(ticket_ids, match_ids, strict=True)
        ]
        self.finished.finish_all(ticket_ids, at_ms)
        self.remember_encounters(matches)
        return out

    def drop(self, ticket_ids: set[str], entries: list[tuple[str, QueuedTicket]]) -> None:
        """Forget queued tickets (``entries``: those of ``ticket_ids``) and their players.

        Both maps keep their order. When most of the queue goes, both are rebuilt from
        what stays rather than deleted from entry by entry; a player maps to its ticket,
        so the players to forget are those of a ticket that goes.
        """
        if 2 * len(ticket_ids) < len(self.tickets):
            for ticket_id, entry in entries:
                del self.tickets[ticket_id]
                for player in entry.ticket.players:
                    self.player_ticket.pop(player.player_id, None)
            return
        self.tickets = {t: q for t, q in self.tickets.items() if t not in ticket_ids}
        self.player_ticket = {p: t for p, t in self.player_ticket.items() if t not in ticket_ids}

    def _dequeued(
        self,
        ticket_id: str,
        reason: DequeueReason,
        waited: int,
        at_ms: int,
        match_id: str | None = None,
        wave_id: str | None = None,
        detail: str | None = None,
        joined_at_ms: int | None = None,
    ) -> Dequeued:
        """The one builder of a region's Dequeued (the bulk wave path uses its fast twin
        of the same constructor, :data:`_make_dequeued`)."""
        return Dequeued(
            ticket_id,
            self.queue,
            self.region,
            reason,
            waited,
            at_ms,
            match_id,
            wave_id,
            detail,
            joined_at_ms,
        )

    # -- tickets held and returned ---------------------------------------------------

    def take_matched(self, matches: tuple[Match, ...]) -> list[dict[str, QueuedTicket]]:
        """Move each match's tickets from the queue to the held players, in bulk (as a
        wave removes its matched tickets); each match's tickets in ticket id order."""
        ticket_ids, match_ids = matched_ticket_ids(matches)
        tickets = self.tickets
        chosen = [(t, tickets[t]) for t in ticket_ids]
        self.drop(set(ticket_ids), chosen)
        hold = self.life.hold
        out: list[dict[str, QueuedTicket]] = []
        last = None
        for (ticket_id, queued), match_id in zip(chosen, match_ids, strict=True):
            if match_id != last:
                out.append({})
                last = match_id
            out[-1][ticket_id] = queued
            hold(ticket_id, queued.ticket)
        return out

    def requeue(self, back: dict[str, QueuedTicket]) -> None:
        """Put held tickets back in the queue with the wave they joined in (their waiting
        time), behind every ticket that joined in the same wave or earlier."""
        for queued in back.values():
            self.life.unhold(queued.ticket)
        merged: dict[str, QueuedTicket] = {}
        returning = sorted(back.items(), key=lambda item: (item[1].joined_wave, item[0]))
        index = 0
        for ticket_id, queued in self.tickets.items():
            while index < len(returning) and returning[index][1].joined_wave < queued.joined_wave:
                merged[returning[index][0]] = returning[index][1]
                index += 1
            merged[ticket_id] = queued
        for ticket_id, queued in returning[index:]:
            merged[ticket_id] = queued
        self.tickets = merged
        for ticket_id, queued in back.items():
            for player in queued.ticket.players:
                self.player_ticket[player.player_id] = ticket_id

    def matched_late(self, held: Held) -> None:
        """The wait estimator learns a held ticket's wait when it is matched for good."""
        self.estimator.observe_late(
            [(rating_band(q.ticket), self.waves_waited(q)) for q in held.tickets.values()]
        )

    # -- waves -----------------------------------------------------------------------

    def remember_encounters(self, matches: tuple[Match, ...]) -> None:
        """Remember each matched player's mates and opponents (the strategies' last match)."""
        last_matches = self.last_matches
        for match in matches:
            teams = match.teams
            if len(teams) == 2 and len(teams[0].seats) == 1 and len(teams[1].seats) == 1:
                first, second = teams[0].seats[0].player_id, teams[1].seats[0].player_id
                last_matches[first] = _make_last_match(first, (), (second,))
                last_matches[second] = _make_last_match(second, (), (first,))
                continue
            players = [tuple(seat.player_id for seat in team.seats) for team in teams]
            for index, mates in enumerate(players):
                foes = tuple(
                    pid for other, team in enumerate(players) if other != index for pid in team
                )
                for player_id in mates:
                    others = tuple(pid for pid in mates if pid != player_id)
                    last_matches[player_id] = LastMatch(player_id, others, foes)

    def remember_meetings(
        self, matches: tuple[Match, ...], at_ms: int, within_ms: int, last: int
    ) -> None:
        """Keep the recent meetings a rematch rule reads (pruned past ``within_ms``)."""
        self.meetings = prune_meetings(self.meetings, at_ms - within_ms)
        record_meetings(self.meetings, matches, at_ms, last)

    def take_back_meeting(self, tickets: dict[str, QueuedTicket]) -> None:
        """A held match that is never played (a failed ready check or placement) is taken
        back from the meetings: the rematch rule reads only matches that were played."""
        if self.meetings:
            forget_meeting(
                self.meetings, [p.player_id for q in tickets.values() for p in q.ticket.players]
            )

    def held_wave(self) -> None:
        """A wave whose matches are held: it still opens the estimator's next window
        (its tickets count when they are matched for good, docs/adr/0115)."""
        self.estimator.observe_bands([])

    def close_wave(self, tick: WaveTick, matches: int, cadence: CadencePolicy | None) -> None:
        """Count a closed wave of ``matches`` matches: the failure is over, the arrival
        rate moves, the tick is the last one."""
        self.failing = None
        self.waves_closed += 1
        self.matches_placed += matches
        if cadence is not None and self.last_tick_at_ms:
            self.arrival_rate_per_s = update_arrival_rate(
                cadence,
                self.arrival_rate_per_s,
                self.arrivals_since_tick,
                tick.tick_at_ms - self.last_tick_at_ms,
            )
        self.arrivals_since_tick = 0
        self._ticked(tick)

    def fail_wave(self, tick: WaveTick, reason: str) -> bool:
        """Record a failed wave; True if ``reason`` is new (reported once, not per wave)."""
        first = reason != self.failing
        self.failing = reason
        self._ticked(tick)
        return first

    def _ticked(self, tick: WaveTick) -> None:
        self.last_sequence = tick.sequence
        self.last_tick_at_ms = tick.tick_at_ms
        self.last_interval_ms = tick.interval_ms

    def remember_population(self, matched_players: int, window: int) -> None:
        self.recent_matched_players.append(matched_players)
        while len(self.recent_matched_players) > window:
            self.recent_matched_players.popleft()

    def replay_finished(self, journal: Iterable[JournalEntry], *, from_scratch: bool) -> None:
        """Rebuild the remembered ids from a saved journal (docs/adr/0062); from scratch
        when the journal starts from a whole base."""
        if from_scratch:
            self.finished = FinishedTickets()
        self.finished.replay(journal)

    def prune_finished(self, older_than_ms: int) -> None:
        self.finished.prune(older_than_ms)
        self.life.keep_refused(self.finished)
        if len(self.last_matches) > 4 * (len(self.player_ticket) + 1000):
            queued = self.player_ticket
            self.last_matches = {k: v for k, v in self.last_matches.items() if k in queued}

    def snapshot(
        self, tick: WaveTick, leaving: set[str] | frozenset[str] = frozenset()
    ) -> WaveSnapshot:
        """The queue exactly at ``tick``: tickets in join order with their wait cycles.

        ``leaving`` are tickets the tick expires; they are not offered to the strategy,
        nor are the tickets another place's match holds (``life.paused``).
        """
        queued = list(self.tickets.values())
        paused = self.life.paused
        if paused:
            leaving = set(leaving).union(paused)
        if leaving:
            queued = [q for q in queued if q.ticket.ticket_id not in leaving]
        closed = self.waves_closed  # waves_waited(q), inlined
        waiting = tuple([_make_waiting(q.ticket, closed - q.joined_wave) for q in queued])
        history, meetings = self._queued_histories(queued)
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
            meetings=meetings,
            matches_placed=self.matches_placed,
        )

    def _queued_histories(
        self, queued: list[QueuedTicket]
    ) -> tuple[tuple[LastMatch, ...], tuple[tuple[str, History], ...]]:
        """The queued players' last matches and recent meetings, in queue order: one
        pass over the queue for both."""
        last_matches, meetings = self.last_matches, self.meetings
        if not last_matches and not meetings:
            return (), ()
        history: list[LastMatch] = []
        met: list[tuple[str, History]] = []
        for q in queued:
            for player in q.ticket.players:
                player_id = player.player_id
                last_match = last_matches.get(player_id)
                if last_match is not None:
                    history.append(last_match)
                recent = meetings.get(player_id)
                if recent is not None:
                    met.append((player_id, recent))
        return tuple(history), tuple(met)

    # -- statuses ----------------------------------------------------------------------

    def searching(self, ticket: Ticket, position: int, at_ms: int) -> Searching:
        """The status of a ticket just queued, ``position``-th, after no wave waited."""
        return statuses.searching(
            ticket,
            self.queue,
            self.region,
            position,
            0,
            at_ms,
            self.last_tick_at_ms,
            self.last_interval_ms,
            self.estimator,
        )

    def wave_statuses(self, tick: WaveTick) -> tuple[Searching, ...]:
        """Each queued ticket's status after ``tick``'s wave, in queue order; none for
        a ticket another place's match holds (its status is that place's)."""
        queued: Iterable[QueuedTicket] = self.tickets.values()
        paused = self.life.paused
        if paused:
            queued = [q for t, q in self.tickets.items() if t not in paused]
        return statuses.wave_statuses(
            queued,
            self.waves_closed,
            self.queue,
            self.region,
            tick,
            self.last_tick_at_ms,
            self.last_interval_ms,
            self.estimator,
        )
