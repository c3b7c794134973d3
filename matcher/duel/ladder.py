"""Strategy ``ladder-v2.1``: the reference design's stages 1-6, faithfully.

The design is locally optimal by construction and good for 20-30 players; it is
kept because platforms migrating from it need identical decisions. Where its prose
and its code disagree, this follows the code (docs/adr/0010).

The one addition: a pair whose players veto every map of the queue is not a
candidate (stage 7 could not place it); the design does not say (docs/adr/0012).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from operator import attrgetter

from matcher.duel.model import BW, SC2, DuelConfig, DuelPair, DuelPlayer, Window
from matcher.duel.windows import pair_wait, pressure, tier_window


@dataclass(frozen=True, slots=True)
class LadderOutcome:
    """Stages 1-6 of one wave: the pairs in creation order and what led to them."""

    pairs: tuple[DuelPair, ...]
    swaps: int
    lead_side: str
    window: Window
    pressure: float


def partition(
    players: Sequence[DuelPlayer],
) -> tuple[list[DuelPlayer], list[DuelPlayer], list[DuelPlayer]]:
    """Stage 1: split into bw_only, sc2_only and both, each in wave order.

    >>> a, b = DuelPlayer("a", 1, None), DuelPlayer("b", 1, 2)
    >>> [len(part) for part in partition([a, b])]
    [1, 0, 1]

    Notes: O(n).
    """
    bw_only: list[DuelPlayer] = []
    sc2_only: list[DuelPlayer] = []
    both: list[DuelPlayer] = []
    # One pass with the fields read directly: the 30-player floor leaves no room for more
    # (docs/benchmarks/duel.md).
    for p in players:
        if p.bw_mmr is None:
            if p.sc2_mmr is not None:
                sc2_only.append(p)
        elif p.sc2_mmr is None:
            bw_only.append(p)
        else:
            both.append(p)
    return bw_only, sc2_only, both


def equalize(
    bw_only: list[DuelPlayer],
    sc2_only: list[DuelPlayer],
    both: list[DuelPlayer],
    config: DuelConfig,
) -> tuple[list[DuelPlayer], list[DuelPlayer]]:
    """Stage 2: give every "both" player a side, then one neutral move if means differ.

    The design's prose example (BW=2, SC2=5, three "both" -> 4/5) contradicts its
    code, which moves all three to BW; the code wins:

    >>> solo = lambda i, bw, sc2: DuelPlayer(str(i), bw, sc2)
    >>> bw, sc2 = equalize([solo(0, 1500, None), solo(1, 1500, None)],
    ...                    [solo(i, None, 1500) for i in range(2, 7)],
    ...                    [solo(i, 1500, 1500) for i in range(7, 10)], DuelConfig())
    >>> len(bw), len(sc2)
    (5, 5)

    Notes: O(b log b) for b "both" players.
    """
    bw, sc2 = list(bw_only), list(sc2_only)
    pool = sorted(both, key=lambda p: p.bias)
    delta = len(bw) - len(sc2)
    if delta < 0:
        for _ in range(min(-delta, len(pool))):
            bw.append(pool.pop())
    elif delta > 0:
        for _ in range(min(delta, len(pool))):
            sc2.append(pool.pop(0))
    while pool:
        if len(bw) < len(sc2):
            bw.append(pool.pop())
        elif len(sc2) < len(bw):
            sc2.append(pool.pop(0))
        else:
            sc2.append(pool.pop(0))
            if pool:
                bw.append(pool.pop())
    _balance_means(bw, sc2, config)
    return bw, sc2


def _balance_means(bw: list[DuelPlayer], sc2: list[DuelPlayer], config: DuelConfig) -> None:
    if not bw or not sc2:
        return
    bw_mean = sum([p.bw_mmr or 0 for p in bw]) / len(bw)
    sc2_mean = sum([p.sc2_mmr or 0 for p in sc2]) / len(sc2)
    if abs(bw_mean - sc2_mean) <= config.mean_gap_limit:
        return
    stronger, weaker = (bw, sc2) if bw_mean > sc2_mean else (sc2, bw)
    movable = [p for p in stronger if p.is_both]
    if movable:
        neutral = min(movable, key=lambda p: abs(p.bias))
        # By identity: list.remove compares whole dataclasses (an equal player is the same).
        del stronger[next(k for k, p in enumerate(stronger) if p is neutral)]
        weaker.append(neutral)


def priority_filter(
    lead: list[DuelPlayer], follow: list[DuelPlayer]
) -> tuple[list[DuelPlayer], list[DuelPlayer]]:
    """Stage 4: keep only the longest-waiting players of the larger side (stable).

    The design's example: lead 1500/0 cycles against 1700/10 and 1550/0 keeps the veteran.

    >>> lead = [DuelPlayer("l", 1500, None, 0)]
    >>> follow = [DuelPlayer("a", None, 1550, 0), DuelPlayer("v", None, 1700, 10)]
    >>> [p.player_id for p in priority_filter(lead, follow)[1]]
    ['v']

    Notes: O(n log n).
    """
    if len(follow) == len(lead):
        return lead, follow
    return lead, sorted(follow, key=lambda p: p.wait_cycles, reverse=True)[: len(lead)]


def lead_side(players: Sequence[DuelPlayer], config: DuelConfig) -> str:
    """Stage 4's lead side: the smaller side after stages 1-2 (tie: BW).

    ``optimal`` under the ``lead`` window rule uses it too, so that every pair
    ``ladder-v2.1`` may form is legal for ``optimal`` (docs/adr/0013).

    >>> lead_side([DuelPlayer("a", 1500, None), DuelPlayer("b", 1500, 1500)], DuelConfig())
    'bw'

    Notes: O(n log n).
    """
    bw, sc2 = equalize(*partition(players), config)
    return BW if len(bw) <= len(sc2) else SC2


def ladder_pairs(
    players: Sequence[DuelPlayer],
    active_population: int,
    maps: tuple[str, ...],
    config: DuelConfig,
) -> LadderOutcome:
    """Run stages 1-6 of ``ladder-v2.1`` on the valid players of a wave.

    >>> players = [DuelPlayer("a", 1500, None), DuelPlayer("b", None, 1540, 2)]
    >>> outcome = ladder_pairs(players, 100, ("m",), DuelConfig())
    >>> [(p.bw.player_id, p.sc2.player_id, p.diff) for p in outcome.pairs]
    [('a', 'b', 40)]

    Notes: O(n^2 log n): every lead/follow pair is a scored candidate (stage 5).
    """
    bw, sc2 = equalize(*partition(players), config)
    wave_pressure = pressure(len(players), active_population, config)
    window = tier_window(wave_pressure, config)
    lead_side = BW if len(bw) <= len(sc2) else SC2
    lead, follow = priority_filter(*((bw, sc2) if lead_side == BW else (sc2, bw)))
    matches = _greedy(lead, follow, lead_side, window, maps, config)
    swaps = _refine(matches, lead_side, window, maps, config)
    pairs = tuple([DuelPair(a, b) if lead_side == BW else DuelPair(b, a) for a, b in matches])
    return LadderOutcome(pairs, swaps, lead_side, window, wave_pressure)


def _side_ratings(lead_side: str) -> tuple[attrgetter[int], attrgetter[int]]:
    """Getters of the lead and the follow player's played rating (no checks: hot loops)."""
    if lead_side == BW:
        return attrgetter("bw_mmr"), attrgetter("sc2_mmr")
    return attrgetter("sc2_mmr"), attrgetter("bw_mmr")


