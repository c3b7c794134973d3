"""``optimal``'s virtual rating (ADR 0179) and priced rematches (ADR 0180) against brute
force on small waves, mirror ladders and BW against SC2 (players of one race or both):
every matching of the wave is enumerated and scored
from first principles (the pressure window on the virtual gap, the score
``gap**2 - wait_bonus * waits + rematch cost``); the strategy must make the most pairs
at the least summed score, and the live checker must accept its result."""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveResult, WaveSnapshot
from matcher.duel.model import OPTIMAL_DEFAULTS
from matcher.duel.windows import pressure, tier_window
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import result_problems, run_wave

CLOSED_AT_MS = 600_000
WITHIN_S = 300
LAST = 3
WAVES = 40
#: Ratings with ties, a tight core and far tails (the data the options are for).
RATINGS = (1500, 1500, 1520, 1560, 1650, 1900, 2300, 800, 1100)


def ratings(rng: random.Random, races: bool) -> tuple[tuple[str, int], ...]:
    rating = rng.choice(RATINGS)
    if not races:
        return (("mmr", rating),)
    which = rng.randrange(3)
    if which == 2:  # rated for both races, a little apart
        return (("bw", rating), ("sc2", rating + rng.choice((-60, 0, 40))))
    return ((("bw", "sc2")[which], rating),)


def wave(seed: int, met: bool, races: bool = False) -> WaveSnapshot:
    rng = random.Random(seed)
    n = rng.randint(2, 9)
    tickets = tuple(
        WaitingTicket(
            Ticket(
                f"t{i}",
                "q",
                "eu",
                (Player(f"p{i}", ratings(rng, races)),),
                CLOSED_AT_MS - rng.randint(0, 240) * 1000,
            ),
            rng.randint(0, 4),
        )
        for i in range(n)
    )
    meetings: list[tuple[str, tuple[tuple[int, tuple[str, ...]], ...]]] = []
    if met:
        for i in range(n):
            others = [j for j in range(n) if j != i]
            count = min(len(others), rng.randint(0, LAST + 1))
            history = sorted(
                (
                    (CLOSED_AT_MS - rng.randint(1, 2 * WITHIN_S) * 1000, (f"p{j}",))
                    for j in rng.sample(others, count)
                ),
                reverse=True,
            )
            if history:
                meetings.append((f"p{i}", tuple(history)))
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tickets, 2 * n, (), tuple(meetings))


def virtual(rating: int, mean: int, waited_ms: int, half_life_ms: int) -> int:
    """The documented rule, with exact fractions: the offset halves per half-life,
    linearly in between, truncated toward the mean."""
    k, rest = divmod(waited_ms, half_life_ms)
    offset = Fraction(rating - mean) * Fraction(2 * half_life_ms - rest, 2 * half_life_ms)
    offset /= 2**k
    return mean + int(offset)  # int() truncates toward zero: toward the mean


def matchings(people: list[int]) -> Iterator[list[tuple[int, int]]]:
    if len(people) < 2:
        yield []
        return
    first, rest = people[0], people[1:]
    yield from matchings(rest)
    for i, other in enumerate(rest):
        for tail in matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


