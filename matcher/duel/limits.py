"""A 1v1 queue's rules (matcher/rules) as a hard filter on the pair graph of ``optimal``.

A pair is legal only when it respects ``max_distance`` and ``max_latency_ms`` at the
limit of its oldest ticket, or its newest by the rule's ``expansion_age`` (limits only
grow with the wait, so that is the higher or the lower of the two players' limits,
docs/adr/0175), the two agree on every attribute rule not yet relaxed for it, and they
did not meet too recently (``rematch``), and the queue's named ``checks`` allow the two
(:mod:`matcher.duel.pair_checks`). The same
predicate as the live rules check (matcher/rules/check.py), on arrays: one mask per edge
batch, so a 10,000-player wave pays a few vector operations.

A queue that declares ``max_distance`` states its skill limit in seconds waited, so that
limit replaces the pressure tiers' per-wave windows (:func:`window_radius`); without it
the windows apply as they always did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from matcher.core import Player, WaveSnapshot
from matcher.duel.model import DuelPlayer
from matcher.duel.pair_checks import PairChecks, pair_checks
from matcher.duel.sort_cost import SortCost, sort_cost
from matcher.rules.check import EPSILON, met_recently
from matcher.ruleset import AttributeRule, Expansion, QueueRuleSet

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
Bools = NDArray[np.bool_]
Words = NDArray[np.uint64]


@dataclass(frozen=True)
class AttributeCodes:
    """One attribute rule over the wave's players: ``equal`` as a code per player (-1:
    no value), ``intersect`` as a bit set per player over the wave's distinct elements
    (all zero: no value); ``relax_after_s`` as the rule's (inf: never relaxed)."""

    codes: Ints | None
    sets: Words | None
    relax_after_s: float
    #: The rule's ``expansion_age`` is ``oldest``: the longer wait of a pair relaxes it.
    oldest: bool = True

    def agree(self, u: Ints, v: Ints) -> Bools:
        if self.codes is not None:
            cu, cv = self.codes[u], self.codes[v]
            equal: Bools = (cu < 0) | (cv < 0) | (cu == cv)
            return equal
        assert self.sets is not None
        su, sv = self.sets[u], self.sets[v]
        shared = np.logical_or(~su.any(axis=1), ~sv.any(axis=1))
        shared |= (su & sv).any(axis=1)
        return np.asarray(shared, dtype=np.bool_)

    def subset(self, players: Ints) -> AttributeCodes:
        codes = None if self.codes is None else self.codes[players]
        sets = None if self.sets is None else self.sets[players]
        return AttributeCodes(codes, sets, self.relax_after_s, self.oldest)


