"""Alman & McKay's game queue: players in rating order plus a heap of per-anchor best games.

Every unit (party) in the queue is an *anchor*: the best game that starts at it and
uses only the units of its window (the anchor and the next units up to
``Imbalance.window(k)`` players, in rating order) is kept in a heap keyed by the
game's priority g. Some optimal game lies in one such window (docs/adr/0033), so the
top of the heap is the best game of the whole queue.

Inserting or deleting a unit changes only the windows that reach it: the anchors
within ``window`` players before it. Those anchors are searched again and pushed
with a new version; stale heap entries are skipped when they surface (lazy deletion).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

from matcher.teams.games import Game, Unit
from matcher.teams.imbalance import Imbalance
from matcher.teams.ordered import Node, OrderedSet
from matcher.teams.window import DEFAULT_MAX_NODES, best_game_in_window


@dataclass(slots=True)
class _Anchor:
    """Mutable per-unit state: the unit, its current best game and that game's version."""

    unit: Unit
    version: int = 0
    game: Game | None = None
    alive: bool = True


#: (priority or lower bound, searched?, anchor key, anchor index, version); at equal
#: values a bound sorts before a searched game, so ties resolve as if all were searched.
_Entry = tuple[float, bool, tuple[float, float, int], int, int]


@dataclass
class GameQueue:
    """Units by rating with the best game per anchor in a heap.

    >>> queue = GameQueue(k=1, params=Imbalance(alpha=1.0, q=2.0), beta=0.0, seed=0)
    >>> for index, rating in enumerate([10, 40, 12, 43]):
    ...     queue.insert(Unit(index, (rating,), 0.0))
    >>> queue.pop_best().teams, queue.pop_best().teams, queue.pop_best()
    (((0,), (2,)), ((1,), (3,)), None)

    Notes: insert and delete cost O(log n) plus O(W) window searches, each O(1) for
    fixed k (the window W and the search cap depend on k, alpha and q only); best game
    is O(log n) amortised (stale entries are popped once).
    """

    k: int
    params: Imbalance
    beta: float
    seed: int
    max_nodes: int = DEFAULT_MAX_NODES
    width: int | None = None
    _order: OrderedSet[tuple[float, float, int], _Anchor] = field(init=False)
    _nodes: dict[int, Node[tuple[float, float, int], _Anchor]] = field(init=False)
    _heap: list[_Entry] = field(init=False)
    _width: int = field(init=False)

    def __post_init__(self) -> None:
        self._order = OrderedSet(self.seed)
        self._nodes = {}
        self._heap = []
        self._width = self.width or self.params.window(self.k)

    def __len__(self) -> int:
        return len(self._nodes)

    def insert(self, unit: Unit) -> None:
        """Add ``unit`` (its index must not be in the queue) and refresh the windows reaching it."""
        self.extend([unit])

    def extend(self, units: list[Unit]) -> None:
        """Insert many units, then search every affected anchor once (a wave's bulk load).

        A unit bigger than a team can never play; it is not queued (it would only
        widen the windows it sits in).
        """
        nodes = []
        for unit in units:
            if unit.index in self._nodes:
                raise ValueError(f"unit {unit.index} is already queued")
            if unit.size > self.k:
                continue
            node = self._order.insert(unit.key, _Anchor(unit))
            self._nodes[unit.index] = node
            nodes.append(node)
        self._refresh(nodes)

    def delete(self, index: int) -> None:
        """Remove the unit ``index`` and refresh the windows that held it."""
        self.delete_many((index,))

    def delete_many(self, indices: tuple[int, ...]) -> None:
        """Remove several units, then search each window that held one of them once."""
        doomed = {self._nodes[index] for index in indices}
        survivors = []
        for node in doomed:
            before = node.prev
            while before is not None and before in doomed:
                before = before.prev
            if before is not None:
                survivors.append(before)
        for node in doomed:
            node.value.alive = False
            del self._nodes[node.value.unit.index]
            self._order.remove(node)
        self._refresh(survivors)

    def best(self) -> Game | None:
        """The least-priority game in the queue (ties: lower anchor), or None."""
        while self._heap:
            _, fresh, _, index, version = self._heap[0]
            node = self._nodes.get(index)
            if node is None or node.value.version != version:
                heapq.heappop(self._heap)  # stale: the anchor left or was refreshed
            elif not fresh:
                heapq.heappop(self._heap)
                self._search(node)  # a lower bound surfaced: now the real search pays
            elif node.value.game is not None:
                return node.value.game
            else:
                heapq.heappop(self._heap)
        return None

    def pop_best(self) -> Game | None:
        """Remove and return the best game's units (and the game)."""
        game = self.best()
        if game is not None:
            self.delete_many(game.units())
        return game

    def _refresh(self, nodes: list[Node[tuple[float, float, int], _Anchor]]) -> None:
        # Anchors whose window reaches a changed place: it and the units up to W players
        # before it; searched once each, in rating order (deterministic heap pushes).
        anchors: dict[int, Node[tuple[float, float, int], _Anchor]] = {}
        for node in nodes:
            players = 0
            current: Node[tuple[float, float, int], _Anchor] | None = node
            while current is not None and players < self._width:
                anchors[current.value.unit.index] = current
                players += current.value.unit.size
                current = current.prev
        for node in sorted(anchors.values(), key=lambda n: n.key):
            self._postpone(node)

    def _postpone(self, node: Node[tuple[float, float, int], _Anchor]) -> None:
        """Queue a lower bound on the anchor's best game instead of searching it now.

        Any game anchored here spans at least the units up to the one where 2k players
        are reached (keys ascend), so its top rating is at least that unit's key; its
        bottom is at most the anchor's lowest rating: v_q >= (top - bottom) / 2 k^(-1/q)
        (two players deviate by half the range each), f >= v_q, and its earliest join
        is no earlier than the window's. The search runs only if this bound reaches the
        top of the heap (docs/adr/0035).
        """
        anchor = node.value
        anchor.version += 1
        anchor.game = None
        players, earliest = 0, math.inf
        lowest = min(anchor.unit.ratings)
        top: float | None = None
        current: Node[tuple[float, float, int], _Anchor] | None = node
        while current is not None and players < self._width:
            unit = current.value.unit
            players += unit.size
            earliest = min(earliest, unit.joined_s)
            if top is None and players >= 2 * self.k:
                top = unit.key[0]
            current = current.next
        if top is None:
            return  # fewer than 2k players in the window: no game here
        root = 1.0 if math.isinf(self.params.q) else float(self.k) ** (-1.0 / self.params.q)
        bound = max(0.0, top - lowest) / 2.0 * root + self.beta * earliest
        heapq.heappush(
            self._heap, (bound, False, anchor.unit.key, anchor.unit.index, anchor.version)
        )

    def _search(self, node: Node[tuple[float, float, int], _Anchor]) -> None:
        window: list[Unit] = []
        players = 0
        current: Node[tuple[float, float, int], _Anchor] | None = node
        while current is not None and players < self._width:
            window.append(current.value.unit)
            players += current.value.unit.size
            current = current.next
        anchor = node.value
        anchor.version += 1
        anchor.game = best_game_in_window(window, self.k, self.params, self.beta, self.max_nodes)
        if anchor.game is not None:
            entry = (
                anchor.game.priority,
                True,
                anchor.unit.key,
                anchor.unit.index,
                anchor.version,
            )
            heapq.heappush(self._heap, entry)
