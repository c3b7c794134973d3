"""Running totals of a group under a queue's rules, so that the grouping's ``fits`` tests
one more party in O(party + rules) instead of re-judging the whole group.

A group's :class:`Totals` hold what the rules that no split can mend read of it: its
newest and oldest join, rating span, highest known latency, each attribute rule's
values, each leaf of a monotone named rule (counts, spans, value sets), each per-team
count bound's count and, with rematch or block lists, who is in it and whom they may not
meet. Each rule reads the wait it reads in ``group_problem``.
Merging two totals is the totals of the two groups together; :func:`passes` gives the
same verdict as ``group_problem`` followed by ``within`` (matcher/teams/ruled.py) and
counts a refusing named rule in the wave's tally as ``group_problem`` does.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from matcher.core import Player
from matcher.rulelogic import Check, carries, elements
from matcher.rules.check import EPSILON
from matcher.ruleset import QueueRuleSet, Waits
from matcher.teams.grouping import Need
from matcher.teams.model import Party

#: Leaf kinds :func:`compile_rules` can total; a monotone rule with another leaf kind
#: (none today) makes it answer None, and the caller re-judges whole groups instead.
_LEAVES = ("latency", "number", "count", "equal", "unique", "intersect")


@dataclass(frozen=True, slots=True)
class Plan:
    """A queue's rules as the totals read them: each monotone rule's verdict and needs
    over its leaves (numbered in order), how each leaf is totalled, and the per-team
    count bounds of ``team_bounds``."""

    rules: QueueRuleSet
    #: Per monotone rule: its verdict on leaf totals (:func:`_test`), with its rule.
    tests: tuple[tuple[Check, Test], ...]
    #: Per monotone rule: what it needs of a party joining a group (:func:`_pins`).
    pins: tuple[Pins, ...]
    bounds: tuple[Check, ...]
    #: Per leaf: its total of one party's players (:func:`_reader`) and the merge of two.
    readers: tuple[Reader, ...]
    merges: tuple[Callable[[Any, Any], Any], ...]
    #: Per attribute rule: the merge of two groups' values.
    attribute_merges: tuple[Callable[[Any, Any], Any], ...]
    split_free_ratings: bool
    met: Mapping[str, frozenset[str]]
    region: str
    closed_at_ms: int
    match_size: int
    #: :func:`_limits` per join time, filled as the grouping asks.
    limits: dict[tuple[int, int], tuple[float | None, float | None, Waits]] = field(
        default_factory=dict, compare=False, repr=False
    )


class Totals(NamedTuple):
    """A group's totals; a tuple, as the grouping builds one for every party it grows a
    group by."""

    size: int
    joined_ms: int
    first_ms: int
    ratings: tuple[float, float] | None
    latency: int | None
    attributes: tuple[Any, ...]
    leaves: tuple[Any, ...]
    counts: tuple[int, ...]
    ids: frozenset[str]
    avoid: frozenset[str]


def compile_rules(
    rules: QueueRuleSet,
    bounds: tuple[Check, ...],
    *,
    split_free_ratings: bool,
    met: Mapping[str, frozenset[str]],
    region: str,
    closed_at_ms: int,
    match_size: int,
) -> Plan | None:
    """The plan for ``rules``; None when a monotone rule has a leaf it cannot total."""
    leaves: list[Check] = []

    def tree(check: Check) -> Any:
        if check.kind in ("all", "any"):
            return tuple(tree(rule) for rule in check.rules)
        if check.kind not in _LEAVES:
            raise LookupError(check.kind)
        leaves.append(check)
        return len(leaves) - 1

    try:
        trees = tuple((check, tree(check)) for check in rules.monotone_checks)
    except LookupError:
        return None
    return Plan(
        rules,
        tuple((check, _test(check, shape)) for check, shape in trees),
        tuple(_pins(check, shape, region) for check, shape in trees),
        bounds,
        tuple(_reader(check) for check in leaves),
        tuple(_MERGES[check.kind] for check in leaves),
        tuple(operator.or_ if rule.match == "equal" else _and for rule in rules.attributes),
        split_free_ratings,
        met,
        region,
        closed_at_ms,
        match_size,
    )


def party_totals(plan: Plan, party: Party) -> Totals:
    """The totals of a group of ``party`` alone. Notes: O(players x rules)."""
    players = party.players
    region = plan.region
    known = [ms for p in players if (ms := p.latency_to(region)) is not None]
    ratings = party.ratings if plan.split_free_ratings else ()
    attributes: list[frozenset[str] | None] = []
    for rule in plan.rules.attributes:
        values = [p.attribute(rule.name) for p in players]
        if rule.missing is not None:
            values = [rule.missing if v is None else v for v in values]
        given = [v for v in values if v is not None]
        if rule.match == "equal":
            attributes.append(frozenset(given))
        else:
            attributes.append(_meet([frozenset(elements(v)) for v in given]))
    if plan.met:
        ids = frozenset(p.player_id for p in players)
        avoid = frozenset().union(*(plan.met.get(i, frozenset()) for i in ids))
    else:
        ids = avoid = frozenset()
    return Totals(
        len(players),
        party.joined_at_ms,
        party.joined_at_ms,
        (min(ratings), max(ratings)) if ratings else None,
        max(known) if known else None,
        tuple(attributes),
        tuple([read(players, known) for read in plan.readers]),
        tuple([count_carriers(check, players) for check in plan.bounds]),
        ids,
        avoid,
    )


def merged(plan: Plan, a: Totals, b: Totals) -> Totals:
    """The totals of the groups of ``a`` and ``b`` together. Notes: O(rules + met)."""
    call = operator.call
    return Totals(
        a.size + b.size,
        a.joined_ms if a.joined_ms >= b.joined_ms else b.joined_ms,
        a.first_ms if a.first_ms <= b.first_ms else b.first_ms,
        _span(a.ratings, b.ratings),
        _latest(a.latency, b.latency),
        tuple(map(call, plan.attribute_merges, a.attributes, b.attributes)),
        tuple(map(call, plan.merges, a.leaves, b.leaves)),
        tuple(map(operator.add, a.counts, b.counts)),
        (a.ids | b.ids) if plan.met else a.ids,
        (a.avoid | b.avoid) if plan.met else a.avoid,
    )


def passes(plan: Plan, a: Totals, b: Totals | None = None) -> bool:
    """Whether the group of ``a`` (with the group of ``b`` when given) breaks no rule that
    no split can mend and can still meet every count bound with the room left: the verdict
    of ``group_problem`` then ``within``. ``b`` is merged only as far as the verdict reads
    it (the grouping refuses most candidates on their first broken rule)."""
    rules = plan.rules
    joined = a.joined_ms if b is None or a.joined_ms >= b.joined_ms else b.joined_ms
    first = a.first_ms if b is None or a.first_ms <= b.first_ms else b.first_ms
    found = plan.limits.get((joined, first))
    spread_limit, latency_limit, waits = found or _limits(plan, joined, first)
    if spread_limit is not None:
        span = a.ratings if b is None else _span(a.ratings, b.ratings)
        if span is not None and span[1] - span[0] > spread_limit:
            return False
    if latency_limit is not None:
        latency = a.latency if b is None else _latest(a.latency, b.latency)
        if latency is not None and latency > latency_limit:
            return False
    for index, rule in enumerate(rules.attributes):
        if rule.relax_after_s is not None and waits.of(rule.expansion_age) >= rule.relax_after_s:
            continue
        state = a.attributes[index]
        if rule.match == "equal":
            if b is None:
                if len(state) > 1:
                    return False
            else:  # the union holds at most one value
                other = b.attributes[index]
                if len(state) > 1 or len(other) > 1 or (state and other and state != other):
                    return False
        else:
            if b is not None:
                state = _and(state, b.attributes[index])
            if state is not None and not state:
                return False
    leaves_b = None if b is None else b.leaves
    for check, test in plan.tests:
        if not test(a.leaves, leaves_b, waits.newest):
            if rules.tally is not None:
                rules.tally.count(check.name, False)
            return False
    if plan.met:
        ids, avoid = (a.ids, a.avoid) if b is None else (a.ids | b.ids, a.avoid | b.avoid)
        if avoid & ids:
            return False
    room = plan.match_size - a.size - (0 if b is None else b.size)
    for index, check in enumerate(plan.bounds):
        if check.optional_after_s is not None and waits.newest >= check.optional_after_s:
            continue
        count = a.counts[index] + (0 if b is None else b.counts[index])
        if count > check.high or check.low - count > room:
            return False
    return True


def needs(plan: Plan, a: Totals) -> tuple[Need, ...]:
    """What every party joining the group of ``a`` must be for :func:`passes` to take it:
    what its monotone rules need where they can now hold only one way (:func:`_pins`),
    and the value a per-team count bound still lacks when the room left is all for it.
    A party joining makes the group's newest wait no longer, so a rule optional for the
    group alone is the only one that may become binding, never the reverse: what the
    rules need of a group stays needed as it grows. Notes: O(rules)."""
    waited = _limits(plan, a.joined_ms, a.first_ms)[2].newest
    found = [need for pins in plan.pins for need in pins(a.leaves, waited)]
    room = plan.match_size - a.size
    for index, check in enumerate(plan.bounds):
        if check.optional_after_s is not None and waited >= check.optional_after_s:
            continue
        if room > 0 and check.low - a.counts[index] >= room:
            # A party of k players with fewer than k carriers leaves more missing than room.
            found.append(Need("carries", check.attribute, check.value))
    return tuple(dict.fromkeys(found))


def _limits(plan: Plan, joined_ms: int, first_ms: int) -> tuple[float | None, float | None, Waits]:
    """The spread and latency limits (with their slack) and the waits of a group whose
    newest ticket joined at ``joined_ms`` and oldest at ``first_ms``; kept per pair of
    join times, which the grouping sees again and again."""
    found = plan.limits.get((joined_ms, first_ms))
    if found is None:
        rules = plan.rules
        closed = plan.closed_at_ms  # as waits_of(closed, (joined_ms, first_ms)), without lists
        waits = Waits(
            max(0.0, (closed - joined_ms) / 1000.0), max(0.0, (closed - first_ms) / 1000.0)
        )
        spread, latency = rules.max_spread, rules.max_latency_ms
        found = plan.limits[joined_ms, first_ms] = (
            None if spread is None else spread.reached(waits) + EPSILON,
            None if latency is None else latency.reached(waits) + EPSILON,
            waits,
        )
    return found


#: A rule's verdict on a group's leaf totals (with another group's, when given) after
#: the group's newest ticket waited the given seconds.
Test = Callable[[tuple[Any, ...], "tuple[Any, ...] | None", float], bool]


def _test(check: Check, tree: Any) -> Test:
    """The verdict of ``check`` (its leaves numbered as ``tree``) built once per plan: the
    grouping asks it for nearly every candidate, so the tree is not walked again, and
    ``all``/``any`` stop at their first deciding rule (the verdicts have no side effect)."""
    optional = check.optional_after_s
    if isinstance(tree, tuple):
        tests = tuple(_test(rule, sub) for rule, sub in zip(check.rules, tree, strict=True))
        wanted = check.kind == "any"

        def combined(a: tuple[Any, ...], b: tuple[Any, ...] | None, waited: float) -> bool:
            if optional is not None and waited >= optional:
                return True
            for test in tests:
                if test(a, b, waited) is wanted:
                    return wanted
            return not wanted

        return combined
    return _leaf_test(check, tree)


#: What a rule needs of a party joining a group, from the group's leaf totals and its
#: newest wait (:func:`needs`).
Pins = Callable[[tuple[Any, ...], float], tuple[Need, ...]]


def _pins(check: Check, tree: Any, region: str) -> Pins:
    """What ``check`` (its leaves numbered as ``tree``) needs of a joining party: an
    ``equal`` leaf the group gives one value of needs that value, a ``latency`` leaf a
    latency within its limit; ``all`` needs what each of its rules needs; ``any`` what its
    one rule still holding on the group needs (its other rules are monotone and broken, so
    they stay broken). Other leaves need nothing that a :class:`Need` can say."""
    optional = check.optional_after_s
    if isinstance(tree, tuple):
        branches = zip(check.rules, tree, strict=True)
        subs = tuple((_test(rule, sub), _pins(rule, sub, region)) for rule, sub in branches)
        every = check.kind == "all"

        def compound(leaves: tuple[Any, ...], waited: float) -> tuple[Need, ...]:
            if optional is not None and waited >= optional:
                return ()
            if every:
                return tuple(need for _, pins in subs for need in pins(leaves, waited))
            holding = [pins for test, pins in subs if test(leaves, None, waited)]
            return holding[0](leaves, waited) if len(holding) == 1 else ()

        return compound
    if check.kind == "latency":
        near = (Need("latency", region, check.high + EPSILON),)
        return lambda leaves, waited: () if optional is not None and waited >= optional else near
    if check.kind != "equal":
        return lambda leaves, waited: ()
    index, attribute = tree, check.attribute

    def equal(leaves: tuple[Any, ...], waited: float) -> tuple[Need, ...]:
        if optional is not None and waited >= optional:
            return ()
        state = leaves[index]
        return (Need("only", attribute, next(iter(state))),) if len(state) == 1 else ()

    return equal


def _leaf_test(check: Check, index: int) -> Test:
    """The verdict of leaf ``check``, totalled at ``index`` of the leaf totals, on one
    group or on two merged: one call per leaf for the grouping's nearly every candidate,
    which it refuses mostly on a leaf the candidate alone breaks, so the merged total is
    built only as far as the verdict reads it."""
    kind, low, high, spread = check.kind, check.low, check.high, check.max_spread
    optional = check.optional_after_s
    if kind == "latency":
        limit = high + EPSILON

        def latency(a: tuple[Any, ...], b: tuple[Any, ...] | None, waited: float) -> bool:
            if optional is not None and waited >= optional:
                return True
            x = a[index]
            if x is not None and x > limit:
                return False
            y = None if b is None else b[index]
            return y is None or y <= limit

        return latency
    if kind == "number":

        def number(a: tuple[Any, ...], b: tuple[Any, ...] | None, waited: float) -> bool:
            if optional is not None and waited >= optional:
                return True
            state = a[index] if b is None else _span(a[index], b[index])
            if state is None:
                return True
            least, most = state
            if least < low - EPSILON or most > high + EPSILON:
                return False
            return spread is None or most - least <= spread + EPSILON

        return number
    if kind == "count":

        def count(a: tuple[Any, ...], b: tuple[Any, ...] | None, waited: float) -> bool:
            if optional is not None and waited >= optional:
                return True
            total = a[index] if b is None else a[index] + b[index]
            return bool(low <= total <= high)

        return count
    if kind == "equal":

        def equal(a: tuple[Any, ...], b: tuple[Any, ...] | None, waited: float) -> bool:
            if optional is not None and waited >= optional:
                return True
            x = a[index]
            if len(x) > 1:
                return False
            if b is None:
                return True
            y = b[index]  # the union holds at most one value
            return len(y) <= 1 and (not x or not y or x == y)

        return equal
    merge = _MERGES[kind]
    if kind == "unique":

        def unique(a: tuple[Any, ...], b: tuple[Any, ...] | None, waited: float) -> bool:
            if optional is not None and waited >= optional:
                return True
            state = a[index] if b is None else merge(a[index], b[index])
            return not state[1]

        return unique

    def intersect(a: tuple[Any, ...], b: tuple[Any, ...] | None, waited: float) -> bool:
        if optional is not None and waited >= optional:
            return True
        state = a[index] if b is None else merge(a[index], b[index])
        return state is None or bool(state)

    return intersect


#: A leaf's total of one party: from its players and their known latencies.
Reader = Callable[[Sequence[Player], Sequence[int]], Any]


def _reader(check: Check) -> Reader:
    """The total of leaf ``check`` over a party's players, built once per plan."""
    kind, attribute = check.kind, check.attribute
    if kind == "latency":
        return lambda players, known: max(known) if known else None
    if kind == "number":

        def number(players: Sequence[Player], known: Sequence[int]) -> Any:
            return number_range(players, attribute)

        return number
    if kind == "count":
        return lambda players, known: count_carriers(check, players)

    def given(players: Sequence[Player]) -> list[str]:
        values = []  # a plain loop, for number_range's reason
        for player in players:
            value = player.attribute(attribute)
            if value is not None:
                values.append(value)
        return values

    if kind == "equal":
        return lambda players, known: frozenset(given(players))
    if kind == "unique":

        def unique(players: Sequence[Player], known: Sequence[int]) -> Any:
            values = given(players)
            return frozenset(values), len(set(values)) != len(values)

        return unique
    return lambda players, known: _meet([elements(v) for v in given(players)])


