"""Named rules over the players of a match: compound, collection and numeric rules.

A queue's ``checks`` are designer-named rules (``[[queues.rules.checks]]``, docs/rules.md)
built from a few kinds: string rules (``equal``, ``intersect``, ``unique``, ``disjoint``),
``count`` (how many players carry a value), ``number`` (a numeric attribute's spread and
bounds), ``latency``, and ``all`` / ``any`` / ``not`` over other rules. Any rule may turn
optional after a wait (``optional_after_s``). They are parsed once into frozen values and
judged on a lineup (players by team, each with its latency to the region) after the
match's least waited ticket's wait (docs/adr/0150).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

#: Leaf kinds over a string attribute, then the other kinds.
STRING_KINDS = ("equal", "intersect", "unique", "disjoint")
KINDS = (*STRING_KINDS, "count", "number", "latency", "all", "any", "not")
_COMMON = ("kind", "optional_after_s")
_FIELDS: dict[str, tuple[str, ...]] = {
    "equal": ("attribute", "per"),
    "intersect": ("attribute", "per"),
    "unique": ("attribute", "per"),
    "disjoint": ("attribute",),
    "count": ("attribute", "value", "min", "max", "per"),
    "number": ("attribute", "max_spread", "min", "max", "per"),
    "latency": ("max_ms",),
    "all": ("rules",),
    "any": ("rules",),
    "not": ("rule",),
}
SCOPES = ("match", "team")
#: Slack for float comparisons against a limit.
_EPSILON = 1e-9


class Seated(Protocol):
    """What a rule reads of a player (matcher.core.Player)."""

    def attribute(self, name: str) -> str | None: ...

    def number(self, name: str) -> float | None: ...


#: A lineup as rules see it: per team, the players and their latencies (None: unknown).
Teams = Sequence[Sequence[Seated]]
Latencies = Sequence[Sequence[int | None]]


@dataclass(frozen=True, slots=True)
class Check:
    """One rule; ``problem`` says why a lineup breaks it after ``waited`` s, or None.

    >>> rule = parse_check("rules.checks[0]", {"kind": "count", "attribute": "class",
    ...     "value": "sniper", "max": 2, "per": "team"}, top=False)
    >>> class P:
    ...     def __init__(self, c): self.c = c
    ...     def attribute(self, name): return self.c
    ...     def number(self, name): return None
    >>> rule.problem([[P("sniper")] * 3, [P("medic")]], [[None] * 3, [None]], 0.0)
    "team 1 has 3 players with class 'sniper' (at most 2)"
    """

    kind: str
    attribute: str = ""
    per: str = "match"
    value: str = ""
    low: float = -math.inf
    high: float = math.inf
    max_spread: float | None = None
    rules: tuple[Check, ...] = ()
    optional_after_s: float | None = None
    name: str = ""

    @property
    def monotone(self) -> bool:
        """Whether a group breaking it means every larger group breaks it too, whatever
        the split: the grouping may then refuse a party the moment it breaks it."""
        if self.kind in ("not", "disjoint") or self.per == "team":
            return False
        if self.kind == "count":
            return self.low <= 0
        return all(rule.monotone for rule in self.rules)

    def party_part(self) -> Check | None:
        """What of this rule a party alone can break only if every match holding it breaks
        it too, judged with the party in one team: the rule with a ``count``'s minimum
        dropped (more players only add carriers). None when no part is (a rule that turns
        optional, a ``not``, a ``disjoint`` between teams, an ``any`` with such a branch).

        >>> two = parse_check("r", {"kind": "count", "attribute": "class", "value": "tank",
        ...     "min": 1, "max": 1, "per": "team"}, top=False).party_part()
        >>> (two.low, two.high, two.per)
        (-inf, 1.0, 'team')
        """
        if self.optional_after_s is not None or self.kind in ("not", "disjoint"):
            return None
        if self.kind == "count":
            return replace(self, low=-math.inf) if math.isfinite(self.high) else None
        if self.kind in ("all", "any"):
            parts = [rule.party_part() for rule in self.rules]
            kept = tuple(part for part in parts if part is not None)
            if not kept or (self.kind == "any" and len(kept) < len(parts)):
                return None
            return replace(self, rules=kept)
        return self

    def problem(self, teams: Teams, latencies: Latencies, waited: float) -> str | None:
        if self.optional_after_s is not None and waited >= self.optional_after_s:
            return None
        if self.kind in ("all", "any", "not"):
            return self._compound(teams, latencies, waited)
        if self.kind == "latency":
            known = [ms for team in latencies for ms in team if ms is not None]
            if known and max(known) > self.high + _EPSILON:
                return f"latency {max(known)} ms exceeds {self.high:g}"
            return None
        if self.kind == "disjoint":
            return _disjoint(self.attribute, teams)
        scopes = teams if self.per == "team" else [[p for team in teams for p in team]]
        for number, players in enumerate(scopes, start=1):
            problem = self._leaf(players)
            if problem is not None:
                return f"team {number} {problem}" if self.per == "team" else problem
        return None

    def _compound(self, teams: Teams, latencies: Latencies, waited: float) -> str | None:
        problems = [rule.problem(teams, latencies, waited) for rule in self.rules]
        if self.kind == "all":
            return next((p for p in problems if p is not None), None)
        if self.kind == "any":
            return None if None in problems else "none of: " + "; ".join(map(str, problems))
        return "the rule under 'not' holds" if problems[0] is None else None

    def _leaf(self, players: Sequence[Seated]) -> str | None:
        if self.kind == "number":
            return self._number(players)
        given = [v for p in players if (v := p.attribute(self.attribute)) is not None]
        if self.kind == "count":
            count = sum(1 for v in given if carries(v, self.value))
            if count < self.low or count > self.high:
                bound = f"at least {self.low:g}" if count < self.low else f"at most {self.high:g}"
                return f"has {count} players with {self.attribute} {self.value!r} ({bound})"
            return None
        if self.kind == "equal":
            ok = len(set(given)) <= 1
        elif self.kind == "unique":
            ok = len(set(given)) == len(given)
        else:
            sets = [elements(v) for v in given]
            ok = not sets or bool(frozenset.intersection(*sets))
        if ok:
            return None
        shown = ", ".join(sorted(set(given)))
        verb = "share" if self.kind == "unique" else "disagree on"
        return f"players {verb} {self.attribute} ({shown})"

    def _number(self, players: Sequence[Seated]) -> str | None:
        values = [v for p in players if (v := p.number(self.attribute)) is not None]
        if not values:
            return None
        low, high = min(values), max(values)
        if low < self.low - _EPSILON:
            return f"{self.attribute} {low:g} is below {self.low:g}"
        if high > self.high + _EPSILON:
            return f"{self.attribute} {high:g} is above {self.high:g}"
        if self.max_spread is not None and high - low > self.max_spread + _EPSILON:
            return f"{self.attribute} spread {high - low:g} exceeds {self.max_spread:g}"
        return None


class RuleTally:
    """How often each named rule passed or failed while one wave was closed (a strategy's
    own count, local to the wave: ``/metrics`` adds them up, as FlexMatch's rule
    evaluation metrics). A lineup counts once per rule judged; a group the grouping
    refuses before its split counts as a failure of the rule that refused it."""

    __slots__ = ("failed", "passed")

    def __init__(self) -> None:
        self.passed: dict[str, int] = {}
        self.failed: dict[str, int] = {}

    def count(self, name: str, ok: bool) -> None:
        counts = self.passed if ok else self.failed
        counts[name] = counts.get(name, 0) + 1

    def stats(self) -> tuple[tuple[str, float], ...]:
        """``rule_passed:<name>`` and ``rule_failed:<name>`` figures for the wave's stats."""
        return tuple(
            (f"rule_{outcome}:{name}", float(count))
            for outcome, counts in (("failed", self.failed), ("passed", self.passed))
            for name, count in sorted(counts.items())
        )


