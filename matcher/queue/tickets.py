"""What a region's state is made of: its queued tickets and its held ones, with the
held state's own mutators.

:class:`~matcher.queue.state.RegionState` owns a :class:`Lifecycle`; the step that
decides what to hold or release (:mod:`matcher.queue.held`) calls these methods and
never writes their fields (docs/adr/0125).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterator
from dataclasses import dataclass, field

from matcher.core import Ticket
from matcher.queue.events import Search
from matcher.queue.lifecycle import BackfillRequested, MatchProposal


@dataclass(frozen=True, slots=True)
class QueuedTicket:
    ticket: Ticket
    joined_wave: int


#: The leaves of unknown tickets a place keeps for copies that may follow them.
EARLY_LEAVES_KEPT = 10_000


@dataclass(slots=True)
class Held:
    """Tickets of one match (proposed or placing) out of the queue."""

    tickets: dict[str, QueuedTicket]
    deadline_ms: int
    proposal: MatchProposal | None = None
    accepted: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Lifecycle:
    """The region's held tickets; every player of them is in ``players`` (seat reserved)."""

    proposals: dict[str, Held] = field(default_factory=dict)
    placing: dict[str, Held] = field(default_factory=dict)
    #: Joins waiting for their claims: ticket id -> (ticket, players granted so far).
    pending: dict[str, tuple[Ticket, set[str]]] = field(default_factory=dict)
    players: dict[str, str] = field(default_factory=dict)
    #: Tickets that asked for claims and still hold them: released when they leave.
    claimed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    placement_failures: dict[str, int] = field(default_factory=dict)
    #: Matches resolved lately (match id -> log time), so a late answer is told apart
    #: from an answer for a match that never was.
    closed: dict[str, int] = field(default_factory=dict)
    #: Active backfill requests by session, in request order (matcher/queue/backfill.py).
    backfills: dict[str, BackfillRequested] = field(default_factory=dict)
    #: The tickets partial fills seated in a session whose request stays open (session id
    #: -> tickets in fill order): their players' attributes count in the later fills' rules.
    backfill_seated: dict[str, tuple[Ticket, ...]] = field(default_factory=dict)
    #: Tickets here that search several places: ticket id -> every place (docs/adr/0145).
    places: dict[str, tuple[Search, ...]] = field(default_factory=dict)
    #: Copies not open here yet: ticket id -> (ticket, log time it opens at).
    unopened: dict[str, tuple[Ticket, int]] = field(default_factory=dict)
    #: Tentative matches awaiting their search claims: ``accepted`` holds the tickets
    #: granted so far.
    tentative: dict[str, Held] = field(default_factory=dict)
    #: Tickets here whose search another place's match holds through its ready check or
    #: placement: ticket id -> that match's id. Not offered to this place's waves and
    #: given no status here until the match gives them back (docs/adr/0204).
    paused: dict[str, str] = field(default_factory=dict)
    #: Copies this place refused while their ticket searches on elsewhere: ticket id ->
    #: (ticket, every place), so a leave sent here still reaches the places searching
    #: (docs/adr/0207). Kept as long as the refused id is remembered as finished.
    refused: dict[str, tuple[Ticket, tuple[Search, ...]]] = field(default_factory=dict)
    #: Leaves of tickets this place did not hold: ticket id -> (reason, log time). The
    #: copy of a join searching several places, written after its leave was sent here,
    #: ends as it arrives (docs/adr/0211). Kept a ticket TTL, and at most
    #: EARLY_LEAVES_KEPT (the oldest go first).
    early_leaves: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Held tickets the configuration switched to while they were held refuses at join:
    #: ticket id -> why. Each ends REJECTED if it comes back to the queue (docs/adr/0213).
    unfit: dict[str, str] = field(default_factory=dict)
    #: At most the earliest opening time in ``unopened`` (a wave before it opens none);
    #: derived, not kept in snapshots: 0 after a restore, so the first wave looks.
    unopened_due_at: int = field(default=0, compare=False)
    #: The held tickets' ids, each with how many seats of ``players`` it holds: a join
    #: sent again while its ticket is held is known by its id, whatever its players.
    #: Derived from ``players``, not kept in snapshots.
    held_seats: dict[str, int] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.players and not self.held_seats:  # restored from a snapshot
            self.held_seats = dict(Counter(self.players.values()))

    def holds(self) -> bool:
        return bool(self.players)

    def holds_ticket(self, ticket_id: str) -> bool:
        """Whether ``ticket_id`` is held here, out of the queue: a join waiting for its
        claims, a copy not open yet, or a ticket in a ready check or placement."""
        return ticket_id in self.held_seats

    # -- seats ------------------------------------------------------------------------

    def hold(self, ticket_id: str, ticket: Ticket) -> None:
        players, seats = self.players, self.held_seats
        for player in ticket.players:
            before = players.get(player.player_id)
            if before == ticket_id:
                continue
            if before is not None:
                self._free_seat(before)
            players[player.player_id] = ticket_id
            seats[ticket_id] = seats.get(ticket_id, 0) + 1

    def unhold(self, ticket: Ticket) -> None:
        players, ticket_id = self.players, ticket.ticket_id
        for player in ticket.players:
            if players.get(player.player_id) == ticket_id:
                del players[player.player_id]
                self._free_seat(ticket_id)

    def _free_seat(self, ticket_id: str) -> None:
        left = self.held_seats[ticket_id] - 1
        if left:
            self.held_seats[ticket_id] = left
        else:
            del self.held_seats[ticket_id]

    # -- joins waiting for claims (docs/adr/0110) ------------------------------------

    def hold_pending(self, ticket: Ticket) -> tuple[str, ...]:
        """Keep ``ticket`` pending; return the players whose claims it asks for."""
        players = tuple(p.player_id for p in ticket.players)
        self.pending[ticket.ticket_id] = (ticket, set())
        self.claimed[ticket.ticket_id] = players
        self.hold(ticket.ticket_id, ticket)
        return players

    def grant(self, ticket_id: str, player_id: str) -> bool:
        """Record ``player_id``'s claim for a pending ticket; True once all are granted."""
        ticket, granted = self.pending[ticket_id]
        granted.add(player_id)
        return len(granted) >= len(ticket.players)

    def end_pending(self, ticket_id: str) -> Ticket | None:
        """Stop holding a pending join (its seats freed); None if it is not pending."""
        entry = self.pending.pop(ticket_id, None)
        if entry is None:
            return None
        self.unhold(entry[0])
        return entry[0]

    def release_claims(self, ticket_id: str) -> tuple[str, ...]:
        """The players whose claims ``ticket_id`` held (none if it asked for none)."""
        return self.claimed.pop(ticket_id, None) or ()

    # -- proposals and placements ----------------------------------------------------

    def hold_match(self, ticket_id: str, queued: QueuedTicket) -> None:
        self.hold(ticket_id, queued.ticket)

    def propose(self, match_id: str, held: Held) -> None:
        self.proposals[match_id] = held

    def start_placing(self, match_id: str, held: Held) -> None:
        self.placing[match_id] = held

    def accept(self, held: Held, player_id: str) -> int:
        """Record an acceptance; return how many players of the match accepted."""
        held.accepted.add(player_id)
        return len(held.accepted)

    def end_proposal(self, match_id: str, at_ms: int) -> Held:
        self.closed[match_id] = at_ms
        return self.proposals.pop(match_id)

    def end_placing(self, match_id: str, at_ms: int) -> Held:
        self.closed[match_id] = at_ms
        return self.placing.pop(match_id)

    def leave_placing(self, ticket_id: str) -> QueuedTicket | None:
        """Take a leaving ticket out of its placing match (the others still place)."""
        for held in self.placing.values():
            queued = held.tickets.pop(ticket_id, None)
            if queued is not None:
                return queued
        return None

    def failed_placement(self, ticket_id: str) -> int:
        """Count a failed placement of ``ticket_id``; return its failures so far."""
        failures = self.placement_failures
        failures[ticket_id] = failures.get(ticket_id, 0) + 1
        return failures[ticket_id]

    def forget_failures(self, ticket_id: str) -> None:
        self.placement_failures.pop(ticket_id, None)

    def held_tickets(self) -> Iterator[tuple[str, Ticket]]:
        """Every ticket held out of the queue that could come back to it: in a ready
        check or placement, or waiting for its claims."""
        for holding in (self.proposals, self.placing):
            for match in holding.values():
                for ticket_id, queued in match.tickets.items():
                    yield ticket_id, queued.ticket
        for ticket_id, (ticket, _) in self.pending.items():
            yield ticket_id, ticket

    def mark_unfit(self, ticket_id: str, problem: str) -> None:
        self.unfit[ticket_id] = problem

    def take_unfit(self, ticket_id: str) -> str | None:
        return self.unfit.pop(ticket_id, None)

    def keep_unfit(self) -> None:
        """Forget the unfit marks of tickets no longer held (matched or ended)."""
        self.unfit = {t: p for t, p in self.unfit.items() if t in self.held_seats}

    def remember_early_leave(self, ticket_id: str, reason: str, at_ms: int) -> None:
        leaves = self.early_leaves
        leaves[ticket_id] = (reason, at_ms)
        if len(leaves) > EARLY_LEAVES_KEPT:  # a flood of leaves of unknown tickets
            del leaves[next(iter(leaves))]

    def take_early_leave(self, ticket_id: str) -> tuple[str, int] | None:
        return self.early_leaves.pop(ticket_id, None)

    def prune_early_leaves(self, horizon: int) -> None:
        """Forget the leaves sent at or before ``horizon``: a copy of a join that old is
        past its TTL and refused anyway."""
        leaves = self.early_leaves
        if leaves and next(iter(leaves.values()))[1] <= horizon:
            self.early_leaves = {t: v for t, v in leaves.items() if v[1] > horizon}

    def prune_closed(self, horizon: int) -> None:
        """Forget matches decided at or before ``horizon`` (a late answer then names no
        open match): every proposal of a busy queue would otherwise stay for the whole
        retention, in memory and in every snapshot."""
        closed = self.closed
        if closed and next(iter(closed.values())) <= horizon:
            self.closed = {m: at for m, at in closed.items() if at > horizon}

    # -- tickets searching several places (docs/adr/0145) ------------------------

    def search_places(self, ticket_id: str, places: tuple[Search, ...]) -> None:
        self.places[ticket_id] = places

    def hold_unopened(self, ticket: Ticket, open_at_ms: int) -> None:
        self.unopened[ticket.ticket_id] = (ticket, open_at_ms)
        self.unopened_due_at = min(self.unopened_due_at, open_at_ms)
        self.hold(ticket.ticket_id, ticket)

    def end_unopened(self, ticket_id: str) -> Ticket | None:
        entry = self.unopened.pop(ticket_id, None)
        if entry is None:
            return None
        self.unhold(entry[0])
        return entry[0]

    def remember_refused(self, ticket: Ticket, places: tuple[Search, ...]) -> None:
        self.refused[ticket.ticket_id] = (ticket, places)

    def forget_refused(self, ticket_id: str) -> tuple[Ticket, tuple[Search, ...]] | None:
        return self.refused.pop(ticket_id, None)

    def keep_refused(self, finished: Container[str]) -> None:
        """Forget the refused copies whose ids are no longer remembered as finished: by
        then the ticket's TTL has ended its search everywhere."""
        refused = self.refused  # in the order refused: the oldest first
        if refused and next(iter(refused)) not in finished:
            self.refused = {t: e for t, e in refused.items() if t in finished}

    def hold_tentative(self, match_id: str, held: Held) -> None:
        self.tentative[match_id] = held

    def end_tentative(self, match_id: str) -> Held:
        return self.tentative.pop(match_id)

    def keep_places(self, present: set[str]) -> None:
        """Forget the places (and pauses) of tickets no longer here."""
        if len(present) < len(self.places):
            self.places = {t: p for t, p in self.places.items() if t in present}
        if self.paused:
            self.paused = {t: m for t, m in self.paused.items() if t in present}

    def pause_search(self, ticket_id: str, match_id: str) -> bool:
        """Another place's match ``match_id`` holds the ticket; False when it does not
        search here."""
        if ticket_id not in self.places:
            return False
        self.paused[ticket_id] = match_id
        return True

    def resume_search(self, ticket_id: str, match_id: str) -> bool:
        """``match_id`` gave the ticket back; False when another hold (or none) stands."""
        if self.paused.get(ticket_id) != match_id:
            return False
        del self.paused[ticket_id]
        return True

    # -- backfill requests (docs/adr/0113) ------------------------------------------

    def request_backfill(self, event: BackfillRequested) -> None:
        self.backfills[event.session_id] = event
        self.backfill_seated.pop(event.session_id, None)  # the new request is the session

    def fill_backfill_partly(
        self, remaining: BackfillRequested, seated: tuple[Ticket, ...]
    ) -> None:
        """Keep ``remaining`` (same session, same request order) open after a partial fill."""
        self.backfills[remaining.session_id] = remaining
        self.backfill_seated[remaining.session_id] = seated

    def cancel_backfill(self, session_id: str) -> bool:
        self.backfill_seated.pop(session_id, None)
        return self.backfills.pop(session_id, None) is not None