def _rating(player: DuelPlayer, side: str) -> int:
    value = player.bw_mmr if side == BW else player.sc2_mmr
    assert value is not None
    return value


def _fits(
    lead: DuelPlayer,
    follow: DuelPlayer,
    lead_side: str,
    window: Window,
    maps: tuple[str, ...],
    config: DuelConfig,
) -> bool:
    bw, sc2 = (lead, follow) if lead_side == BW else (follow, lead)
    diff = abs(_rating(bw, BW) - _rating(sc2, SC2))
    if diff > window.max_diff(pair_wait(config.window_rule, bw, sc2, lead_side)):
        return False
    return _playable(lead, follow, maps)


def _playable(a: DuelPlayer, b: DuelPlayer, maps: tuple[str, ...]) -> bool:
    if not a.vetoed_maps and not b.vetoed_maps:
        return bool(maps)
    return any(m not in a.vetoed_maps and m not in b.vetoed_maps for m in maps)


def _greedy(
    lead: list[DuelPlayer],
    follow: list[DuelPlayer],
    lead_side: str,
    window: Window,
    maps: tuple[str, ...],
    config: DuelConfig,
) -> list[list[DuelPlayer]]:
    """Stage 5: score every pair inside its window, take the best greedily.

    Same candidates and order as :func:`_fits` over every (lead, follow) pair
    (tests/duel/test_ladder_greedy.py), but only the follow players within reach of
    each lead rating are visited: they are sorted by rating, and a pair's window is at
    most the wider of the lead's and the widest follow window. This double loop is the
    design's hot spot.

    Notes: O(n log n + c log c) for c candidates; O(n^2 log n) when every pair is in reach.
    """
    lead_rating, follow_rating = _side_ratings(lead_side)
    bonus, base, growth, rule = config.wait_bonus, window.base, window.growth, config.window_rule
    free_maps = _FreeMaps(maps)
    everything = free_maps.everything
    rows = sorted(
        [
            (
                follow_rating(f),
                j,
                f.wait_cycles,
                free_maps(f.vetoed_maps) if f.vetoed_maps else everything,
                base + f.wait_cycles * growth,
            )
            for j, f in enumerate(follow)
        ]
    )
    follow_ratings = [row[0] for row in rows]
    # pair_wait: "lead" widens by the lead player's wait, whichever side leads; as growth
    # is >= 0, widening by the longer (shorter) wait is the larger (smaller) window. The
    # follow players visited are those within the lead's window ("longer": within the
    # widest window if that is wider), so only what lies beyond that is checked per pair.
    longer, shorter = rule == "longer", rule == "shorter"
    widest = max([row[4] for row in rows], default=0) if longer else 0
    candidates: list[tuple[int, int, int]] = []
    for i, a in enumerate(lead):
        rating, wait = lead_rating(a), a.wait_cycles
        free = free_maps(a.vetoed_maps) if a.vetoed_maps else everything
        limit = base + wait * growth
        reach = widest if longer and widest > limit else limit
        low = bisect_left(follow_ratings, rating - reach)
        for own, j, other_wait, other_free, other_limit in rows[
            low : bisect_right(follow_ratings, rating + reach, low)
        ]:
            diff = rating - own
            apart = diff if diff >= 0 else -diff
            if longer:
                inside = apart <= limit or apart <= other_limit
            else:
                inside = not shorter or apart <= other_limit
            if inside and free & other_free:
                candidates.append((diff * diff - bonus * (wait + other_wait), i, j))
    # (score, i, j) tuples are unique, so sorting them equals the design's stable sort on
    # the score of candidates appended in (i, j) order.
    candidates.sort()
    used_lead: set[int] = set()
    used_follow: set[int] = set()
    matches: list[list[DuelPlayer]] = []
    for _, i, j in candidates:
        if i not in used_lead and j not in used_follow:
            used_lead.add(i)
            used_follow.add(j)
            matches.append([lead[i], follow[j]])
    return matches