@dataclass(frozen=True)
class DuelLimits:
    """Per player: the ``max_distance`` and ``max_latency_ms`` reached (inf: no such rule),
    the latency to the wave's region (0: unknown, not held to the limit), and the wave's
    recent meetings as sorted ``low * n + high`` keys of player numbers (``number``: each
    player's number in the whole wave, kept by :meth:`subset`). ``distance_oldest`` and
    ``latency_oldest``: the rule's ``expansion_age`` is ``oldest``, so a pair's limit is
    the higher of its two players' (else the lower)."""

    distance: Floats
    latency: Floats
    latency_limit: Floats
    number: Ints
    met: Ints
    wave_size: int
    replaces_window: bool = False
    attributes: tuple[AttributeCodes, ...] = ()
    waited: Floats | None = None
    distance_oldest: bool = True
    latency_oldest: bool = True
    #: The queue's named ``checks`` on the pair (None: the queue has none).
    checks: PairChecks | None = None
    #: The queue's soft ``sort``: not a limit but a term of the pair's score, kept here
    #: so that every tier, subset and checker that reads the rules reads it too.
    sort: SortCost | None = None
    #: ``met``'s filter (:func:`met_filter`): built from ``met`` when not given, and
    #: given by :meth:`subset`, which keeps the wave's meetings.
    met_filter: Bools | None = None

    def __post_init__(self) -> None:
        if self.met_filter is None:
            object.__setattr__(self, "met_filter", met_filter(self.met))

    def allowed(self, u: Ints, v: Ints, diff: Ints) -> Bools:
        """Mask of the pairs ``(u[i], v[i])`` at rating distance ``diff[i]`` the rules allow.

        Notes: O(len(u) log meetings).
        """
        ok: Bools = diff <= _pair(self.distance_oldest, self.distance[u], self.distance[v])
        worst = np.maximum(self.latency[u], self.latency[v])
        ok &= worst <= _pair(self.latency_oldest, self.latency_limit[u], self.latency_limit[v])
        if not len(self.met) and not self.attributes and self.checks is None:
            return ok
        # The meetings' binary search and the attributes only on the pairs still allowed:
        # on a wave with latency limits most searched pairs fail the two tests above.
        at = np.flatnonzero(ok)
        u, v = u[at], v[at]
        kept = np.ones(len(at), dtype=np.bool_)
        if len(self.met):
            a, b = self.number[u], self.number[v]
            keys = np.minimum(a, b) * self.wave_size + np.maximum(a, b)
            slots = self.met_filter
            assert slots is not None  # built in __post_init__
            # Searched only where the filter may hold them.
            maybe = np.flatnonzero(slots[keys & (len(slots) - 1)])
            found = np.clip(np.searchsorted(self.met, keys[maybe]), 0, len(self.met) - 1)
            kept[maybe] = self.met[found] != keys[maybe]
        for rule in self.attributes:
            agree = rule.agree(u, v)
            if self.waited is not None and rule.relax_after_s != np.inf:
                pair = np.maximum if rule.oldest else np.minimum
                agree |= pair(self.waited[u], self.waited[v]) >= rule.relax_after_s
            kept &= agree
        if self.checks is not None:
            kept &= self.checks.allowed(u, v)
        ok[at] = kept
        return ok

    def refuses_by_traits(self) -> bool:
        """Whether a rule refuses pairs by the players' traits whatever their ratings (a
        latency above the lowest limit, attributes, named checks): whole classes of
        players may then play only few others, far off in rating order, which the large
        tier's candidate graph and completion steps follow. Players above every limit
        they could reach play nobody (:meth:`playable`): they refuse no pair among the
        others."""
        if self.attributes or self.checks is not None:
            return True
        playable = self.playable()
        if not playable.any():
            return False
        latency, limit = self.latency[playable], self.latency_limit[playable]
        return float(latency.max()) > float(limit.min()) + EPSILON

    @property
    def distance_age(self) -> str:
        """Whose wait the pair's ``max_distance`` follows, in words."""
        return "oldest" if self.distance_oldest else "newest (least waited)"

    def playable(self) -> Bools:
        """Mask of the players some pair may include: a pair's latency limit is at most the
        higher of its two players' (the lower, for ``newest``), so a player above the
        wave's highest limit (its own) plays nobody."""
        limit = self.latency_limit
        if self.latency_oldest and len(limit):
            limit = np.maximum(limit, limit.max())
        ok: Bools = self.latency <= limit + EPSILON
        return ok

    def allowed_table(self, members: Ints, diff: Ints) -> Bools:
        """``[a, b]``: may ``members[a]`` play ``members[b]`` at distance ``diff[a, b]``?"""
        size = len(members)
        u = np.repeat(members, size)
        v = np.tile(members, size)
        table: Bools = self.allowed(u, v, diff.ravel()).reshape(size, size)
        return table

    def subset(self, players: Ints) -> DuelLimits:
        return DuelLimits(
            self.distance[players],
            self.latency[players],
            self.latency_limit[players],
            self.number[players],
            self.met,
            self.wave_size,
            self.replaces_window,
            tuple(rule.subset(players) for rule in self.attributes),
            None if self.waited is None else self.waited[players],
            self.distance_oldest,
            self.latency_oldest,
            None if self.checks is None else self.checks.subset(players),
            None if self.sort is None else self.sort.subset(players),
            self.met_filter,
        )

    def window_radius(self, ratings: Ints) -> Ints:
        """Each player's ``max_distance`` as the pair window's radius, bounded by the
        wave's rating span (so the one-more-pair weight of the large tier stays small)."""
        rated = ratings[ratings >= 0]
        span = float(rated.max() - rated.min()) if len(rated) else 0.0
        radius: Ints = np.floor(np.minimum(self.distance, span)).astype(np.int64)
        return radius


