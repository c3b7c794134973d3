"""A queue's named ``checks`` (matcher/rulelogic.py) as a vector predicate on 1v1 pairs.

In a 1v1 each team is one player, so a check reads two players: each rule kind reduces to
a test on two per-player columns (a code per string value, a bit set per ``intersect``
value, a number, a latency), and ``all`` / ``any`` / ``not`` to the masks' logic. A rule
turns optional by the pair's least waited player's wait (ADR 0150), as
:meth:`matcher.rulelogic.Check.problem` reads it on the lineup ``[[u], [v]]``; that
method stays the definition, and the oracle tests hold this one to it.

The columns are built once per wave (O(players x rules)); a batch of pairs then costs a
few vector operations per rule, so ``optimal``'s legality stays vectorised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from matcher.core import Player
from matcher.rulelogic import Check, carries, elements

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
Bools = NDArray[np.bool_]
Words = NDArray[np.uint64]

#: Slack for float comparisons against a limit (as matcher.rulelogic's).
_EPSILON = 1e-9


@dataclass(frozen=True)
class PairRule:
    """One rule compiled over the wave's players.

    ``test``: ``"codes_same"`` / ``"codes_differ"`` (two players' string codes, -1 none,
    must agree / differ when both are given), ``"sets"`` (their element bit sets share
    a bit when both are given), ``"both"`` (each player passes ``alone``), ``"count"``
    (``carry_u + carry_v`` within ``low..high``), ``"number"`` (both pass ``alone`` and
    their values lie within ``spread``), ``"all"`` / ``"any"`` / ``"not"`` over ``rules``,
    ``"true"``. ``optional_after_s``: the pair's least wait from which it holds anyway.
    """

    test: str
    optional_after_s: float | None = None
    codes: Ints | None = None
    sets: Words | None = None
    alone: Bools | None = None
    carry: Ints | None = None
    values: Floats | None = None
    low: float = 0.0
    high: float = 0.0
    spread: float = np.inf
    rules: tuple[PairRule, ...] = ()

    def holds(self, u: Ints, v: Ints, newest: Floats | None) -> Bools:
        """Mask of the pairs ``(u[i], v[i])`` the rule allows, ``newest[i]`` the pair's
        least wait in seconds (None when no rule of the tree turns optional)."""
        ok = self._holds(u, v, newest)
        if self.optional_after_s is not None:
            assert newest is not None
            ok |= newest >= self.optional_after_s
        return ok

    @property
    def optional(self) -> bool:
        """Whether the rule or one under it turns optional after a wait."""
        return self.optional_after_s is not None or any(rule.optional for rule in self.rules)

    def _holds(self, u: Ints, v: Ints, newest: Floats | None) -> Bools:
        # Every branch returns a fresh array: :meth:`holds` and the compounds write in it.
        test = self.test
        ok: Bools
        if test in ("codes_same", "codes_differ"):
            assert self.codes is not None
            cu, cv = self.codes[u], self.codes[v]
            ok = cu == cv if test == "codes_same" else cu != cv
            ok |= cu < 0
            ok |= cv < 0
            return ok
        if test == "sets":
            assert self.sets is not None
            su, sv = self.sets[u], self.sets[v]
            ok = np.asarray((su & sv).any(axis=1), dtype=np.bool_)
            ok |= ~su.any(axis=1)
            ok |= ~sv.any(axis=1)
            return ok
        if test in ("both", "number"):
            assert self.alone is not None
            ok = self.alone[u] & self.alone[v]
            if test == "number" and self.spread != np.inf:
                assert self.values is not None
                gap = np.abs(self.values[u] - self.values[v])
                ok &= ~(gap > self.spread + _EPSILON)  # a missing value (nan) agrees
            return ok
        if test == "count":
            assert self.carry is not None
            count = self.carry[u] + self.carry[v]
            ok = count >= self.low
            ok &= count <= self.high
            return ok
        if test == "true":
            return np.ones(len(u), dtype=np.bool_)
        if test == "not":
            ok = self.rules[0].holds(u, v, newest)
            return np.logical_not(ok, out=ok)
        ok = self.rules[0].holds(u, v, newest)
        for rule in self.rules[1:]:
            if test == "all":
                ok &= rule.holds(u, v, newest)
            else:
                ok |= rule.holds(u, v, newest)
        return ok

    def subset(self, players: Ints) -> PairRule:
        def take(column: NDArray[np.generic] | None) -> NDArray[np.generic] | None:
            return None if column is None else column[players]

        return PairRule(
            self.test,
            self.optional_after_s,
            take(self.codes),  # type: ignore[arg-type]
            take(self.sets),  # type: ignore[arg-type]
            take(self.alone),  # type: ignore[arg-type]
            take(self.carry),  # type: ignore[arg-type]
            take(self.values),  # type: ignore[arg-type]
            self.low,
            self.high,
            self.spread,
            tuple(rule.subset(players) for rule in self.rules),
        )


@dataclass(frozen=True)
class PairChecks:
    """The queue's checks over a wave's duel players; ``waited``: each player's seconds
    waited at the close (a pair's checks turn optional by the lower of the two)."""

    rules: tuple[PairRule, ...]
    waited: Floats
    #: Whether some rule turns optional after a wait (else the waits are never read).
    optional: bool = True

    def allowed(self, u: Ints, v: Ints) -> Bools:
        """Mask of the pairs ``(u[i], v[i])`` every check allows.

        Notes: O(len(u) x rule nodes); no narrowing to the pairs still allowed between
        rules: the repair of the large tier calls it on thousands of tiny batches, where
        each extra NumPy call costs more than the rules' arithmetic.
        """
        newest = np.minimum(self.waited[u], self.waited[v]) if self.optional else None
        ok = self.rules[0].holds(u, v, newest)
        for rule in self.rules[1:]:
            ok &= rule.holds(u, v, newest)
        return ok

    def subset(self, players: Ints) -> PairChecks:
        rules = tuple(rule.subset(players) for rule in self.rules)
        return PairChecks(rules, self.waited[players], self.optional)


def pair_checks(
    checks: Sequence[Check], players: Sequence[Player], region: str, waited: Floats
) -> PairChecks:
    """Compile ``checks`` over ``players`` (one per duel player, in order), whose latencies
    to ``region`` the ``latency`` rules read.

    >>> from matcher.rulelogic import parse_checks
    >>> checks = parse_checks([{"name": "lvl", "kind": "number", "attribute": "level",
    ...                         "max_spread": 5}])
    >>> players = [Player(p, (), numbers=(("level", n),)) for p, n in (("a", 10), ("b", 20))]
    >>> compiled = pair_checks(checks, players, "eu", np.zeros(2))
    >>> compiled.allowed(np.array([0, 0]), np.array([1, 0])).tolist()
    [False, True]

    Notes: O(players x rule nodes).
    """
    columns = _Columns(players, region)
    rules = tuple(columns.compile(check) for check in checks)
    return PairChecks(rules, waited, any(rule.optional for rule in rules))


class _Columns:
    """Per-player columns of one wave, each built once however many rules read it."""

    def __init__(self, players: Sequence[Player], region: str) -> None:
        self.players = players
        self.region = region
        self._strings: dict[str, list[str | None]] = {}

    def strings(self, name: str) -> list[str | None]:
        if name not in self._strings:
            self._strings[name] = [p.attribute(name) for p in self.players]
        return self._strings[name]

    def compile(self, check: Check) -> PairRule:
        kind, optional = check.kind, check.optional_after_s
        if kind in ("all", "any", "not"):
            return PairRule(kind, optional, rules=tuple(map(self.compile, check.rules)))
        if kind == "latency":
            known = [p.latency_to(self.region) for p in self.players]
            ms = np.array([np.nan if x is None else x for x in known], dtype=np.float64)
            return PairRule("both", optional, alone=~(ms > check.high + _EPSILON))
        if kind == "number":
            given = [p.number(check.attribute) for p in self.players]
            values = np.array([np.nan if x is None else x for x in given], dtype=np.float64)
            inside = ~((values < check.low - _EPSILON) | (values > check.high + _EPSILON))
            spread = np.inf
            if check.per == "match" and check.max_spread is not None:
                spread = check.max_spread
            return PairRule("number", optional, alone=inside, values=values, spread=spread)
        strings = self.strings(check.attribute)
        if kind == "count":
            carry = np.array(
                [0 if s is None else int(carries(s, check.value)) for s in strings], np.int64
            )
            if check.per == "team":  # each team is one player: its own count in bounds
                alone = (carry >= check.low) & (carry <= check.high)
                return PairRule("both", optional, alone=alone)
            return PairRule("count", optional, carry=carry, low=check.low, high=check.high)
        if check.per == "team" and kind != "disjoint":
            # One player agrees with themself, shares nothing with nobody, and lists at
            # least one element.
            return PairRule("true", optional)
        if kind == "intersect":
            return PairRule("sets", optional, sets=_element_sets(strings))
        index: dict[str, int] = {}
        codes = np.array(
            [-1 if s is None else index.setdefault(s, len(index)) for s in strings], np.int64
        )
        # ``unique`` over the match and ``disjoint`` across its two one-player teams both
        # forbid the two players the same value.
        test = "codes_same" if kind == "equal" else "codes_differ"
        return PairRule(test, optional, codes=codes)


def _element_sets(strings: Sequence[str | None]) -> Words:
    """Each value's elements as a bit set over the wave's distinct elements (none: 0)."""
    sets = [frozenset() if s is None else elements(s) for s in strings]
    bit: dict[str, int] = {}
    for found in sets:
        for element in found:
            bit.setdefault(element, len(bit))
    words = np.zeros((len(sets), max(1, (len(bit) + 63) // 64)), dtype=np.uint64)
    for row, found in enumerate(sets):
        for element in found:
            words[row, bit[element] // 64] |= np.uint64(1 << (bit[element] % 64))
    return words
