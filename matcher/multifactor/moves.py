"""Moves of the search: exchanges of tickets between two matches, parties whole.

A move gives one ticket of match p for one ticket of match q of the same size (the
swap of two players, when both are solo), or one ticket for two whose sizes add up
to it (a duo for two solos, a trio for a duo and a solo). The second kind is what
lets parties travel between matches at all; two-for-two exchanges are left out,
since they square the number of moves for little gain.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from matcher.multifactor.evaluate import Structures

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Moves:
    """Every move between a match of structure ``p`` and one of structure ``q``.

    Rows of ``index_p``/``index_q`` index the concatenation of both matches' seats
    (p's 2n seats first) and give the new seats of each match, tickets contiguous and
    by decreasing size; ``sid_p``/``sid_q`` are the structures after the move.
    """

    index_p: IntArray
    index_q: IntArray
    sid_p: IntArray
    sid_q: IntArray

    def __len__(self) -> int:
        return len(self.sid_p)


def moves_between(structures: Structures, sp: int, sq: int) -> Moves:
    """Every move between structures ``sp`` and ``sq`` that leaves both splittable.

    >>> from matcher.multifactor.config import MultifactorConfig
    >>> from matcher.multifactor.evaluate import layout_for
    >>> table = Structures(layout_for(3), MultifactorConfig())
    >>> solos, duo = table.id_of((1,) * 6), table.id_of((2, 1, 1, 1, 1))
    >>> len(moves_between(table, solos, solos)), len(moves_between(table, duo, solos))
    (36, 39)

    Notes: O(t^4) moves for t tickets per match, built once per pair of structures.
    """
    width = 2 * structures.layout.team_size
    slots_p, slots_q = structures.slots[sp], structures.slots[sq]
    rows: list[tuple[list[int], list[int], int, int]] = []
    for give in _groups(slots_p, width // 2):
        for take in _groups(slots_q, width // 2):
            if len(give) + len(take) > 3 or _size(slots_p, give) != _size(slots_q, take):
                continue
            new_p = _rebuild(slots_p, give, [(s + width, n) for s, n in (slots_q[i] for i in take)])
            new_q = _rebuild([(s + width, n) for s, n in slots_q], take, [slots_p[i] for i in give])
            sid_p, sid_q = structures.id_of(new_p[1]), structures.id_of(new_q[1])
            if structures.valid[sid_p].any() and structures.valid[sid_q].any():
                rows.append((new_p[0], new_q[0], sid_p, sid_q))
    shape = (len(rows), width)
    return Moves(
        index_p=np.array([r[0] for r in rows], dtype=np.int64).reshape(shape),
        index_q=np.array([r[1] for r in rows], dtype=np.int64).reshape(shape),
        sid_p=np.array([r[2] for r in rows], dtype=np.int64),
        sid_q=np.array([r[3] for r in rows], dtype=np.int64),
    )


def _groups(slots: tuple[tuple[int, int], ...], team_size: int) -> list[tuple[int, ...]]:
    """Single slots, and pairs of slots that fit in one team (a party swap's other side)."""
    singles: list[tuple[int, ...]] = [(i,) for i in range(len(slots))]
    doubles: list[tuple[int, ...]] = [
        (i, j)
        for i, j in combinations(range(len(slots)), 2)
        if slots[i][1] + slots[j][1] <= team_size
    ]
    return singles + doubles


def _size(slots: tuple[tuple[int, int], ...], group: tuple[int, ...]) -> int:
    return sum(slots[i][1] for i in group)


def _rebuild(
    slots: tuple[tuple[int, int], ...] | list[tuple[int, int]],
    removed: tuple[int, ...],
    added: list[tuple[int, int]],
) -> tuple[list[int], tuple[int, ...]]:
    """Seat positions and slot sizes of a match after a move, by decreasing size."""
    kept = [slot for i, slot in enumerate(slots) if i not in removed]
    ordered = sorted(kept + added, key=lambda slot: -slot[1])
    return [start + k for start, size in ordered for k in range(size)], tuple(n for _, n in ordered)


class MoveTable:
    """The moves of every pair of structures seen so far, also as flat arrays.

    ``start[sp, sq]`` and ``count[sp, sq]`` locate the moves of a pair of structures in
    ``index_p``/``index_q``/``sid_p``/``sid_q`` (``count`` -1 where not built yet), so
    the candidates of many pairs of matches are gathered in a few numpy calls.
    """

    def __init__(self, structures: Structures) -> None:
        self.structures = structures
        self.by_pair: dict[tuple[int, int], Moves] = {}
        width = 2 * structures.layout.team_size
        self.index_p = np.zeros((0, width), dtype=np.int64)
        self.index_q = np.zeros((0, width), dtype=np.int64)
        self.sid_p = np.zeros(0, dtype=np.int64)
        self.sid_q = np.zeros(0, dtype=np.int64)
        self.start = np.zeros((0, 0), dtype=np.int64)
        self.count = np.zeros((0, 0), dtype=np.int64)

    def get(self, sp: int, sq: int) -> Moves:
        """Every move between structures ``sp`` and ``sq`` (built once)."""
        if (sp, sq) not in self.by_pair:
            moves = moves_between(self.structures, sp, sq)
            self.by_pair[(sp, sq)] = moves
            self._grow()
            self.start[sp, sq], self.count[sp, sq] = len(self.sid_p), len(moves)
            self.index_p = np.concatenate((self.index_p, moves.index_p))
            self.index_q = np.concatenate((self.index_q, moves.index_q))
            self.sid_p = np.concatenate((self.sid_p, moves.sid_p))
            self.sid_q = np.concatenate((self.sid_q, moves.sid_q))
        return self.by_pair[(sp, sq)]

    def locate(self, sp: IntArray, sq: IntArray) -> tuple[IntArray, IntArray]:
        """First row and number of moves of each pair of structures ``(sp[i], sq[i])``.

        >>> from matcher.multifactor.config import MultifactorConfig
        >>> from matcher.multifactor.evaluate import layout_for
        >>> table = MoveTable(Structures(layout_for(3), MultifactorConfig()))
        >>> solos = np.array([table.structures.id_of((1,) * 6)] * 2)
        >>> [row.tolist() for row in table.locate(solos, solos)]
        [[0, 0], [36, 36]]

        Notes: O(pairs) plus building the moves of structure pairs not seen before.
        """
        self._grow()
        missing = self.count[sp, sq] < 0
        if missing.any():
            for a, b in sorted(set(zip(sp[missing].tolist(), sq[missing].tolist(), strict=True))):
                self.get(a, b)
        return self.start[sp, sq], self.count[sp, sq]

    def _grow(self) -> None:
        size = len(self.structures.slots)
        if size > len(self.start):
            old = len(self.start)
            for name in ("start", "count"):
                grown = np.full((size, size), -1, dtype=np.int64)
                grown[:old, :old] = getattr(self, name)
                setattr(self, name, grown)