class Oracle:
    """The wave as the documented rules see it: virtual ratings, window, meetings."""

    def __init__(self, snapshot: WaveSnapshot, half_life_ms: int, cost: int) -> None:
        players = [w.ticket.players[0] for w in snapshot.tickets]
        mirror = [p.rating("mmr") for p in players]
        bw = [p.rating("bw") if m is None else m for p, m in zip(players, mirror, strict=True)]
        sc2 = [p.rating("sc2") if m is None else m for p, m in zip(players, mirror, strict=True)]
        offered = [r for r in bw + sc2 if r is not None]
        mean = sum(offered) // len(offered)
        waited = [CLOSED_AT_MS - w.ticket.joined_at_ms for w in snapshot.tickets]

        def moved(side: list[int | None]) -> list[int | None]:
            if not half_life_ms:
                return side
            return [
                None if r is None else virtual(r, mean, w, half_life_ms)
                for r, w in zip(side, waited, strict=True)
            ]

        self.bw, self.sc2 = moved(bw), moved(sc2)
        self.cycles = [w.wait_cycles for w in snapshot.tickets]
        config = OPTIMAL_DEFAULTS
        self.window = tier_window(pressure(len(bw), snapshot.active_population, config), config)
        self.cost = cost
        self.newest: dict[frozenset[int], int] = {}
        for player_id, history in snapshot.meetings:
            for at_ms, others in history[:LAST]:
                if at_ms >= CLOSED_AT_MS - WITHIN_S * 1000:
                    pair = frozenset({int(player_id[1:]), int(others[0][1:])})
                    self.newest[pair] = max(self.newest.get(pair, at_ms), at_ms)

    def score(self, a: int, b: int) -> int | None:
        """The pair's score on its cheaper side choice, None when it may not play."""
        sides = [s for s in (self.oriented(a, b), self.oriented(b, a)) if s is not None]
        return min(sides) if sides else None

    def oriented(self, a: int, b: int) -> int | None:
        """The score of ``a`` on BW against ``b`` on SC2, None when they may not play so
        (a race missing, the window, or the hard filter)."""
        rating_a, rating_b = self.bw[a], self.sc2[b]
        if rating_a is None or rating_b is None:
            return None
        gap = abs(rating_a - rating_b)
        if gap > self.window.max_diff(max(self.cycles[a], self.cycles[b])):
            return None
        met = self.newest.get(frozenset({a, b}))
        if met is not None and not self.cost:
            return None
        within = WITHIN_S * 1000
        added = 0 if met is None else self.cost * (within - (CLOSED_AT_MS - met)) // within
        return gap * gap - OPTIMAL_DEFAULTS.wait_bonus * (self.cycles[a] + self.cycles[b]) + added

    def best(self) -> tuple[int, int]:
        """Most pairs, then least summed score, over every matching of the wave."""
        best = (0, 0)
        for matching in matchings(list(range(len(self.bw)))):
            scores = [self.score(a, b) for a, b in matching]
            if all(s is not None for s in scores):
                best = max(best, (len(matching), -sum(s for s in scores if s is not None)))
        return best[0], -best[1]

    def of(self, snapshot: WaveSnapshot, result: WaveResult) -> tuple[int, int]:
        """The result's pairs and summed score (every pair must be playable)."""
        at = {w.ticket.ticket_id: i for i, w in enumerate(snapshot.tickets)}
        total = 0
        for match in result.matches:
            score = self.oriented(
                at[match.teams[0].seats[0].ticket_id], at[match.teams[1].seats[0].ticket_id]
            )
            assert score is not None, f"{match.match_id} may not play"
            total += score
        return len(result.matches), total


def profile(half_life_ms: int, cost: int, races: bool) -> QueueProfile:
    options = {}
    if half_life_ms:
        options["virtual_rating_half_life_ms"] = half_life_ms
    if cost:
        options["rematch_cost"] = cost
    rules: dict[str, object] = {"rematch": {"last": LAST, "within_s": WITHIN_S}}
    if not races:
        rules["rating"] = "mmr"
    return QueueProfile("q", "optimal", ("m",), options=options, rules=rules)


@pytest.mark.parametrize("races", [False, True], ids=["mirror", "bw-sc2"])
@pytest.mark.parametrize(
    ("half_life_ms", "cost"), [(60_000, 0), (0, 40_000), (0, 400_000), (90_000, 90_000)]
)
def test_optimal_with_the_options_is_the_brute_force_optimum(
    half_life_ms: int, cost: int, races: bool
) -> None:
    queue = profile(half_life_ms, cost, races)
    for seed in range(WAVES):
        snapshot = wave(seed, met=bool(cost) or seed % 2 == 0, races=races)
        snapshot = rated_snapshot(snapshot, queue.ruleset)
        result = run_wave(snapshot, queue)
        assert result_problems(snapshot, queue, result) == [], seed
        assert wave_rule_problems(snapshot, queue, result) == [], seed
        oracle = Oracle(snapshot, half_life_ms, cost)
        assert oracle.of(snapshot, result) == oracle.best(), seed
        for match in result.matches:  # the quality figure is the real gap
            seats = [team.seats[0].rating for team in match.teams]
            assert match.quality_of("mmr_diff") == abs(seats[0] - seats[1])