def carries(value: str, element: str) -> bool:
    """Whether an attribute's ``value`` is ``element`` or lists it among its elements."""
    if value == element:
        return True
    # Only a list (or a padded value) needs splitting: most values are one plain word.
    return ("," in value or value.strip() != value) and element in elements(value)


def elements(value: str) -> frozenset[str]:
    """The comma-separated elements of an attribute's value ("pc,crossplay")."""
    return frozenset(part.strip() for part in value.split(","))


def _disjoint(attribute: str, teams: Teams) -> str | None:
    seen: dict[str, int] = {}
    for number, team in enumerate(teams, start=1):
        values = {v for p in team if (v := p.attribute(attribute)) is not None}
        for value in sorted(values):
            if seen.setdefault(value, number) != number:
                return f"teams {seen[value]} and {number} share {attribute} {value!r}"
    return None


def parse_checks(raw: object) -> tuple[Check, ...]:
    """The queue's named ``checks``; ValueError names the bad field.

    >>> parse_checks([{"name": "x", "kind": "any", "rules": []}])
    Traceback (most recent call last):
    ValueError: rules.checks[0].rules: must be a non-empty list of rule tables
    """
    if not isinstance(raw, list | tuple):
        raise ValueError("rules.checks: must be a list of rule tables {name, kind, ...}")
    checks: list[Check] = []
    for index, entry in enumerate(raw):
        check = parse_check(f"rules.checks[{index}]", entry, top=True)
        if check.name in {c.name for c in checks}:
            raise ValueError(f"rules.checks[{index}].name: {check.name!r} is used twice")
        checks.append(check)
    return tuple(checks)


