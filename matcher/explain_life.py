"""Why a held ticket went back to the queue or was dequeued: the requeue and timeout lines
of ``wavematch explain --ticket`` (docs/adr/0111, docs/adr/0115).

Pure: the caller folds the log and hands over, record by record, the event applied and
the step it decided. The story follows one ticket's proposals and placements and says,
when one ends, who declined, who had not answered by the deadline and which tick decided
it, or why a placement failed and how many of the queue's ``placement_requeues`` are left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from matcher.queue.events import DequeueReason, WaveTick
from matcher.queue.lifecycle import (
    MatchProposal,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
    StageStatus,
    TicketStage,
)
from matcher.queue.outcomes import Dequeued, Step

#: The notes of a step that applied a ready-check answer.
_ANSWERED = ("accepted", "match_confirmed", "match_cancelled")


@dataclass(slots=True)
class _Proposal:
    deadline_ms: int
    #: player id -> ticket id, in seat order.
    players: dict[str, str]
    accepted: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LifeStory:
    """The explicit requeue and timeout lines of one ticket, fed event by event.

    ``placement_requeues``: the queue's setting (how often a ticket is put back after a
    failed placement before it is dequeued PLACEMENT_FAILED).

    >>> from matcher.core import Match, Seat, Team
    >>> teams = (Team("a", (Seat("t1", "ann", "", 1),)), Team("b", (Seat("t2", "bo", "", 1),)))
    >>> match = Match("m", teams, "x", "s", "c", ())
    >>> proposed = MatchProposal(match, "q", "eu", "w1", "optimal", "cfg", 10, 15)
    >>> story = LifeStory("t1", placement_requeues=2)
    >>> story.follow(lambda: None, Step("wave_closed", (proposed,)))
    []
    >>> tick = WaveTick("q", "eu", "w2", 20, 20, "cfg", 10)
    >>> back = StageStatus("t1", "q", "eu", TicketStage.SEARCHING, 1, 20)
    >>> (line,) = story.follow(lambda: tick, Step("wave_closed", (back,)))
    >>> for part in line.split("; "):
    ...     print(part)
    timed out: ready check of match m, deadline 15, decided by the WaveTick of wave w2 at 20
    no answer from ann (ticket t1), bo (ticket t2)
    accepted by nobody

    A ticket is held by at most one proposal or placement at a time: whatever held it
    ends in the step that puts it back in the queue or dequeues it.

    Notes: O(outputs of the step) per record.
    """

    ticket_id: str
    placement_requeues: int
    #: The ready check the ticket is in: (match id, its deadline, players and answers).
    proposal: tuple[str, _Proposal] | None = None
    #: The placement the ticket waits for: (match id, the deadline of its report).
    placing: tuple[str, int] | None = None
    placement_failures: int = 0

    def follow(self, event_of: Callable[[], Any], step: Step) -> list[str]:
        """The lines a record adds to the ticket's story: ``step`` is what the fold decided,
        ``event_of()`` the record's domain event (asked only when needed: decoding costs)."""
        mine = self._touched(step)
        lines: list[str] = []
        if mine is not None or (step.note in _ANSWERED and self.proposal is not None):
            lines = self._explain(event_of(), step, mine)
        if mine is not None:  # back in the queue or gone: what held it has ended
            self.proposal = self.placing = None
        self._learn(step)
        return lines

    def _explain(self, event: Any, step: Step, mine: StageStatus | Dequeued | None) -> list[str]:
        if isinstance(event, ReadyCheckAnswered):
            return self._answered(event, step)
        if isinstance(event, PlacementReported) and mine is not None:
            return self._reported(event, mine)
        if isinstance(event, WaveTick) and mine is not None:
            return self._decided_at(event, mine)
        return []

    def _learn(self, step: Step) -> None:
        """A proposal or a placement that holds the ticket from this step on."""
        for output in step.outputs:
            if isinstance(output, MatchProposal) and output.deadline_at_ms is not None:
                players = {
                    s.player_id: s.ticket_id for team in output.match.teams for s in team.seats
                }
                if self.ticket_id in players.values():
                    match_id = output.match.match_id
                    self.proposal = (match_id, _Proposal(output.deadline_at_ms, players))
            elif (
                isinstance(output, StageStatus)
                and output.ticket_id == self.ticket_id
                and output.stage is TicketStage.PLACING
                and output.match_id is not None
                and output.deadline_ms is not None
            ):
                self.placing = (output.match_id, output.deadline_ms)

    def _touched(self, step: Step) -> StageStatus | Dequeued | None:
        """The ticket's return to the queue (a SEARCHING stage) or its dequeue in ``step``."""
        for output in step.outputs:
            if (
                isinstance(output, StageStatus)
                and output.ticket_id == self.ticket_id
                and output.stage is TicketStage.SEARCHING
            ):
                return output
        return next((d for d in step.dequeued if d.ticket_id == self.ticket_id), None)

    def _answered(self, event: ReadyCheckAnswered, step: Step) -> list[str]:
        if self.proposal is None or self.proposal[0] != event.match_id:
            return []
        proposal = self.proposal[1]
        if event.accepted:
            if event.player_id not in proposal.accepted:  # a retried accept: no second one
                proposal.accepted.append(event.player_id)
            if step.note == "match_confirmed":
                self.proposal = None
            return []
        self.proposal = None
        if event.player_id in proposal.accepted:  # accepted, then declined: a decline
            proposal.accepted.remove(event.player_id)
        decliner = proposal.players.get(event.player_id, "?")
        if decliner == self.ticket_id:
            return [f"declined: {event.player_id} declined match {event.match_id} at {event.at_ms}"]
        silent = [
            p for p in proposal.players if p not in proposal.accepted and p != event.player_id
        ]
        return [
            f"requeued: {event.player_id} (ticket {decliner}) declined match {event.match_id} "
            f"at {event.at_ms}; accepted by {_names(proposal.accepted)}; not answered yet by "
            f"{_names(silent, proposal.players)}"
        ]

    def _reported(self, event: PlacementReported, mine: StageStatus | Dequeued) -> list[str]:
        if event.outcome is not PlacementOutcome.FAILED:
            where = event.connection  # the address only: the token is a secret (ADR 0171)
            if where is None:
                return []
            token = ", with a join token" if where.token is not None else ""
            return [
                f"started: match {event.match_id}'s server at {where.address}:{where.port}{token}"
            ]
        self.placement_failures += 1
        reason = event.detail or "no reason given"
        why = f"placement of match {event.match_id} failed at {event.at_ms} ({reason})"
        used, allowed = self.placement_failures, self.placement_requeues
        if isinstance(mine, StageStatus):
            return [
                f"requeued: {why}; placement requeue {used} of {allowed} used, "
                f"{allowed - used} left"
            ]
        if mine.reason is DequeueReason.PLACEMENT_FAILED:
            return [f"not requeued: {why}; all {allowed} placement requeues were used"]
        return []

    def _decided_at(self, tick: WaveTick, mine: StageStatus | Dequeued) -> list[str]:
        at = f"decided by the WaveTick of wave {tick.wave_id} at {tick.tick_at_ms}"
        if self.proposal is not None and self.proposal[1].deadline_ms <= tick.tick_at_ms:
            match_id, proposal = self.proposal
            silent = [p for p in proposal.players if p not in proposal.accepted]
            return [
                f"timed out: ready check of match {match_id}, deadline {proposal.deadline_ms}, "
                f"{at}; no answer from {_names(silent, proposal.players)}; accepted by "
                f"{_names(proposal.accepted)}"
            ]
        if self.placing is not None and self.placing[0] == mine.match_id:
            match_id, deadline = self.placing
            return [
                f"placement of match {match_id} not reported by its deadline {deadline}: {at} "
                "counted it started"
            ]
        return []


def _names(players: list[str], tickets: dict[str, str] | None = None) -> str:
    if not players:
        return "nobody"
    if tickets is None:
        return ", ".join(players)
    return ", ".join(f"{p} (ticket {tickets[p]})" for p in players)
