"""One active ticket per player: the claim events and the per-partition claim book.

A region admits a join only once every player of it holds a claim; the claims of one
player are all folded by the partition its key ``player/<player_id>`` lands in, so two
regions on two workers can never both admit the same player (docs/adr/0110).

A *search claim* (``match_id`` set, docs/adr/0145) claims a ticket that searches several
places for one tentative match: keyed ``search/<ticket_id>``, the first place to ask wins
it, and keeps it unless it releases it (its match was not made). A leave of the ticket
asks too (match id ``""``): first, it holds the ticket for good (docs/adr/0146).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ClaimRequested:
    """A region asks for ``player_id`` on behalf of ``ticket_id`` (written by the fold)."""

    player_id: str
    ticket_id: str
    queue: str
    region: str
    at_ms: int
    #: Set for a search claim: the tentative match that claims the ticket.
    match_id: str | None = None


@dataclass(frozen=True, slots=True)
class ClaimDecided:
    """The claim partition's answer, sent to the requesting ticket's region.

    Refused: ``holder`` is ``(ticket_id, queue, region)`` of the ticket holding the player.
    """

    player_id: str
    ticket_id: str
    queue: str
    region: str
    granted: bool
    at_ms: int
    holder: tuple[str, str, str] | None = None
    #: Set for a search claim's answer (the match that asked) or end notice (the match
    #: that took the ticket).
    match_id: str | None = None
    #: Set on an end notice: the ticket's search here ends (``matched_elsewhere`` or
    #: ``left``); written by the place that matched it or the place it left from.
    ended: str | None = None


@dataclass(frozen=True, slots=True)
class ClaimReleased:
    """``ticket_id`` left its region's state: its claim on ``player_id`` ends."""

    player_id: str
    ticket_id: str
    queue: str
    region: str
    at_ms: int
    #: Set for a search claim: the tentative match that gives the ticket up.
    match_id: str | None = None


@dataclass(frozen=True, slots=True)
class SearchHeld:
    """A notice to one place of a ticket that searches several: the holder's match keeps
    the ticket through its ready check or placement (``held``: its search here pauses),
    or was not made and gave it back (its search here resumes; docs/adr/0204)."""

    player_id: str
    ticket_id: str
    #: The place told.
    queue: str
    region: str
    match_id: str
    #: (queue, region) of the place whose match holds the ticket.
    holder: tuple[str, str]
    held: bool
    at_ms: int


ClaimEvent = ClaimRequested | ClaimReleased


