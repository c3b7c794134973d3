"""Ticket ids that left a queue, and when: remembered so a replayed join is recognised.

A busy region remembers every ticket of the retention window (600 s of 10,000-player
waves: ~600,000 ids). Pruning them by scanning the whole map cost ~23 ms per wave close;
:class:`FinishedTickets` files the ids by time beside the map, so a prune touches only
what it removes.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from typing import Any


class FinishedTickets(dict[str, int]):
    """``ticket id -> time it left`` (a dict, equal to one), pruned by time in O(k).

    Every write goes through ``[]=`` or :meth:`update`, which also file the id under its
    time (a wave close files ~10,000 ids under one); the times are a heap. An id written
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

    def __setitem__(self, ticket_id: str, at_ms: int) -> None:
        super().__setitem__(ticket_id, at_ms)
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
        filed = self._filed.get(at_ms)
        if filed is None:
            self._filed[at_ms] = filed = []
            heapq.heappush(self._times, at_ms)
        filed.extend(ticket_ids)

    def prune(self, older_than_ms: int) -> None:
        """Forget every id whose time is below ``older_than_ms`` (the others keep their order)."""
        times, get = self._times, self.get
        while times and times[0] < older_than_ms:
            at_ms = heapq.heappop(times)
            for ticket_id in self._filed.pop(at_ms):
                if get(ticket_id) == at_ms:
                    del self[ticket_id]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FinishedTickets, (list(self.items()),))
