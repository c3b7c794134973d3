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
    solver.solve()
    return solver.solution()


class _Solver:
    def __init__(self, n: int, edges: Sequence[tuple[int, int, int]]) -> None:
        self.n = n
        self.edges = [(int(i), int(j), int(w)) for i, j, w in edges]
        self.endpoint = [v for i, j, _ in self.edges for v in (i, j)]
        self.neighbend: list[list[int]] = [[] for _ in range(n)]
        for k, (i, j, _) in enumerate(self.edges):
            self.neighbend[i].append(2 * k + 1)
            self.neighbend[j].append(2 * k)
        top = max((w for _, _, w in self.edges), default=0)
        self.mate = [-1] * n
        self.label = [0] * (2 * n)
        self.labelend = [-1] * (2 * n)
        self.inblossom = list(range(n))
        self.parent = [-1] * (2 * n)
        self.childs: list[list[int]] = [[] for _ in range(2 * n)]
        self.leafs: list[list[int]] = [[] for _ in range(2 * n)]
        self.base = list(range(n)) + [-1] * n
        self.endps: list[list[int]] = [[] for _ in range(2 * n)]
        self.bestedge = [-1] * (2 * n)
        self.blossombest: list[list[int] | None] = [None] * (2 * n)
        self.unused = list(range(n, 2 * n))
        self.dual = [top] * n + [0] * n
        self.allowed = [False] * len(self.edges)
        self.queue: list[int] = []

    def slack(self, k: int) -> int:
        i, j, w = self.edges[k]
        return self.dual[i] + self.dual[j] - 2 * w

    def leaves(self, b: int) -> list[int]:
        return [b] if b < self.n else self.leafs[b]

    def assign_label(self, w: int, t: int, p: int) -> None:
        b = self.inblossom[w]
        self.label[w] = self.label[b] = t
        self.labelend[w] = self.labelend[b] = p
        self.bestedge[w] = self.bestedge[b] = -1
        if t == 1:
            self.queue.extend(self.leaves(b))
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
        self.leafs[b] = [leaf for child in path for leaf in self.leaves(child)]
        self.label[b], self.labelend[b], self.dual[b] = 1, self.labelend[bb], 0
        for leaf in self.leaves(b):
            if self.label[self.inblossom[leaf]] == 2:
                self.queue.append(leaf)
            self.inblossom[leaf] = b
        self.collect_best_edges(b, path)

    def collect_best_edges(self, b: int, path: list[int]) -> None:
        best_to: dict[int, int] = {}
        for child in path:
            listed = self.blossombest[child]
            if listed is None:
                listed = [p // 2 for leaf in self.leaves(child) for p in self.neighbend[leaf]]
            for k in listed:
                i, j, _ = self.edges[k]
                if self.inblossom[j] == b:
                    i, j = j, i
                bj = self.inblossom[j]
                if bj != b and self.label[bj] == 1:
                    known = best_to.get(bj, -1)
                    if known == -1 or self.slack(k) < self.slack(known):
                        best_to[bj] = k
            self.blossombest[child] = None
            self.bestedge[child] = -1
        best = list(best_to.values())
        self.blossombest[b] = best
        self.bestedge[b] = min(best, key=self.slack, default=-1)

    def expand_blossom(self, b: int, endstage: bool) -> None:
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

    def augment_blossom(self, b: int, v: int) -> None:
        t = v
        while self.parent[t] != b:
            t = self.parent[t]
        if t >= self.n:
            self.augment_blossom(t, v)
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
        for s, p in ((v, 2 * k + 1), (w, 2 * k)):
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
        for p in self.neighbend[v]:
            k, w = p // 2, self.endpoint[p]
            bv, bw = self.inblossom[v], self.inblossom[w]
            if bv == bw:
                continue
            kslack = 0
            if not self.allowed[k]:
                kslack = self.slack(k)
                self.allowed[k] = kslack <= 0
            if self.allowed[k]:
                if self.label[bw] == 0:
                    self.assign_label(w, 2, p ^ 1)
                elif self.label[bw] == 1:
                    found = self.scan_blossom(v, w)
                    if found == -1:
                        self.augment_matching(k)
                        return True
                    self.add_blossom(found, k)
                elif self.label[w] == 0:
                    self.label[w], self.labelend[w] = 2, p ^ 1
            elif self.label[bw] == 1:
                if self.bestedge[bv] == -1 or kslack < self.slack(self.bestedge[bv]):
                    self.bestedge[bv] = k
            elif self.label[w] == 0 and (
                self.bestedge[w] == -1 or kslack < self.slack(self.bestedge[w])
            ):
                self.bestedge[w] = k
        return False

    def dual_step(self) -> bool:
        """Change the duals by the largest safe delta; False when the stage is over."""
        n, dual, label, bestedge, slack = self.n, self.dual, self.label, self.bestedge, self.slack
        vertex_label = [label[b] for b in self.inblossom]
        tops = [b for b in range(n, 2 * n) if self.base[b] >= 0 and self.parent[b] == -1]
        kind, delta, target = 1, min(dual[:n]), -1
        for v in range(n):
            if bestedge[v] != -1 and vertex_label[v] == 0:
                d = slack(bestedge[v])
                if d < delta:
                    kind, delta, target = 2, d, bestedge[v]
        for b in [v for v in range(n) if self.parent[v] == -1] + tops:
            if label[b] == 1 and bestedge[b] != -1:
                d = slack(bestedge[b]) // 2
                if d < delta:
                    kind, delta, target = 3, d, bestedge[b]
        for b in tops:
            if label[b] == 2 and dual[b] < delta:
                kind, delta, target = 4, dual[b], b
        for v in range(n):
            if vertex_label[v] == 1:
                dual[v] -= delta
            elif vertex_label[v] == 2:
                dual[v] += delta
        for b in tops:
            if label[b]:
                dual[b] += delta if label[b] == 1 else -delta
        if kind == 1:
            return False
        if kind == 4:
            self.expand_blossom(target, False)
            return True
        i, j, _ = self.edges[target]
        self.allowed[target] = True
        self.queue.append(j if kind == 2 and label[self.inblossom[i]] == 0 else i)
        return True

    def stage(self) -> bool:
        """One stage: grow alternating trees until an augmentation; False if none exists."""
        self.label = [0] * (2 * self.n)
        self.bestedge = [-1] * (2 * self.n)
        self.blossombest[self.n :] = [None] * self.n
        self.allowed = [False] * len(self.edges)
        self.queue = []
        for v in range(self.n):
            if self.mate[v] == -1 and self.label[self.inblossom[v]] == 0:
                self.assign_label(v, 1, -1)
        while True:
            while self.queue:
                if self.scan(self.queue.pop()):
                    return True
            if not self.dual_step():
                return False

    def solve(self) -> None:
        for _ in range(self.n):
            if not self.stage():
                break
            for b in range(self.n, 2 * self.n):
                top_s = self.parent[b] == -1 and self.base[b] >= 0 and self.label[b] == 1
                if top_s and self.dual[b] == 0:
                    self.expand_blossom(b, True)

    def solution(self) -> BlossomSolution:
        n = self.n
        mate = tuple(self.endpoint[p] if p != -1 else -1 for p in self.mate)
        live = {b: self.dual[b] for b in range(n, 2 * n) if self.base[b] >= 0}
        return BlossomSolution(mate, tuple(self.dual[:n]), live, tuple(self.parent))