@dataclass(slots=True)
class ClaimBook:
    """Who holds each player, for the players whose key lands in one partition.

    ``released`` remembers the tickets whose claims ended (by release time), so that a
    request written again by a worker that failed over after the release grants nothing.
    """

    holders: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    released: dict[str, int] = field(default_factory=dict)
    #: Search claims: ticket id -> (match id, queue, region, log time of the grant).
    searches: dict[str, tuple[str, str, str, int]] = field(default_factory=dict)
    last_at_ms: int = 0
    _prune_at: int = 1024

    def apply(self, event: ClaimEvent, retention_ms: int) -> ClaimDecided | None:
        """Fold one claim event; return the decision to publish, or None.

        >>> book = ClaimBook()
        >>> book.apply(ClaimRequested("p", "t1", "1v1", "eu", 5), 1000).granted
        True
        >>> book.apply(ClaimRequested("p", "t2", "1v1", "na", 6), 1000).holder
        ('t1', '1v1', 'eu')
        >>> book.apply(ClaimReleased("p", "t1", "1v1", "eu", 7), 1000)
        >>> book.apply(ClaimRequested("p", "t1", "1v1", "eu", 5), 1000) is None  # stale copy
        True

        Notes: O(1) amortised (released ids are pruned in bulk).
        """
        self.last_at_ms = max(self.last_at_ms, event.at_ms)
        if event.match_id is not None:
            return self._search(event, retention_ms)
        if isinstance(event, ClaimReleased):
            self._release(event, retention_ms)
            return None
        if event.ticket_id in self.released:
            return None
        mine = (event.ticket_id, event.queue, event.region)
        holder = self.holders.get(event.player_id)
        if holder is None or holder == mine:
            self.holders[event.player_id] = mine
            return ClaimDecided(
                event.player_id, event.ticket_id, event.queue, event.region, True, event.at_ms
            )
        return ClaimDecided(
            event.player_id, event.ticket_id, event.queue, event.region, False, event.at_ms, holder
        )

    def _search(self, event: ClaimEvent, retention_ms: int) -> ClaimDecided | None:
        """A search claim: the first tentative match to ask for a ticket holds it until it
        releases it; a request of a released (match, ticket) is a stale copy.

        >>> book = ClaimBook()
        >>> book.apply(ClaimRequested("p", "t", "1v1", "eu", 5, "m1"), 1000).granted
        True
        >>> book.apply(ClaimRequested("p", "t", "2v2", "na", 6, "m2"), 1000).holder
        ('t', '1v1', 'eu')
        >>> book.apply(ClaimReleased("p", "t", "1v1", "eu", 7, "m1"), 1000)
        >>> book.apply(ClaimRequested("p", "t", "2v2", "na", 8, "m3"), 1000).granted
        True

        A leave (match id ``""``) answers nothing and refuses the matches asking after it:

        >>> book.apply(ClaimRequested("p", "u", "1v1", "eu", 9, ""), 1000) is None
        True
        >>> book.apply(ClaimRequested("p", "u", "2v2", "na", 10, "m4"), 1000).holder
        ('u', '1v1', 'eu')
        """
        ticket_id, match_id = event.ticket_id, event.match_id
        assert match_id is not None
        held = self.searches.get(ticket_id)
        if isinstance(event, ClaimReleased):
            if held is not None and held[0] == match_id and match_id:
                del self.searches[ticket_id]
            self._remember_released(f"{ticket_id}@{match_id}", event.at_ms, retention_ms)
            return None
        if f"{ticket_id}@{match_id}" in self.released:
            return None
        player, queue, region, at_ms = event.player_id, event.queue, event.region, event.at_ms
        if not match_id:  # a leave: it holds the ticket unless a match got it first
            if held is None:
                self.searches[ticket_id] = (match_id, queue, region, at_ms)
            return None
        if held is None or held[0] == match_id:
            self.searches[ticket_id] = (match_id, queue, region, at_ms)
            return ClaimDecided(player, ticket_id, queue, region, True, at_ms, None, match_id)
        holder = (ticket_id, held[1], held[2])
        return ClaimDecided(player, ticket_id, queue, region, False, at_ms, holder, match_id)

    def _release(self, event: ClaimReleased, retention_ms: int) -> None:
        holder = self.holders.get(event.player_id)
        if holder is not None and holder[0] == event.ticket_id:
            del self.holders[event.player_id]
        self._remember_released(event.ticket_id, event.at_ms, retention_ms)

    def _remember_released(self, key: str, at_ms: int, retention_ms: int) -> None:
        self.released[key] = at_ms
        if len(self.released) >= self._prune_at:
            horizon = self.last_at_ms - retention_ms
            self.released = {t: at for t, at in self.released.items() if at > horizon}
            # A search claim won for good is never released: it goes with the ids.
            self.searches = {t: h for t, h in self.searches.items() if h[3] > horizon}
            self._prune_at = max(1024, 2 * len(self.released))

    def to_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "holders": [[p, *h] for p, h in self.holders.items()],
            "released": [[t, at] for t, at in self.released.items()],
            "last_at_ms": self.last_at_ms,
        }
        if self.searches:  # absent without the feature: old snapshots stay byte-identical
            record["searches"] = [[t, *h] for t, h in self.searches.items()]
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> ClaimBook:
        book = cls()
        book.holders = {p: (t, q, r) for p, t, q, r in record["holders"]}
        book.released = {t: at for t, at in record["released"]}
        book.last_at_ms = record["last_at_ms"]
        book.searches = {t: (m, q, r, at) for t, m, q, r, at in record.get("searches", ())}
        book._prune_at = max(1024, 2 * len(book.released))
        return book
