"""Exact maximum-weight matching on a general graph (Edmonds' primal-dual blossom method).

The duel's "both" players may take either side, so its pair graph is not bipartite
and an exact answer needs blossoms. This is the O(n^3) formulation of Galil
("Efficient algorithms for finding maximum matching in graphs", ACM Computing
Surveys, 1986) with the array layout popularised by J. van Rantwijk's reference
implementation: vertices ``0..n-1``, blossoms ``n..2n-1``, edge ``k`` has endpoints
``2k`` and ``2k+1``. Weights are integers, so every dual stays an integer.

Unlike a library call, :func:`max_weight_matching` also returns the final duals:
:mod:`matcher.duel.exact` uses them to prove that a matching found on a sparse
candidate graph is optimal on the full one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from itertools import chain


@dataclass(frozen=True, slots=True)
class BlossomSolution:
    """A maximum-weight matching with the dual solution that certifies it.

    ``mate[v]`` is v's partner or -1. ``vertex_dual[v]`` is twice the LP dual of v;
    ``blossom_dual[b]`` the dual of blossom b (b >= n) and ``blossom_parent`` its
    parent (-1 at top level, also for vertices). An edge (i, j, w) is dual-feasible
    when ``vertex_dual[i] + vertex_dual[j] - 2 w + 2 * (sum of the duals of the
    blossoms containing both)`` is >= 0.
    """

    mate: tuple[int, ...]
    vertex_dual: tuple[int, ...]
    blossom_dual: dict[int, int]
    blossom_parent: tuple[int, ...]


def max_weight_matching(n: int, edges: Sequence[tuple[int, int, int]]) -> BlossomSolution:
    """Return a maximum-weight matching of the graph ``(range(n), edges)``.

    Edges are ``(i, j, weight)`` with integer weights and ``i != j``. To get the
    largest matching first, give every edge a weight so large that one more
    pair outweighs any difference in the rest (see :mod:`matcher.duel.exact`).

    >>> max_weight_matching(4, [(0, 1, 5), (1, 2, 7), (2, 3, 5)]).mate
    (1, 0, 3, 2)

    Notes: O(n^3) time, O(n + m) memory.
    """
    solver = _Solver(n, edges)
    solver.run_stages(n)  # each stage of a cold start augments: n stages always suffice
    return solver.solution()


@dataclass(frozen=True, slots=True)
class WarmStart:
    """A dual-feasible starting point: ``mate[v]`` (partner or -1) and ``vertex_dual[v]``.

    In this module's units: ``vertex_dual[i] + vertex_dual[j] >= 2 w`` on every edge,
    with equality on every pair of ``mate``, and every dual >= 0 (no blossoms yet).
    """

    mate: Sequence[int]
    vertex_dual: Sequence[int]


def warm_max_weight_matching(
    n: int, edges: Sequence[tuple[int, int, int]], start: WarmStart, max_stages: int
) -> BlossomSolution | None:
    """Finish a maximum-weight matching from ``start``; None after ``max_stages`` stages.

    The primal-dual method for matchings that need not be perfect: a vertex may stay
    single once its dual is 0. Each stage grows trees from the single vertices whose
    dual is still positive and ends with an augmentation, a root's dual reaching 0, or
    a matched vertex's dual reaching 0 (the path to its root is flipped: the root is
    matched, that vertex single). When no single vertex has a positive dual, every
    condition of complementary slackness holds: the matching is optimal on ``edges``.

    >>> start = WarmStart(mate=(1, 0, -1, -1), vertex_dual=(5, 5, 0, 5))
    >>> warm_max_weight_matching(4, [(0, 1, 5), (1, 2, 5), (2, 3, 5)], start, 10).mate
    (1, 0, 3, 2)

    Notes: from a good start (an LP relaxation's pairs and duals) few stages remain.
    A dual change costs O(top-level blossoms) and heap operations: the vertices' duals
    shift lazily.
    """
    solver = _Solver(n, edges)
    solver.warm_start(start)
    return solver.solution() if solver.run_stages(max_stages) else None


class _Solver:
    def __init__(self, n: int, edges: Sequence[tuple[int, int, int]]) -> None:
        self.n = n
        self.edges = list(edges)
        # The callers' edges are tuples of ints already: converting them was a third of a
        # small graph's set-up. Anything else is converted as before (an edge of another
        # length fails below, as it did in the conversion).
        plain = set(map(type, self.edges)) <= {tuple}
        flat = list(chain.from_iterable(self.edges)) if plain else []
        if not plain or not set(map(type, flat)) <= {int}:
            self.edges = [(int(i), int(j), int(w)) for i, j, w in self.edges]
            flat = list(chain.from_iterable(self.edges))
        top = max(flat[2::3], default=0)
        del flat[2::3]
        self.endpoint = flat
        self.neighbend: list[list[int]] = [[] for _ in range(n)]
        p = 0
        for i, j, _ in self.edges:
            self.neighbend[i].append(p + 1)
            self.neighbend[j].append(p)
            p += 2
        self.mate = [-1] * n
        self.label = [0] * (2 * n)
        self.labelend = [-1] * (2 * n)
        self.inblossom = list(range(n))
        self.parent = [-1] * (2 * n)
        # These three are replaced per blossom, never changed in place: one shared empty list.
        nothing: list[int] = []
        self.childs: list[list[int]] = [nothing] * (2 * n)
        self.leafs: list[list[int]] = [nothing] * (2 * n)
        self.base = list(range(n)) + [-1] * n
        self.endps: list[list[int]] = [nothing] * (2 * n)
        self.bestedge = [-1] * (2 * n)
        self.blossombest: list[list[tuple[int, int, int]] | None] = [None] * (2 * n)
        self.unused = list(range(n, 2 * n))
        self.dual = [top] * n + [0] * n
        self.allowed = [False] * len(self.edges)
        self.queue: list[int] = []
        self.warm = False
        self.live: set[int] = set()  # blossoms in use (the rest are in ``unused``)
        # Within a stage a dual step does not touch the vertices: ``dual[v]`` holds v's dual
        # plus ``sign[v] * shifted`` (the stage's summed deltas; sign 1 for S, -1 for T, 0
        # else), so a vertex's dual is ``dual[v] - sign[v] * shifted``. A vertex whose label
        # may have changed goes to ``dirty``; the next dual step re-anchors it.
        self.sign = [0] * n
        self.shifted = 0
        self.dirty: list[int] = []
        # The delta candidates, each a heap with stale entries skipped when on top. Keys are
        # the constant part of the candidate's delta, then its vertex or blossom: the first
        # minimum in index order, as a loop over the vertices and sorted blossoms finds it.
        self.s_heap: list[tuple[int, int]] = []  # S-vertices (warm start): (dual, v)
        self.free_heap: list[tuple[int, int, int, int]] = []  # (slack, v, version, bestedge)
        self.top_heap: list[tuple[int, int, int, int]] = []  # (slack // 2, b, version, edge)
        self.free_version = [0] * n
        self.top_version = [0] * (2 * n)

    def warm_start(self, start: WarmStart) -> None:
        """Adopt ``start``'s pairs and duals (see :class:`WarmStart`)."""
        self.warm = True
        partner = start.mate
        for k, (i, j, _) in enumerate(self.edges):
            if partner[i] == j:  # edge k of the pair: the last such edge wins, as a dict would
                self.mate[i], self.mate[j] = 2 * k + 1, 2 * k
        self.dual[: self.n] = [int(d) for d in start.vertex_dual]

    def leaves(self, b: int) -> list[int]:
        return [b] if b < self.n else self.leafs[b]

    def assign_label(self, w: int, t: int, p: int) -> None:
        b = self.inblossom[w]
        self.label[w] = self.label[b] = t
        self.labelend[w] = self.labelend[b] = p
        self.bestedge[w] = self.bestedge[b] = -1
        leaves = [b] if b < self.n else self.leafs[b]
        self.dirty += leaves
        if t == 1:
            self.queue += leaves
        else:
            mate = self.mate[self.base[b]]
            self.assign_label(self.endpoint[mate], 1, mate ^ 1)

    def scan_blossom(self, v: int, w: int) -> int:
        """Trace back from v and w: the base of a new blossom, or -1 for an augmenting path."""
        path: list[int] = []
        found = -1
        while v != -1 or w != -1:
            b = self.inblossom[v]
            if self.label[b] & 4:
                found = self.base[b]
                break
            path.append(b)
            self.label[b] = 5
            if self.labelend[b] == -1:
                v = -1
            else:
                v = self.endpoint[self.labelend[b]]
                v = self.endpoint[self.labelend[self.inblossom[v]]]
            if w != -1:
                v, w = w, v
        for b in path:
            self.label[b] = 1
        return found

    def add_blossom(self, base: int, k: int) -> None:
        v, w, _ = self.edges[k]
        bb, bv, bw = self.inblossom[base], self.inblossom[v], self.inblossom[w]
        b = self.unused.pop()
        self.live.add(b)
        self.base[b], self.parent[b], self.parent[bb] = base, -1, b
        path: list[int] = []
        endps: list[int] = []
        while bv != bb:
            self.parent[bv] = b
            path.append(bv)
            endps.append(self.labelend[bv])
            bv = self.inblossom[self.endpoint[self.labelend[bv]]]
        path.append(bb)
        path.reverse()
        endps.reverse()
        endps.append(2 * k)
        while bw != bb:
            self.parent[bw] = b
            path.append(bw)
            endps.append(self.labelend[bw] ^ 1)
            bw = self.inblossom[self.endpoint[self.labelend[bw]]]
        self.childs[b], self.endps[b] = path, endps
        n, label, inblossom, queue = self.n, self.label, self.inblossom, self.queue
        leafs: list[int] = []
        for child in path:
            # A child is a top-level blossom: its leaves' label is its own. Only the leaves
            # of T-children become S here and need scanning.
            if child < n:
                leafs.append(child)
                if label[child] == 2:
                    queue.append(child)
                    self.dirty.append(child)
            else:
                leafs += self.leafs[child]
                if label[child] == 2:
                    queue += self.leafs[child]
                    self.dirty += self.leafs[child]
        self.leafs[b] = leafs
        label[b], self.labelend[b], self.dual[b] = 1, self.labelend[bb], 0
        for leaf in leafs:
            inblossom[leaf] = b
        self.collect_best_edges(b, path)

    def collect_best_edges(self, b: int, path: list[int]) -> None:
        """The least-slack edge from b to each other top-level S-blossom, in the order the
        children's lists name them; bestedge[b] the first of least slack among them.

        An entry is (edge, endpoint outside, slack + 2 * shifted): both ends are S for the
        rest of the stage, so the last is constant and the endpoint names the neighbour
        blossom without looking at the edge again (a big child's list is read at every
        blossom that swallows it).
        """
        edges, dual, inblossom, label = self.edges, self.dual, self.inblossom, self.label
        neighbend, blossombest, bestedge = self.neighbend, self.blossombest, self.bestedge
        endpoint, sign, shifted = self.endpoint, self.sign, self.shifted
        best: dict[int, tuple[int, int, int]] = {}
        for child in path:
            listed = blossombest[child]
            if listed is None:
                listed = []
                for leaf in [child] if child < self.n else self.leafs[child]:
                    for p in neighbend[leaf]:
                        far = endpoint[p]
                        if label[inblossom[far]] == 1 and inblossom[far] != b:
                            i, j, weight = edges[p >> 1]
                            kslack = dual[i] + dual[j] - 2 * weight - (sign[i] + sign[j]) * shifted
                            listed.append((p >> 1, far, kslack + 2 * shifted))
            for entry in listed:
                bj = inblossom[entry[1]]
                if bj != b and label[bj] == 1:
                    known = best.get(bj)
                    if known is None or entry[2] < known[2]:
                        best[bj] = entry
            blossombest[child] = None
            bestedge[child] = -1
        found = list(best.values())
        blossombest[b] = found
        # The first edge of least slack in found's order, as min(found, key=slack) would pick.
        least: tuple[int, int, int] | None = None
        for entry in found:
            if least is None or entry[2] < least[2]:
                least = entry
        bestedge[b] = -1 if least is None else least[0]
        if least is not None:
            self.top_version[b] += 1
            heappush(self.top_heap, (least[2] // 2, b, self.top_version[b], least[0]))

    def expand_blossom(self, b: int, endstage: bool) -> None:
        if not endstage:
            self.dirty += self.leafs[b]
        for s in self.childs[b]:
            self.parent[s] = -1
            if s < self.n:
                self.inblossom[s] = s
            elif endstage and self.dual[s] == 0:
                self.expand_blossom(s, endstage)
            else:
                for leaf in self.leaves(s):
                    self.inblossom[leaf] = s
        if not endstage and self.label[b] == 2:
            self.relabel_expanded(b)
        self.label[b], self.labelend[b], self.base[b] = 0, -1, -1
        self.childs[b], self.endps[b], self.leafs[b] = [], [], []
        self.blossombest[b], self.bestedge[b] = None, -1
        self.unused.append(b)
        self.live.discard(b)

    def relabel_expanded(self, b: int) -> None:
        """Give the children of an expanded T-blossom the labels of the path through it."""
        childs, endps = self.childs[b], self.endps[b]
        entry = self.inblossom[self.endpoint[self.labelend[b] ^ 1]]
        j = childs.index(entry)
        if j & 1:
            j, step, trick = j - len(childs), 1, 0
        else:
            step, trick = -1, 1
        p = self.labelend[b]
        while j != 0:
            self.label[self.endpoint[p ^ 1]] = 0
            self.label[self.endpoint[endps[j - trick] ^ trick ^ 1]] = 0
            self.assign_label(self.endpoint[p ^ 1], 2, p)
            self.allowed[endps[j - trick] // 2] = True
            j += step
            p = endps[j - trick] ^ trick
            self.allowed[p // 2] = True
            j += step
        bv = childs[j]
        self.label[self.endpoint[p ^ 1]] = self.label[bv] = 2
        self.labelend[self.endpoint[p ^ 1]] = self.labelend[bv] = p
        self.bestedge[bv] = -1
        j += step
        while childs[j] != entry:
            bv = childs[j]
            j += step
            if self.label[bv] == 1:
                continue
            labelled = next((v for v in self.leaves(bv) if self.label[v] != 0), -1)
            if labelled != -1:
                self.label[labelled] = 0
                self.label[self.endpoint[self.mate[self.base[bv]]]] = 0
                self.assign_label(labelled, 2, self.labelend[labelled])

    def augment_blossom(self, b: int, v: int, above: list[int] | None = None) -> None:
        """``above``: the blossoms strictly between v and b, innermost first (consumed)."""
        if above is None:
            # One walk up for the whole recursion (nesting runs thousands deep); the calls
            # nest exactly as before, so the recursion limit is reached on the same inputs.
            above = []
            parent, t = self.parent, v
            while parent[t] != b:
                t = parent[t]
                above.append(t)
        if above:
            t = above.pop()
            self.augment_blossom(t, v, above)
        else:
            t = v
        childs, endps = self.childs[b], self.endps[b]
        i = j = childs.index(t)
        if i & 1:
            j, step, trick = j - len(childs), 1, 0
        else:
            step, trick = -1, 1
        while j != 0:
            j += step
            p = endps[j - trick] ^ trick
            if childs[j] >= self.n:
                self.augment_blossom(childs[j], self.endpoint[p])
            j += step
            if childs[j] >= self.n:
                self.augment_blossom(childs[j], self.endpoint[p ^ 1])
            self.mate[self.endpoint[p]] = p ^ 1
            self.mate[self.endpoint[p ^ 1]] = p
        self.childs[b] = childs[i:] + childs[:i]
        self.endps[b] = endps[i:] + endps[:i]
        self.base[b] = self.base[self.childs[b][0]]

    def augment_matching(self, k: int) -> None:
        v, w, _ = self.edges[k]
        self.flip_to_root(v, 2 * k + 1)
        self.flip_to_root(w, 2 * k)

    def flip_to_root(self, s: int, p: int) -> None:
        """Match S-vertex ``s`` to endpoint ``p`` (-1: leave it single) and flip the tree path
        above it up to its root, so that the root ends matched."""
        while True:
            bs = self.inblossom[s]
            if bs >= self.n:
                self.augment_blossom(bs, s)
            self.mate[s] = p
            if self.labelend[bs] == -1:
                break
            bt = self.inblossom[self.endpoint[self.labelend[bs]]]
            s = self.endpoint[self.labelend[bt]]
            j = self.endpoint[self.labelend[bt] ^ 1]
            if bt >= self.n:
                self.augment_blossom(bt, j)
            self.mate[j] = self.labelend[bt]
            p = self.labelend[bt] ^ 1

    def scan(self, v: int) -> bool:
        """Grow the forest along v's tight edges; True when the matching was augmented."""
        # The lists below are replaced only between stages: read them once (hot loop).
        edges, dual, endpoint, inblossom = self.edges, self.dual, self.endpoint, self.inblossom
        allowed, label, bestedge = self.allowed, self.label, self.bestedge
        sign, shifted = self.sign, self.shifted
        bv = inblossom[v]
        for p in self.neighbend[v]:
            w = endpoint[p]
            bw = inblossom[w]
            if bv == bw:
                continue
            k = p >> 1
            if allowed[k]:
                kslack = 0
            else:
                i, j, weight = edges[k]
                kslack = dual[i] + dual[j] - 2 * weight - (sign[i] + sign[j]) * shifted
                if kslack <= 0:
                    allowed[k] = True
            if kslack <= 0:
                if label[bw] == 0:
                    if self.mate[self.base[bw]] == -1:
                        # A single vertex whose dual is 0 (warm start): the path ends there;
                        # its unlabelled blossom may hold a stale labelend from an old stage.
                        self.labelend[bw] = -1
                        self.augment_matching(k)
                        return True
                    self.assign_label(w, 2, p ^ 1)
                elif label[bw] == 1:
                    found = self.scan_blossom(v, w)
                    if found == -1:
                        self.augment_matching(k)
                        return True
                    self.add_blossom(found, k)
                    bv = inblossom[v]  # v is now inside the new blossom
                elif label[w] == 0:
                    label[w], self.labelend[w] = 2, p ^ 1
            elif label[bw] == 1:
                best = bestedge[bv]
                if best != -1:
                    i, j, weight = edges[best]
                    if kslack >= dual[i] + dual[j] - 2 * weight - (sign[i] + sign[j]) * shifted:
                        continue
                bestedge[bv] = k
                self.top_version[bv] += 1
                entry = ((kslack + 2 * shifted) // 2, bv, self.top_version[bv], k)
                heappush(self.top_heap, entry)
            elif label[w] == 0:
                best = bestedge[w]
                if best != -1:
                    i, j, weight = edges[best]
                    if kslack >= dual[i] + dual[j] - 2 * weight - (sign[i] + sign[j]) * shifted:
                        continue
                bestedge[w] = k
                if label[bw] == 0:
                    self.free_version[w] += 1
                    heappush(self.free_heap, (kslack + shifted, w, self.free_version[w], k))
        return False

    def dual_step(self) -> bool:
        """Change the duals by the largest safe delta; False when the stage is over."""
        self.settle()
        kind, delta, target = self._vertex_deltas()
        parent = self.parent
        tops = sorted([b for b in self.live if parent[b] == -1]) if self.live else []
        label, dual = self.label, self.dual
        for b in tops:
            if label[b] == 2 and dual[b] < delta:
                kind, delta, target = 4, dual[b], b
        self.shifted += delta
        for b in tops:
            if label[b]:
                dual[b] += delta if label[b] == 1 else -delta
        if kind == 1:
            if self.warm and target >= 0 and self.mate[target] != -1:
                self.flip_to_root(target, -1)  # its root is matched, it stays single
            return False
        if kind == 4:
            self.expand_blossom(target, False)
            return True
        i, j, _ = self.edges[target]
        self.allowed[target] = True
        self.queue.append(j if kind == 2 and label[self.inblossom[i]] == 0 else i)
        return True

    def settle(self) -> None:
        """Re-anchor the duals of the dirty vertices to their current labels."""
        dual, sign, shifted, label = self.dual, self.sign, self.shifted, self.label
        inblossom, bestedge, edges, warm = self.inblossom, self.bestedge, self.edges, self.warm
        for v in self.dirty:
            at = label[inblossom[v]]
            now = 1 if at == 1 else -1 if at == 2 else 0
            was = sign[v]
            if now == was:
                continue
            dual[v] += (now - was) * shifted
            sign[v] = now
            if now == 1:
                if warm:
                    heappush(self.s_heap, (dual[v], v))
            elif now == 0 and bestedge[v] != -1:
                k = bestedge[v]
                i, j, weight = edges[k]
                kslack = dual[i] + dual[j] - 2 * weight - (sign[i] + sign[j]) * shifted
                self.free_version[v] += 1
                heappush(self.free_heap, (kslack + shifted, v, self.free_version[v], k))
        self.dirty.clear()

    def _vertex_deltas(self) -> tuple[int, int, int]:
        """Deltas 1-3: (kind, delta, target), from the candidates' heaps.

        Each heap gives its kind's first minimum in index order; the kinds are compared
        in the order 1, 2, 3 with a strict ``<``, as consecutive loops would. A key stays
        exact while its entry is current: an S-vertex stays S for the whole stage, so its
        dual plus ``shifted`` is constant; a bestedge leads to an S-vertex, so its slack
        plus ``shifted`` (free vertex) or ``2 * shifted`` (S-blossom) is constant while
        the vertex stays free or the blossom top-level. Entries whose version, label or
        edge no longer hold are dropped when they reach the top.
        """
        dual, sign, shifted, label = self.dual, self.sign, self.shifted, self.label
        bestedge, parent = self.bestedge, self.parent
        if self.warm:  # single vertices' duals differ: only S-vertices' duals must stay >= 0
            heap = self.s_heap
            while heap and (sign[heap[0][1]] != 1 or dual[heap[0][1]] != heap[0][0]):
                heappop(heap)
            kind, delta, target = (1, heap[0][0] - shifted, heap[0][1]) if heap else (1, 0, -1)
        else:
            duals = [d - s * shifted for d, s in zip(dual[: self.n], sign, strict=True)]
            kind, delta, target = 1, min(duals), -1
        free, version = self.free_heap, self.free_version
        while free:
            norm, v, at, k = free[0]
            if version[v] == at and sign[v] == 0 and bestedge[v] == k:
                if norm - shifted < delta:
                    kind, delta, target = 2, norm - shifted, k
                break
            heappop(free)
        tops, version = self.top_heap, self.top_version
        while tops:
            half, b, at, k = tops[0]
            if version[b] == at and bestedge[b] == k and parent[b] == -1 and label[b] == 1:
                if half - shifted < delta:
                    kind, delta, target = 3, half - shifted, k
                break
            heappop(tops)
        return kind, delta, target

    def stage(self) -> bool:
        """One stage: grow alternating trees until an augmentation; False if none exists.

        Warm start: False when no single vertex has a positive dual (optimal); a stage
        that ends on a dual reaching 0 returns True, the next stage starts afresh.
        """
        self.label = [0] * (2 * self.n)
        self.bestedge = [-1] * (2 * self.n)
        self.blossombest[self.n :] = [None] * self.n
        self.allowed = [False] * len(self.edges)
        self.queue = []
        self.dirty, self.s_heap, self.free_heap, self.top_heap = [], [], [], []
        roots = [
            v for v in range(self.n) if self.mate[v] == -1 and (not self.warm or self.dual[v] > 0)
        ]
        if self.warm:
            if not roots:
                return False
            self.even_roots(roots)
        for v in roots:
            if self.label[self.inblossom[v]] == 0:
                self.assign_label(v, 1, -1)
        while True:
            while self.queue:
                if self.scan(self.queue.pop()):
                    self.unshift()
                    return True
            if not self.dual_step():
                self.unshift()
                return self.warm

    def unshift(self) -> None:
        """End of stage: the vertices' duals as plain values again."""
        shifted = self.shifted
        vertices = zip(self.dual[: self.n], self.sign, strict=True)
        self.dual[: self.n] = [d - s * shifted for d, s in vertices]
        self.sign = [0] * self.n
        self.shifted = 0

    def even_roots(self, roots: list[int]) -> None:
        """Give every root an even dual, keeping every constraint.

        All vertices of a tree share their root's parity (tight edges), so when all roots
        are even S-S edges have even slack and every delta stays an integer. A single
        vertex's dual may rise freely; a root blossom's leaves rise by 1 and its dual
        falls by 1 (inner slacks unchanged), or it is expanded when its dual is 0.
        """
        for v in roots:
            while self.dual[v] % 2:
                b = self.inblossom[v]
                if b == v:
                    self.dual[v] += 1
                elif self.dual[b] >= 1:
                    for leaf in self.leafs[b]:
                        self.dual[leaf] += 1
                    self.dual[b] -= 1
                else:
                    self.expand_blossom(b, True)

    def run_stages(self, max_stages: int) -> bool:
        """Run stages until one finds nothing left to do; False if ``max_stages`` did not
        suffice."""
        for _ in range(max_stages):
            if not self.stage():
                return True
            self.expand_zero_s_blossoms()
        return False

    def expand_zero_s_blossoms(self) -> None:
        """End of stage: top-level S-blossoms whose dual is 0 are expanded."""
        for b in sorted(self.live):
            top_s = self.parent[b] == -1 and self.base[b] >= 0 and self.label[b] == 1
            if top_s and self.dual[b] == 0:
                self.expand_blossom(b, True)

    def solution(self) -> BlossomSolution:
        n = self.n
        mate = tuple([self.endpoint[p] if p != -1 else -1 for p in self.mate])
        live = {b: self.dual[b] for b in sorted(self.live)}  # live: the blossoms with a base
        return BlossomSolution(mate, tuple(self.dual[:n]), live, tuple(self.parent))