class _FreeMaps:
    """``vetoed maps -> int``: bit ``k`` set when they do not hold ``maps[k]``
    (``_playable`` as bits)."""

    def __init__(self, maps: tuple[str, ...]) -> None:
        self.everything = (1 << len(maps)) - 1
        self.bits: dict[str, int] = {}
        for k, name in enumerate(maps):
            self.bits[name] = self.bits.get(name, 0) | 1 << k

    def __call__(self, vetoed_maps: Sequence[str]) -> int:
        vetoed = 0
        for name in vetoed_maps:
            vetoed |= self.bits.get(name, 0)
        return self.everything & ~vetoed


def _refine(
    matches: list[list[DuelPlayer]],
    lead_side: str,
    window: Window,
    maps: tuple[str, ...],
    config: DuelConfig,
) -> int:
    """Stage 6: adjacent follow swaps that lower the summed squared diff; returns the count."""
    lead_rating, follow_rating = _side_ratings(lead_side)
    swaps = 0
    for _ in range(config.refinement_passes):
        made = 0
        for first, second in pairwise(matches):
            (a, b), (c, d) = first, second
            ra, rb, rc, rd = lead_rating(a), follow_rating(b), lead_rating(c), follow_rating(d)
            if (ra - rd) ** 2 + (rc - rb) ** 2 >= (ra - rb) ** 2 + (rc - rd) ** 2:
                continue
            if _fits(a, d, lead_side, window, maps, config) and _fits(
                c, b, lead_side, window, maps, config
            ):
                first[1], second[1] = d, b
                made += 1
        swaps += made
        if not made:
            break
    return swaps