def parse_check(where: str, raw: object, *, top: bool) -> Check:
    """One rule table (``top``: a queue's rule, which has a ``name``)."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: must be a table {{kind, ...}}")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{where}.kind: must be one of {', '.join(KINDS)} (got {kind!r})")
    known = (*(("name",) if top else ()), *_COMMON, *_FIELDS[kind])
    for key in sorted(raw):
        if key not in known:
            raise ValueError(
                f"{where}.{key}: unknown field for kind {kind!r} (known: {', '.join(known)})"
            )
    name = raw.get("name", "")
    if top and (not isinstance(name, str) or not name or len(name) > 64):
        raise ValueError(f"{where}.name: must be a name of 1-64 characters such as 'roles'")
    optional = raw.get("optional_after_s")
    fields: dict[str, object] = {
        "kind": kind,
        "name": name,
        "optional_after_s": None
        if optional is None
        else _number(f"{where}.optional_after_s", optional, 0),
    }
    if "attribute" in _FIELDS[kind]:
        fields["attribute"] = _text(f"{where}.attribute", raw.get("attribute"))
    if "per" in _FIELDS[kind]:
        fields["per"] = raw.get("per", "match")
        if fields["per"] not in SCOPES:
            raise ValueError(f"{where}.per: must be one of {', '.join(SCOPES)}")
    if kind == "count":
        fields["value"] = _text(f"{where}.value", raw.get("value"))
    if kind in ("count", "number"):
        fields.update(_bounds(where, raw, kind))
    if kind == "latency":
        if "max_ms" not in raw:
            raise ValueError(f"{where}.max_ms: required (the highest latency allowed)")
        fields["high"] = _number(f"{where}.max_ms", raw["max_ms"], 0)
    if kind in ("all", "any"):
        rules = raw.get("rules")
        if not isinstance(rules, list | tuple) or not rules:
            raise ValueError(f"{where}.rules: must be a non-empty list of rule tables")
        fields["rules"] = tuple(
            parse_check(f"{where}.rules[{i}]", rule, top=False) for i, rule in enumerate(rules)
        )
    if kind == "not":
        fields["rules"] = (parse_check(f"{where}.rule", raw.get("rule"), top=False),)
    return Check(**fields)  # type: ignore[arg-type]


def _bounds(where: str, raw: Mapping[str, object], kind: str) -> dict[str, float]:
    bounds: dict[str, float] = {}
    floor = 0.0 if kind == "count" else -math.inf
    for field, bound in (("min", "low"), ("max", "high")):
        if field in raw:
            bounds[bound] = _number(f"{where}.{field}", raw[field], floor)
            if kind == "count" and not bounds[bound].is_integer():
                raise ValueError(f"{where}.{field}: must be a whole number of players")
    if "max_spread" in raw:
        bounds["max_spread"] = _number(f"{where}.max_spread", raw["max_spread"], 0)
    if not bounds:
        limits = "min, max" if kind == "count" else "min, max, max_spread"
        raise ValueError(f"{where}: needs at least one of {limits}")
    if bounds.get("low", -math.inf) > bounds.get("high", math.inf):
        raise ValueError(f"{where}.max: must be >= min")
    return bounds


def _text(where: str, value: object) -> str:
    if not isinstance(value, str) or not value or len(value) > 64:
        raise ValueError(f"{where}: must be a name of 1-64 characters (got {value!r})")
    return value


def _number(where: str, value: object, floor: float) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    number = float(value) if ok else math.nan  # type: ignore[arg-type]
    if not math.isfinite(number) or number < floor:
        bound = f" >= {floor:g}" if math.isfinite(floor) else ""
        raise ValueError(f"{where}: must be a finite number{bound} (got {value!r})")
    return number