def duel_limits(
    players: Sequence[DuelPlayer], snapshot: WaveSnapshot, rules: QueueRuleSet
) -> DuelLimits | None:
    """The limits of a wave's duel players under ``rules`` (and its ``sort`` term); None
    when no rule limits or prices a pair.

    >>> from matcher.core import Player, Ticket, WaitingTicket
    >>> from matcher.rules import parse_rules
    >>> tickets = tuple(WaitingTicket(Ticket(t, "q", "eu", (Player(t, (("mmr", 1),)),), 0), 0)
    ...                 for t in ("a", "b"))
    >>> snapshot = WaveSnapshot("q", "eu", "w", 1, 7, 10_000, tickets)
    >>> players = [DuelPlayer(t, 1500, 1500, ticket_id=t) for t in ("a", "b")]
    >>> rules = parse_rules({"max_distance": {"base": 50, "growth_per_s": 10, "cap": 200}})
    >>> duel_limits(players, snapshot, rules).distance.tolist()
    [150.0, 150.0]

    Notes: O(n + meetings log meetings).
    """
    if (
        rules.max_distance is None
        and rules.max_latency_ms is None
        and rules.rematch is None
        and not rules.block_lists
        and not rules.attributes
        and not rules.checks
        and not rules.sort
    ):
        return None
    waiting = {w.ticket.ticket_id: w.ticket for w in snapshot.tickets}
    tickets = [waiting[p.ticket_id] for p in players]
    # One vector operation, not a call per ticket: the arithmetic of rules.check.waited_s.
    joined = np.array([t.joined_at_ms for t in tickets], dtype=np.int64)
    waited = np.maximum(0.0, (snapshot.closed_at_ms - joined) / 1000.0)
    firsts = [t.players[0] for t in tickets]
    latency = np.array([p.latency_to(snapshot.region) or 0 for p in firsts], dtype=np.float64)
    index = {p.player_id: i for i, p in enumerate(players)}
    return DuelLimits(
        distance=_reached(rules.max_distance, waited),
        latency=latency,
        latency_limit=_reached(rules.max_latency_ms, waited),
        number=np.arange(len(players), dtype=np.int64),
        met=_met_keys(met_recently(snapshot, rules), index),
        wave_size=max(len(players), 1),
        replaces_window=rules.max_distance is not None,
        attributes=tuple(_attribute_codes(rule, firsts) for rule in rules.attributes),
        waited=waited,
        distance_oldest=_oldest(rules.max_distance),
        latency_oldest=_oldest(rules.max_latency_ms),
        checks=pair_checks(rules.checks, firsts, snapshot.region, waited) if rules.checks else None,
        sort=sort_cost(rules.sort, firsts) if rules.sort else None,
    )


def _oldest(limit: Expansion | None) -> bool:
    return limit is not None and limit.expansion_age == "oldest"


def _pair(oldest: bool, mine: Floats, theirs: Floats) -> Floats:
    """A pair's limit from its two players' (plus the float slack of the rules check)."""
    limit: Floats = (np.maximum if oldest else np.minimum)(mine, theirs) + EPSILON
    return limit


def _attribute_codes(rule: AttributeRule, players: Sequence[Player]) -> AttributeCodes:
    values = [p.attribute(rule.name) or rule.missing for p in players]
    relax = np.inf if rule.relax_after_s is None else rule.relax_after_s
    oldest = rule.expansion_age == "oldest"
    if rule.match == "equal":
        index: dict[str, int] = {}
        codes = [-1 if value is None else index.setdefault(value, len(index)) for value in values]
        return AttributeCodes(np.array(codes, dtype=np.int64), None, relax, oldest)
    # The same sets as AttributeRule.problem reads: comma-separated, stripped.
    sets = [() if v is None else tuple({part.strip() for part in v.split(",")}) for v in values]
    bit: dict[str, int] = {}
    for elements in sets:
        for element in elements:
            bit.setdefault(element, len(bit))
    words = np.zeros((len(sets), max(1, (len(bit) + 63) // 64)), dtype=np.uint64)
    for row, elements in enumerate(sets):
        for element in elements:
            words[row, bit[element] // 64] |= np.uint64(1 << (bit[element] % 64))
    return AttributeCodes(None, words, relax, oldest)


def _reached(limit: Expansion | None, waited: Floats) -> Floats:
    if limit is None:
        return np.full(len(waited), np.inf)
    # A wave's tickets share a few distinct waits (joins cluster between ticks).
    distinct, where = np.unique(waited, return_inverse=True)
    values = np.array([limit.at(float(w)) for w in distinct], dtype=np.float64)
    reached: Floats = values[where]
    return reached


def _met_keys(met: Mapping[str, frozenset[str]], index: Mapping[str, int]) -> Ints:
    n = max(len(index), 1)
    # Read from the players indexed (the checker indexes only the unmatched ones), and
    # each key computed in one vector operation rather than a min and a max per pair.
    mine: list[int] = []
    theirs: list[int] = []
    find = index.get
    for player_id, a in index.items():
        others = met.get(player_id)
        if others:
            for other in others:
                b = find(other)
                if b is not None:
                    mine.append(a)
                    theirs.append(b)
    a_side, b_side = np.array(mine, dtype=np.int64), np.array(theirs, dtype=np.int64)
    keys: Ints = np.unique(np.minimum(a_side, b_side) * n + np.maximum(a_side, b_side))
    return keys


def met_filter(met: Ints) -> Bools:
    """A filter of the meetings' keys: ``filter[key & (len - 1)]`` is False for every key
    not in ``met`` but about one in 32 others. A legality test reads millions of
    candidate pairs, nearly none of them a meeting, and a look-up in it costs far less
    than a binary search of ``met``.

    >>> found = met_filter(np.arange(0, 4096, 2, dtype=np.int64))
    >>> bool(found[3 & (len(found) - 1)]), bool(found[4 & (len(found) - 1)])
    (False, True)

    Notes: O(len(met)) time, 32 to 64 bytes per key.
    """
    size = 1 << max(32 * len(met) - 1, 1).bit_length()
    found: Bools = np.zeros(size, dtype=np.bool_)
    found[met & (size - 1)] = True
    return found