def number_range(players: Sequence[Player], name: str) -> tuple[float, float] | None:
    """The least and the most value of numeric attribute ``name`` among ``players``; None
    when none gives it. A plain loop: it is read of every party of a wave, most of one
    player, where a comprehension and ``min``/``max`` cost more than the comparisons."""
    least: float | None = None
    most: float | None = None
    for player in players:
        value = player.number(name)
        if value is None:
            continue
        if least is None or value < least:
            least = value
        if most is None or value > most:
            most = value
    return None if least is None or most is None else (least, most)


def _latest(x: int | None, y: int | None) -> int | None:
    """The higher of two latencies, either unknown (None)."""
    return y if x is None else x if y is None or x >= y else y


def _unite(x: tuple[frozenset[str], bool], y: tuple[frozenset[str], bool]) -> Any:
    return x[0] | y[0], x[1] or y[1] or bool(x[0] & y[0])


def count_carriers(check: Check, players: Sequence[Any]) -> int:
    """How many of ``players`` carry what count rule ``check`` counts."""
    count = 0
    for player in players:
        value = player.attribute(check.attribute)
        if value is not None and carries(value, check.value):
            count += 1
    return count


def _meet(sets: Sequence[frozenset[str]]) -> frozenset[str] | None:
    """The elements every set holds; None for no sets (nothing to agree on yet)."""
    return frozenset.intersection(*sets) if sets else None


def _and(x: frozenset[str] | None, y: frozenset[str] | None) -> frozenset[str] | None:
    return y if x is None else x if y is None else x & y


def _span(
    x: tuple[float, float] | None, y: tuple[float, float] | None
) -> tuple[float, float] | None:
    if x is None or y is None:
        return y if x is None else x
    return (x[0] if x[0] <= y[0] else y[0]), (x[1] if x[1] >= y[1] else y[1])


#: Per leaf kind: the leaf total of two groups together.
_MERGES: dict[str, Callable[[Any, Any], Any]] = {
    "latency": _latest,
    "number": _span,
    "count": operator.add,
    "equal": operator.or_,
    "unique": _unite,
    "intersect": _and,
}
