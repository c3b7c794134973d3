"""The search: sorted start, best-improving swaps between matches, seeded restarts.

A state is M matches of 2n seats; each match keeps its best split (brute force over
all splits that keep parties whole). A move exchanges tickets between two matches
(:mod:`matcher.multifactor.moves`: two players, or a party for smaller tickets of
the same total) and re-splits both. The best move of every pair of matches is
cached; each round of a descent applies the improving moves of disjoint pairs,
greedily by gain (ADR 0049); the pairs touching a moved match go stale and are
re-scored near ones first, far ones only when no near move improves (ADR 0053),
until no move improves. Restarts mostly kick the best state (a few random moves
among matches adjacent in rating around a poor match, then a descent); every
FRESH_EVERY-th one, once the search has run a while, starts afresh from a jittered
skill order.

The budget counts evaluations (a candidate match scored over all its splits), never
time, so a replay on any machine makes the same moves and stops at the same point.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from matcher.multifactor.config import MultifactorConfig
from matcher.multifactor.evaluate import Layout, Structures, evaluate, layout_for
from matcher.multifactor.factors import transform
from matcher.multifactor.moves import Moves, MoveTable
from matcher.multifactor.packing import pack_matches
from matcher.multifactor.pool import Pool

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Smallest gain that counts as an improvement; stops float-noise cycles (scores of
#: equal matches are bit-identical, so real gains are far larger).
MIN_GAIN = 1e-12
#: Candidates scored per numpy batch: bounds memory, and keeps a batch's temporaries
#: small enough to stay in a core's L2 cache (larger batches spill and score slower).
CANDIDATES_PER_BATCH = 2_048
#: A kick perturbs this many matches adjacent in rating (ADR 0049): a random move
#: between far-apart matches is undone by the next descent and wastes its re-scoring.
KICK_SPAN = 4
#: A kick's matches surround one drawn with weight (1 - score) ** KICK_AIM: kicks go
#: where the poor matches are (ADR 0053; uniform kicks left bad matches untouched).
KICK_AIM = 2
#: Every FRESH_EVERY-th restart starts afresh from a jittered skill order; the others
#: kick the best state (ADR 0049: local kicks are cheap, fresh starts add diversity).
FRESH_EVERY = 8
#: ... but only once the search has spent FRESH_AFTER times the first descent's
#: evaluations (ADR 0053): on big waves a fresh descent costs as much as dozens of
#: kicks and, before the kicks have run for a while, never beat the best state.
FRESH_AFTER = 16
#: A descent re-scores the stale pairs of matches at most this many ranks apart in
#: rating first (cheap sweeps, most of the gain), the far ones only when the near ones
#: hold no improving move (ADR 0049, ADR 0053).
NEAR_RANKS = 3
#: Waves of at most this many matches skip the near phase: their far pairs are few, and
#: scoring them in batches of their own cost more time than it saved (ADR 0053).
NEAR_FROM_MATCHES = 24


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """The best state found: per match its 2n seats (team 1 first) and its score."""

    matches: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    scores: tuple[float, ...]
    wave_score: float
    start_score: float
    iterations: int
    restarts: int
    evaluations: int
    best_restart: int


@dataclass(slots=True)
class _State:
    seats: IntArray
    structure: list[int]
    score: FloatArray
    split: IntArray
    # Per pair of matches (p < q): gain of its best move, the move and the splits it
    # gives both matches, and their new scores. Valid for pairs untouched since scored.
    gain: FloatArray = field(default_factory=lambda: np.zeros((0, 0)))
    move: IntArray = field(default_factory=lambda: np.zeros((0, 0, 3), dtype=np.int64))
    after: FloatArray = field(default_factory=lambda: np.zeros((0, 0, 2)))

    def objective(self, config: MultifactorConfig) -> float:
        # fsum is exactly rounded, hence independent of summation order and machine.
        return math.fsum(float(transform(float(s), config)) for s in self.score)


class Search:
    """One wave's search; :meth:`run` is the whole algorithm (deterministic in ``seed``)."""

    def __init__(self, pool: Pool, config: MultifactorConfig, seed: int) -> None:
        self.pool = pool
        self.config = config
        self.rng = random.Random(seed)
        self.layout: Layout = layout_for(pool.team_size)
        self.structures = Structures(self.layout, config)
        self.table = MoveTable(self.structures)
        self.evaluations = 0
        self.iterations = 0

    def run(self) -> SearchOutcome:
        """Descend from the sorted start, then restart (kicks, fresh starts) while budget lasts.

        Notes: one descent costs O(M^2 x t^2) evaluations for its first sweep and
        O(M x t^2) per move (M matches, t tickets per match).
        """
        order = sorted(range(len(self.pool.tickets)), key=self.pool.ticket_key)
        best = self._start(order)
        start_score = best.objective(self.config)
        self._descend(best)
        # Budget-independent, so a bigger budget still replays the smaller one's moves.
        fresh_from = self.evaluations * FRESH_AFTER
        restarts = best_restart = 0
        can_move = len(best.score) >= 2
        while can_move and restarts < self.config.max_restarts and self._budget_left():
            restarts += 1
            fresh = not restarts % FRESH_EVERY and self.evaluations >= fresh_from
            if self.config.restart_kicks and not fresh:
                state = self._kicked(best)
            else:
                state = self._start(self._jittered_order())
                self._descend(state)
            if state.objective(self.config) > best.objective(self.config):
                best, best_restart = state, restarts
        return self._outcome(best, start_score, restarts, best_restart)

    def _kicked(self, best: _State) -> _State:
        """A copy of ``best`` after random moves among KICK_SPAN matches adjacent in rating,
        descended again, re-scoring only the pairs that touch a moved match (every other
        pair's cached best move is still valid), near ones first."""
        state = _State(
            best.seats.copy(),
            list(best.structure),
            best.score.copy(),
            best.split.copy(),
            best.gain.copy(),
            best.move.copy(),
            best.after.copy(),
        )
        touched: set[int] = set()
        cluster = self._kick_cluster(state)
        for _ in range(self.config.restart_kicks):
            p, q = sorted(self.rng.sample(cluster, 2))
            moves = self._moves(state.structure[p], state.structure[q])
            if not len(moves):
                continue
            k = self.rng.randrange(len(moves))
            both = np.concatenate((state.seats[p], state.seats[q]))
            state.seats[p], state.seats[q] = both[moves.index_p[k]], both[moves.index_q[k]]
            state.structure[p], state.structure[q] = int(moves.sid_p[k]), int(moves.sid_q[k])
            touched |= {p, q}
        if touched:
            # Random moves need no scores: the moved matches are scored once, together.
            moved = sorted(touched)
            sids = np.array([state.structure[m] for m in moved], dtype=np.int64)
            state.score[moved], state.split[moved] = self._evaluate(state.seats[moved], sids)
        self._descend(state, sorted(touched))
        return state

    def _kick_cluster(self, state: _State) -> list[int]:
        """KICK_SPAN matches adjacent in total rating, around one drawn by how poor it is.

        The aimed match is drawn with weight (1 - score) ** KICK_AIM, then the window
        of KICK_SPAN ranks holding it at a uniformly drawn position.
        """
        order = self._by_rating(state)
        span = min(KICK_SPAN, len(order))
        weights = [(1.0 - float(state.score[m])) ** KICK_AIM + MIN_GAIN for m in order]
        aimed = self.rng.choices(range(len(order)), weights)[0]
        first = self.rng.randint(max(0, aimed - span + 1), min(aimed, len(order) - span))
        return sorted(order[first : first + span])

    def _budget_left(self) -> bool:
        return self.evaluations < self.config.budget_evaluations

    def _jittered_order(self) -> list[int]:
        """Skill order with uniform noise of ``restart_jitter`` x the interquartile spread."""
        keys = [self.pool.ticket_key(i) for i in range(len(self.pool.tickets))]
        ranked = sorted(keys)
        spread = max(ranked[3 * len(ranked) // 4] - ranked[len(ranked) // 4], 1.0)
        width = self.config.restart_jitter * spread
        noisy = [key + (self.rng.random() - 0.5) * width for key in keys]
        return sorted(range(len(keys)), key=lambda i: (noisy[i], i))

    def _start(self, order: list[int]) -> _State:
        matches = pack_matches(order, self.pool)
        rows = [self._seat_row(tickets) for tickets in matches]
        # Explicit width: an empty wave (no match) must still give a (0, 2n) array.
        width = 2 * self.pool.team_size
        seats = np.array([row for row, _ in rows], dtype=np.int64).reshape(len(rows), width)
        sids = np.array([self.structures.id_of(sizes) for _, sizes in rows], dtype=np.int64)
        score, split = self._evaluate(seats, sids)
        return _State(seats, [int(sid) for sid in sids], score, split)

    def _seat_row(self, tickets: list[int]) -> tuple[list[int], tuple[int, ...]]:
        """Seats of a match: tickets by decreasing size (then index), contiguous."""
        ordered = sorted(tickets, key=lambda t: (-len(self.pool.ticket_players[t]), t))
        seats = [p for t in ordered for p in self.pool.ticket_players[t]]
        return seats, tuple(len(self.pool.ticket_players[t]) for t in ordered)

    def _evaluate(self, seats: IntArray, sids: IntArray) -> tuple[FloatArray, IntArray]:
        self.evaluations += len(seats)
        scores, splits = [], []
        for start in range(0, max(len(seats), 1), CANDIDATES_PER_BATCH):
            part = slice(start, start + CANDIDATES_PER_BATCH)
            score, split = evaluate(
                self.pool, self.layout, self.structures, self.config, seats[part], sids[part]
            )
            scores.append(score)
            splits.append(split)
        return np.concatenate(scores), np.concatenate(splits)

    def _descend(self, state: _State, moved: list[int] | None = None) -> None:
        """Apply rounds of disjoint improving moves until none improves (or the budget runs out).

        ``moved`` are the matches changed since the cached best moves were scored; None
        means a fresh state (nothing cached). A pair of matches is stale once either
        match moves. Each round re-scores the stale pairs at most NEAR_RANKS apart in
        rating (waves of more than NEAR_FROM_MATCHES matches) and, only if no scored
        pair then improves, every other stale pair; then it applies the improving moves
        of disjoint pairs (ADR 0049). It ends when no pair is stale and none improves: a
        local optimum over all pairs, as before, but far pairs are re-scored once per
        stretch of near moves instead of after every round (ADR 0053).
        """
        count = len(state.score)
        if moved is None:
            state.gain = np.full((count, count), -np.inf)
            state.move = np.zeros((count, count, 3), dtype=np.int64)
            state.after = np.zeros((count, count, 2))
            stale = np.triu(np.ones((count, count), dtype=np.bool_), k=1)
        else:
            stale = np.zeros((count, count), dtype=np.bool_)
            _mark_stale(state, stale, moved)
        while count >= 2:
            chosen: list[tuple[int, int]] = []
            if count > NEAR_FROM_MATCHES:
                chosen = self._score_then_choose(state, stale, stale & self._near_pairs(state))
            if not chosen:
                chosen = self._score_then_choose(state, stale, stale.copy())
            if not chosen:
                return
            for p, q in chosen:
                self._apply(state, p, q)
            self.iterations += len(chosen)
            if not self._budget_left():
                return
            _mark_stale(state, stale, sorted({m for pair in chosen for m in pair}))

    def _score_then_choose(
        self, state: _State, stale: BoolArray, todo: BoolArray
    ) -> list[tuple[int, int]]:
        """Re-score the ``todo`` pairs (no longer stale), then pick a round of moves."""
        if todo.any():
            ps, qs = np.nonzero(todo)
            self._rescore_arrays(ps.astype(np.int64), qs.astype(np.int64), state)
            stale &= ~todo
        return _disjoint_improving(state.gain)

    def _near_pairs(self, state: _State) -> BoolArray:
        """Pairs of matches (p < q) at most NEAR_RANKS apart in the order of total rating."""
        totals = self.pool.capped[state.seats].sum(axis=1)
        order = np.lexsort((np.arange(len(totals)), totals))  # as _by_rating, in numpy
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        near: BoolArray = np.triu(np.abs(rank[:, None] - rank[None, :]) <= NEAR_RANKS, k=1)
        return near

    def _by_rating(self, state: _State) -> list[int]:
        """Matches by total capped rating (then index)."""
        totals = self.pool.capped[state.seats].sum(axis=1).tolist()
        return sorted(range(len(totals)), key=lambda m: (totals[m], m))

    def _apply(self, state: _State, p: int, q: int) -> None:
        k = int(state.move[p, q, 0])
        moves = self._moves(state.structure[p], state.structure[q])
        both = np.concatenate((state.seats[p], state.seats[q]))
        state.seats[p], state.seats[q] = both[moves.index_p[k]], both[moves.index_q[k]]
        state.structure[p], state.structure[q] = int(moves.sid_p[k]), int(moves.sid_q[k])
        state.split[p], state.split[q] = state.move[p, q, 1], state.move[p, q, 2]
        state.score[p], state.score[q] = state.after[p, q, 0], state.after[p, q, 1]

    def _rescore(self, pairs: list[tuple[int, int]], state: _State) -> None:
        """Best move (and its gain) of each pair of matches, all scored in one batch.

        Candidates are laid out pair by pair (both matches' new seats), so a segmented
        argmax picks each pair's best move; ties go to the first move.
        """
        ps = np.array([p for p, _ in pairs], dtype=np.int64)
        qs = np.array([q for _, q in pairs], dtype=np.int64)
        self._rescore_arrays(ps, qs, state)

    def _rescore_arrays(self, ps: IntArray, qs: IntArray, state: _State) -> None:
        """:meth:`_rescore` of the pairs ``(ps[i], qs[i])``."""
        state.gain[ps, qs] = -np.inf
        structure = np.array(state.structure, dtype=np.int64)
        start, count = self.table.locate(structure[ps], structure[qs])
        has_moves = count > 0
        ps, qs, start, count = ps[has_moves], qs[has_moves], start[has_moves], count[has_moves]
        if not len(ps):
            return
        total = int(count.sum())
        owner = np.repeat(np.arange(len(ps)), count)
        move = np.repeat(start - (np.cumsum(count) - count), count) + np.arange(total)
        both = np.concatenate((state.seats[ps], state.seats[qs]), axis=1)[owner]
        # Both sides of every move in one call: fewer, larger numpy batches.
        rows = np.concatenate(
            (
                np.take_along_axis(both, self.table.index_p[move], axis=1),
                np.take_along_axis(both, self.table.index_q[move], axis=1),
            )
        )
        score, split = self._evaluate(
            rows, np.concatenate((self.table.sid_p[move], self.table.sid_q[move]))
        )
        score_p, score_q, split_p, split_q = (
            score[:total],
            score[total:],
            split[:total],
            split[total:],
        )
        self._keep_best(state, ps, qs, count, score_p, split_p, score_q, split_q)

    def _keep_best(
        self,
        state: _State,
        ps: IntArray,
        qs: IntArray,
        moves: IntArray,
        score_p: FloatArray,
        split_p: IntArray,
        score_q: FloatArray,
        split_q: IntArray,
    ) -> None:
        old = np.repeat(
            transform(state.score[ps], self.config) + transform(state.score[qs], self.config), moves
        )
        gains = (transform(score_p, self.config) + transform(score_q, self.config)) - old
        starts = np.concatenate(([0], np.cumsum(moves)[:-1]))
        best_gain = np.maximum.reduceat(gains, starts)
        at_best = np.flatnonzero(gains == np.repeat(best_gain, moves))
        first = at_best[np.searchsorted(at_best, starts)]
        state.gain[ps, qs] = best_gain
        state.move[ps, qs, 0] = first - starts
        state.move[ps, qs, 1] = split_p[first]
        state.move[ps, qs, 2] = split_q[first]
        state.after[ps, qs, 0] = score_p[first]
        state.after[ps, qs, 1] = score_q[first]

    def _moves(self, sp: int, sq: int) -> Moves:
        return self.table.get(sp, sq)

    def _outcome(
        self, state: _State, start_score: float, restarts: int, best_restart: int
    ) -> SearchOutcome:
        count = max(len(state.score), 1)
        matches = []
        for m in range(len(state.score)):
            mask = self.layout.masks[int(state.split[m])]
            seats = state.seats[m]
            matches.append(
                (tuple(int(s) for s in seats[mask]), tuple(int(s) for s in seats[~mask]))
            )
        return SearchOutcome(
            matches=tuple(matches),
            scores=tuple(float(s) for s in state.score),
            wave_score=state.objective(self.config) / count,
            start_score=start_score / count,
            iterations=self.iterations,
            restarts=restarts,
            evaluations=self.evaluations,
            best_restart=best_restart,
        )


def _disjoint_improving(gain: FloatArray) -> list[tuple[int, int]]:
    """Improving moves of pairwise disjoint pairs of matches, greedily by gain.

    Each pair's gain depends on its two matches only, so moves on disjoint pairs stay
    valid together and their gains add up. Ties go to the lower flat index.
    """
    count = len(gain)
    flat = gain.ravel()
    candidates = np.flatnonzero(flat > MIN_GAIN)
    order = candidates[np.lexsort((candidates, -flat[candidates]))]
    used = np.zeros(count, dtype=np.bool_)
    chosen: list[tuple[int, int]] = []
    for index in order.tolist():
        p, q = divmod(index, count)
        if not (used[p] or used[q]):
            used[p] = used[q] = True
            chosen.append((p, q))
    return chosen


def _mark_stale(state: _State, stale: BoolArray, moved: list[int]) -> None:
    """Forget the cached moves of every pair touching a moved match; mark them stale."""
    rows = np.array(moved, dtype=np.int64)
    state.gain[rows, :] = state.gain[:, rows] = -np.inf
    for m in moved:  # pairs are (p, q) with p < q: the upper triangle only
        stale[m, m + 1 :] = True
        stale[:m, m] = True
