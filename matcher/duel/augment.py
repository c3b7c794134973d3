"""Augmenting paths of any length from a given matching (Edmonds' search): what makes the
large tier's result a matching with the most pairs when a queue rule refuses pairs
whatever their ratings.

Under such a rule (``max_latency_ms``, recent meetings, block lists, attributes, named
checks) the relaxation and the short paths of :mod:`matcher.duel.large_complete` leave
players out that a maximum matching seats. Alternating trees grow from every unmatched
player at once; an edge between outer players of one tree closes an odd cycle, shrunk as
a blossom; an edge between two trees closes an augmenting path, applied at once, and
those two trees leave the forest until the next round. A round that finds no path proves
there is none: by Berge's theorem the matching then has the most pairs.

No library repairs a matching from a given one: rustworkx's and networkx's blossoms start
from nothing, which on a whole large wave costs several times what these rounds do. A
player's legal partners come from the exact search by rating order
(:mod:`matcher.duel.near`), in batches for the players about to be scanned, nearest in
rating first, so that trees meet first through pairs close in rating.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

import numpy as np

from matcher.duel.graph import Bools, DuelArrays, Ints, cost, legal
from matcher.duel.near import LegalPartners, partners_by_player

#: Players whose partners are searched in one vectorised batch at most.
_BATCH = 256


class _PartnerSource(Protocol):
    def of(self, player: int, upcoming: deque[int]) -> Ints: ...


def augment_to_maximum(
    arrays: DuelArrays, mate: Ints, partners: LegalPartners | ListedPartners | None = None
) -> list[tuple[int, int]]:
    """Apply augmenting paths to ``mate`` (in place; -1: unmatched) until none is left.
    ``partners``: the players' partners searched so far, kept for a caller that reads
    them next (a new one by default), or :class:`ListedPartners`: then no path is left
    on the pairs listed, while one may be left on the others.

    Returns the pairs formed as ``(bw_player, sc2_player)``, each by its cheaper legal
    side choice; a player paired again by a later round is listed again, the last entry
    in force.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer(p, r, None) for p, r in (("a", 1500), ("c", 1600))] + [
    ...     DuelPlayer(p, None, r) for p, r in (("b", 1540), ("d", 1650))]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> mate = np.array([-1, 2, 1, -1])  # c plays b: a and d are left out
    >>> augment_to_maximum(arrays, mate)
    [(1, 3), (0, 2)]
    >>> mate.tolist()
    [2, 3, 0, 1]

    Notes: per round O(players and legal pairs the forest reaches); a round with a path
    is followed by another, so O(paths x legal pairs) at worst.
    """
    searching: _PartnerSource = (
        partners
        if isinstance(partners, ListedPartners)
        else _Partners(LegalPartners(arrays) if partners is None else partners)
    )
    formed: list[tuple[int, int]] = []
    while True:
        found = _Forest(mate, searching).run()
        if not found:
            return formed
        formed += _oriented(arrays, found)


class _Partners:
    """Each player's legal partners (either side), nearest in rating first, searched in
    batches for the players about to be scanned and kept for the later rounds."""

    def __init__(self, partners: LegalPartners) -> None:
        self.partners = partners

    def of(self, player: int, upcoming: deque[int]) -> Ints:
        partners = self.partners
        if not partners.known(player):
            batch = [player, *[p for p in upcoming if not partners.known(p)][: _BATCH - 1]]
            partners.search(np.array(batch, dtype=np.int64))
        return partners.of(player)


class ListedPartners:
    """Each player's partners among the given legal pairs only, nearest in rating first
    (as :func:`matcher.duel.near.partners_by_player` lists them): a sparse graph, such as
    every player's nearest legal partners, that the forest crosses in a fraction of the
    time every legal pair takes on a dense wave.

    >>> from matcher.duel.graph import duel_arrays
    >>> from matcher.duel.model import DuelConfig, DuelPlayer, Window
    >>> players = [DuelPlayer(p, r, r) for p, r in (("a", 1500), ("b", 1540), ("c", 1510))]
    >>> arrays = duel_arrays(players, ("m",), Window(75, 25), DuelConfig())
    >>> listed = ListedPartners(arrays, np.array([0, 1]), np.array([1, 2]))  # not a - c
    >>> listed.of(1, deque()).tolist(), listed.of(0, deque()).tolist()
    ([2, 0], [1])
    """

    def __init__(self, arrays: DuelArrays, u: Ints, v: Ints) -> None:
        player, self._partner = partners_by_player(
            arrays, np.arange(arrays.size, dtype=np.int64), (u, v)
        )
        self._start = np.searchsorted(player, np.arange(arrays.size + 1)).tolist()

    def of(self, player: int, upcoming: deque[int]) -> Ints:
        return self._partner[self._start[player] : self._start[player + 1]]


class _Forest:
    """One round of Edmonds' search from every unmatched player. ``outer`` players end an
    even alternating path from their tree's root, ``parent`` links a player to the outer
    one that reached it (through a blossom, the way around it), ``base`` names the blossom
    a player is shrunk into, ``tree`` its root; ``done`` marks the trees of the paths
    applied this round."""

    def __init__(self, mate: Ints, partners: _PartnerSource) -> None:
        n = len(mate)
        roots = np.flatnonzero(mate < 0)
        self.mate, self.partners = mate, partners
        self.parent = np.full(n, -1, dtype=np.int64)
        self.base = np.arange(n, dtype=np.int64)
        self.outer = np.zeros(n, dtype=bool)
        self.outer[roots] = True
        self.tree = np.full(n, -1, dtype=np.int64)
        self.tree[roots] = roots
        self.done = np.zeros(n, dtype=bool)
        self.queue: deque[int] = deque(roots.tolist())

    def run(self) -> list[tuple[int, int]]:
        """Grow the forest; apply a path wherever two trees meet. The pairs formed (none:
        no augmenting path is left)."""
        mate, parent, base, outer, tree, done = (
            self.mate,
            self.parent,
            self.base,
            self.outer,
            self.tree,
            self.done,
        )
        formed: list[tuple[int, int]] = []
        while self.queue:
            v = self.queue.popleft()
            if done[v]:
                continue
            near = self.partners.of(v, self.queue)
            near = near[(base[near] != base[v]) & (near != mate[v]) & ~done[near]]
            if not len(near):
                continue
            # Every unmatched player is a root, so an unlabelled partner is matched: it
            # becomes inner, its partner outer. Of two such partners paired with each
            # other, one is taken; the other, now outer, closes an odd cycle below.
            grown = near[~outer[near] & (parent[near] < 0)]
            grown_mates = mate[grown]
            grown = grown[~np.isin(grown_mates, grown) | (grown < grown_mates)]
            parent[grown] = v
            grown_mates = mate[grown]
            outer[grown_mates] = True
            tree[grown] = tree[grown_mates] = tree[v]
            self.queue.extend(grown_mates.tolist())
            others = near[outer[near]]
            apart = others[tree[others] != tree[v]]
            if len(apart):
                other = int(apart[0])
                met = np.array([tree[v], tree[other]])
                formed += self._augment(v, other)
                done |= np.isin(tree, met)
                continue
            # In order, each outer partner not yet in v's blossom; a shrink grows the
            # blossom, so the rest are filtered again after each.
            pending = others[base[others] != base[v]]
            while len(pending):
                self._shrink(v, int(pending[0]))
                pending = pending[1:][base[pending[1:]] != base[v]]
        return formed

    def _shrink(self, v: int, other: int) -> None:
        """Shrink the odd cycle that the edge between two outer players of one tree closes."""
        top = self._common_base(v, other)
        members = np.zeros(len(self.mate), dtype=bool)
        self._mark(v, top, other, members)
        self._mark(other, top, v, members)
        inside = members[self.base]
        joining = inside & ~self.outer
        self.base[inside] = top
        self.outer[joining] = True
        self.queue.extend(np.flatnonzero(joining).tolist())

    def _common_base(self, a: int, b: int) -> int:
        mate, parent, base = self.mate, self.parent, self.base
        seen = set()
        while True:
            a = int(base[a])
            seen.add(a)
            if mate[a] < 0:
                break
            a = int(parent[mate[a]])
        while True:
            b = int(base[b])
            if b in seen:
                return b
            b = int(parent[mate[b]])

    def _mark(self, v: int, top: int, child: int, members: Bools) -> None:
        mate, parent, base = self.mate, self.parent, self.base
        while base[v] != top:
            members[base[v]] = members[base[mate[v]]] = True
            parent[v] = child
            child = int(mate[v])
            v = int(parent[mate[v]])

    def _augment(self, v: int, other: int) -> list[tuple[int, int]]:
        """Flip the two trees' paths through the edge ``v other``; the pairs it forms."""
        mate = self.mate
        first, second = int(mate[v]), int(mate[other])
        mate[v], mate[other] = other, v
        return [(v, other), *self._flip(first), *self._flip(second)]

    def _flip(self, w: int) -> list[tuple[int, int]]:
        """Re-pair the path from ``w`` (just left by its partner) back to its root."""
        mate, parent = self.mate, self.parent
        formed = []
        while w >= 0:
            previous = int(parent[w])
            following = int(mate[previous])
            mate[w], mate[previous] = previous, w
            formed.append((w, previous))
            w = following
        return formed


def _oriented(arrays: DuelArrays, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each pair as ``(bw_player, sc2_player)``: its cheaper legal side choice."""
    a = np.array([x for x, _ in pairs], dtype=np.int64)
    b = np.array([y for _, y in pairs], dtype=np.int64)
    forward, backward = legal(arrays, a, b), legal(arrays, b, a)
    flip = ~forward | (backward & (cost(arrays, b, a) < cost(arrays, a, b)))
    bw, sc2 = np.where(flip, b, a), np.where(flip, a, b)
    return list(zip(bw.tolist(), sc2.tolist(), strict=True))
