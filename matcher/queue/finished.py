"""Ticket ids that left a queue, and when: remembered so a replayed join is recognised.

A busy region remembers every ticket of its retention window: hundreds of thousands
of ids. Scanning the whole map at every wave close would make each prune O(map);
:class:`FinishedTickets` files the ids by time beside the map, so a prune touches only
what it removes.

A worker saves the ids in its snapshots. Writing all of them every few thousand events
would cost more than the events themselves, so a :class:`FinishedTickets` can keep a
*journal* of its writes and prunes since the last time it was taken: a snapshot saves
the journal, and :meth:`FinishedTickets.replay`
rebuilds the same map (entries and order) from a base and the journals after it
(streams/worker/finished_log.py, docs/adr/0062).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from typing import Any

#: A journal entry: ``[at_ms, [ticket ids]]`` (written at that time, in order) or
#: ``[older_than_ms]`` (a prune that forgot something). Plain lists: they go to JSON.
JournalEntry = list[Any]


class FinishedTickets(dict[str, int]):
    """``ticket id -> time it left`` (a dict, equal to one), pruned by time in O(k).

    Every write goes through ``[]=`` or :meth:`update`, which also file the id under its
    time (a wave close files all its ids under one); the times are a heap. An id written
    again leaves its older filing behind, skipped at pruning (the map's value no longer
    matches it).

    >>> finished = FinishedTickets({"a": 5})
    >>> finished["b"] = 1
    >>> finished.update({"a": 9, "c": 3})
    >>> finished.finish_all(["d", "e"], 2)
    >>> finished.prune(older_than_ms=6)
    >>> finished == {"a": 9}
    True

    Notes: O(1) per write (O(log t) for a new time among t), O(k + log t) per pruned
    time for k ids filed under it.
    """

    def __init__(self, items: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        super().__init__(items)
        self._filed: dict[int, list[str]] = {}
        for ticket_id, at_ms in self.items():
            self._filed.setdefault(at_ms, []).append(ticket_id)
        self._times = list(self._filed)
        heapq.heapify(self._times)
        self._journal: list[JournalEntry] | None = None

    def __setitem__(self, ticket_id: str, at_ms: int) -> None:
        super().__setitem__(ticket_id, at_ms)
        journal = self._journal
        if journal is not None:
            if journal and len(journal[-1]) == 2 and journal[-1][0] == at_ms:
                journal[-1][1].append(ticket_id)
            else:
                journal.append([at_ms, [ticket_id]])
        filed = self._filed.get(at_ms)
        if filed is None:
            self._filed[at_ms] = filed = []
            heapq.heappush(self._times, at_ms)
        filed.append(ticket_id)

    def update(self, other: Mapping[str, int]) -> None:  # type: ignore[override]
        for ticket_id, at_ms in other.items():
            self[ticket_id] = at_ms

    def finish_all(self, ticket_ids: list[str], at_ms: int) -> None:
        """``self[t] = at_ms`` for every id (a wave's matched tickets), in one C-level pass."""
        super().update(dict.fromkeys(ticket_ids, at_ms))
        if self._journal is not None:
            self._journal.append([at_ms, list(ticket_ids)])
        filed = self._filed.get(at_ms)
        if filed is None:
            self._filed[at_ms] = filed = []
            heapq.heappush(self._times, at_ms)
        filed.extend(ticket_ids)

    def prune(self, older_than_ms: int) -> None:
        """Forget every id whose time is below ``older_than_ms`` (the others keep their order)."""
        times, get = self._times, self.get
        if self._journal is not None and times and times[0] < older_than_ms:
            self._journal.append([older_than_ms])
        while times and times[0] < older_than_ms:
            at_ms = heapq.heappop(times)
            for ticket_id in self._filed.pop(at_ms):
                if get(ticket_id) == at_ms:
                    del self[ticket_id]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FinishedTickets, (list(self.items()),))

    # -- the journal ------------------------------------------------------------------

    @property
    def journaling(self) -> bool:
        return self._journal is not None

    def take_journal(self) -> list[JournalEntry]:
        """The writes and prunes since the last call (or since journaling began), which
        then begins anew. Before the first call nothing was journaled: use :meth:`as_journal`.

        >>> finished = FinishedTickets({"a": 1})
        >>> finished.take_journal()
        []
        >>> finished["b"] = 4; finished["c"] = 4; finished.prune(2)
        >>> finished.take_journal()
        [[4, ['b', 'c']], [2]]
        """
        taken, self._journal = self._journal or [], []
        return taken

    def as_journal(self) -> list[JournalEntry]:
        """Writes that rebuild this map from nothing, entries and order (ids of one time
        written together while they follow each other). Notes: O(entries)."""
        entries: list[JournalEntry] = []
        last_at: int | None = None
        ids: list[str] | None = None
        for ticket_id, at_ms in self.items():
            if at_ms != last_at or ids is None:
                ids = []
                entries.append([at_ms, ids])
                last_at = at_ms
            ids.append(ticket_id)
        return entries

    def replay(self, journal: Iterable[JournalEntry]) -> None:
        """Apply a journal taken from another map (:meth:`take_journal`, :meth:`as_journal`).

        Replaying a map's journals, in order, on the state it had when its journal
        began gives its state: the same entries in the same order.

        >>> original = FinishedTickets({"a": 1}); copy = FinishedTickets(original)
        >>> original.take_journal()
        []
        >>> original.finish_all(["b", "c"], 5); original.prune(3); original["d"] = 6
        >>> copy.replay(original.take_journal())
        >>> list(copy.items()) == list(original.items()) == [("b", 5), ("c", 5), ("d", 6)]
        True

        Notes: O(entries written + pruned).
        """
        for entry in journal:
            if len(entry) == 2:
                self.finish_all(entry[1], entry[0])
            else:
                self.prune(entry[0])
