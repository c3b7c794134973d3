"""The rule model of a queue: frozen values parsed from the queue's ``[queues.rules]``.

Every limit may expand with the seconds a ticket has waited (the tick's time minus its
join time): either FlexMatch-style steps ``[{after_s, value}]`` or a base plus a growth
per second, never beyond ``cap``. Whose wait widens a match's limit is each rule's
``expansion_age``: its ``oldest`` ticket's (the default, so that a ticket's own wait widens
every match it could be in and no tail player starves) or its ``newest`` ticket's (every
ticket in the match has accepted that limit by then); docs/adr/0175 and 0101.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from matcher.rulelogic import Check, RuleTally, parse_checks

#: Every rule a queue may declare, with what it limits.
RULE_NAMES = (
    "rating",
    "max_spread",
    "max_team_gap",
    "max_distance",
    "max_latency_ms",
    "attributes",
    "rematch",
    "block_lists",
    "deviation",
    "checks",
    "sort",
    "priority",
)
_EXPANSION_KEYS = ("base", "growth_per_s", "steps", "cap", "expansion_age")
_ATTRIBUTE_KEYS = ("name", "match", "relax_after_s", "missing", "expansion_age")
#: Whose wait widens a match's limit: its oldest or its newest (least waited) ticket's.
EXPANSION_AGES = ("oldest", "newest")
#: ``newest`` starves tail players in a busy queue: every candidate match holds a fresh
#: ticket, so the limit stays near its base (docs/adr/0175).
DEFAULT_EXPANSION_AGE = "oldest"
#: How the players' values of one attribute must agree.
ATTRIBUTE_MATCHES = ("equal", "intersect")


@dataclass(frozen=True, slots=True)
class Waits:
    """Seconds waited at the wave's close by the newest (least waited) and the oldest
    ticket of a match; each rule reads one of them (its ``expansion_age``).

    >>> Waits(2.0, 40.0).of("oldest"), Waits.both(5.0).of("newest")
    (40.0, 5.0)
    """

    newest: float
    oldest: float

    @classmethod
    def both(cls, waited_s: float) -> Waits:
        """One ticket's wait (or one wait for every rule)."""
        return cls(waited_s, waited_s)

    def of(self, age: str) -> float:
        return self.oldest if age == "oldest" else self.newest


@dataclass(frozen=True, slots=True)
class Expansion:
    """A limit as a function of seconds waited; ``expansion_age``: whose wait in a match.

    >>> Expansion(100, growth_per_s=10, cap=300).at(5), Expansion(100, 10, cap=300).at(60)
    (150.0, 300.0)
    >>> Expansion(50, steps=((10, 100), (30, 200))).at(29.9)
    100.0
    """

    base: float
    growth_per_s: float = 0.0
    steps: tuple[tuple[float, float], ...] = ()
    cap: float = math.inf
    expansion_age: str = DEFAULT_EXPANSION_AGE

    def reached(self, waits: Waits) -> float:
        """The limit of a match whose tickets waited ``waits``.

        >>> limit = Expansion(50, 5, cap=120)
        >>> limit.reached(Waits(1, 30)), Expansion(50, 5, (), 120, "newest").reached(Waits(1, 30))
        (120.0, 55.0)
        """
        return self.at(waits.of(self.expansion_age))

    def at(self, waited_s: float) -> float:
        value = self.base + self.growth_per_s * max(0.0, waited_s)
        for after_s, step_value in self.steps:
            if waited_s >= after_s:
                value = max(value, step_value)
        return float(min(value, self.cap))

    @property
    def widest(self) -> float:
        """The limit after an unbounded wait: what a ticket can ever be allowed."""
        if self.growth_per_s > 0:
            return self.cap
        return float(min(max([self.base, *(v for _, v in self.steps)]), self.cap))


@dataclass(frozen=True, slots=True)
class AttributeRule:
    """Players of a match must agree on string attribute ``name``.

    ``equal``: every player who gives the attribute gives the same value ("de").
    ``intersect``: each value is a comma-separated set and the sets of all players who
    give it share an element (cross-play: the player's own platform plus a ``crossplay``
    token when allowed, "pc,crossplay"; docs/rules.md).
    A player without the attribute agrees with anyone, unless ``missing`` is set: then
    they count as giving that value (a low-priority pool: leavers send ``pool = "low"``,
    everyone else counts as ``"normal"``). From ``relax_after_s`` seconds of
    wait on (of the match's oldest ticket, or newest by ``expansion_age``) the rule no
    longer applies.

    >>> AttributeRule("platform", "intersect").problem(["pc,xbox", "xbox", None], 0)
    >>> AttributeRule("language", "equal", 30).problem(["de", "fr"], 10)
    "players disagree on 'language' (de, fr) after 10 s"
    >>> AttributeRule("language", "equal", 30).problem(["de", "fr"], 30)
    >>> AttributeRule("pool", missing="normal").problem(["low", None], 0)
    "players disagree on 'pool' (low, normal) after 0 s"
    """

    name: str
    match: str = "equal"
    relax_after_s: float | None = None
    missing: str | None = None
    expansion_age: str = DEFAULT_EXPANSION_AGE

    def problem(self, values: list[str | None], waited_s: float) -> str | None:
        if self.relax_after_s is not None and waited_s >= self.relax_after_s:
            return None
        if self.missing is not None:
            values = [self.missing if value is None else value for value in values]
        given = [value for value in values if value is not None]
        if self.match == "equal":
            agree = len(set(given)) <= 1
        else:
            sets = [{part.strip() for part in value.split(",")} for value in given]
            agree = not sets or bool(set.intersection(*sets))
        if agree:
            return None
        shown = ", ".join(sorted(set(given)))
        return f"players disagree on {self.name!r} ({shown}) after {waited_s:g} s"


@dataclass(frozen=True, slots=True)
class RematchRule:
    """Players who met in one of their ``last`` matches less than ``within_s`` seconds
    before the wave's close are not put in one match again."""

    last: int
    within_s: float


@dataclass(frozen=True, slots=True)
class DeviationRule:
    """Players are matched on a confidence bound of their rating: the rating minus
    ``weight`` times its deviation (``missing`` when the player sent none), never below 0.

    >>> DeviationRule(2.0, 350).bound(1500, 100), DeviationRule(2.0, 350).bound(1500, None)
    (1300, 800)
    """

    weight: float
    missing: int = 0

    def bound(self, rating: int, deviation: int | None) -> int:
        spread = self.missing if deviation is None else deviation
        return max(0, round(rating - self.weight * spread))


@dataclass(frozen=True, slots=True)
class SortKey:
    """A soft preference: parties are swept in the order of their mean rating plus
    ``weight`` times their players' mean numeric attribute ``number``, so parties near in
    both are grouped first; nobody is excluded by it (FlexMatch ``distanceSort``)."""

    number: str
    weight: float


@dataclass(frozen=True, slots=True)
class QueueRuleSet:
    """The rules of one queue; None means "no such limit".

    ``rating`` names the rating key every player is matched on (``"mmr"``); without it
    a strategy reads each player's best rating (or the role's rating in a role queue).
    ``max_spread``: highest minus lowest seat rating in a match. ``max_team_gap``:
    highest minus lowest team mean rating. ``max_distance``: rating distance between
    1v1 opponents. ``max_latency_ms``: every player's latency to the wave's region
    (players who sent no figure for it are not held to it). ``attributes``: string
    attribute rules (:class:`AttributeRule`). ``rematch``: :class:`RematchRule`.
    ``block_lists``: two players are never in one match when either blocked the other
    (``Player.blocked``). ``deviation``: :class:`DeviationRule` (needs ``rating``).
    ``checks``: named compound, collection and numeric rules (:mod:`matcher.rulelogic`).
    """

    rating: str | None = None
    max_spread: Expansion | None = None
    max_team_gap: Expansion | None = None
    max_distance: Expansion | None = None
    max_latency_ms: Expansion | None = None
    attributes: tuple[AttributeRule, ...] = ()
    rematch: RematchRule | None = None
    block_lists: bool = False
    deviation: DeviationRule | None = None
    checks: tuple[Check, ...] = ()
    sort: tuple[SortKey, ...] = ()
    #: Higher ``Ticket.priority`` is matched first when a wave cannot match everyone.
    priority: bool = False
    #: The ``checks`` a group breaks whatever is added to it and however it is split: the
    #: grouping may refuse a party that breaks one before any split is tried.
    monotone_checks: tuple[Check, ...] = field(init=False, repr=False, compare=False)
    #: What of each ``check`` a party alone breaks only when it can never be matched
    #: (:meth:`~matcher.rulelogic.Check.party_part`): refused at join.
    party_checks: tuple[Check, ...] = field(init=False, repr=False, compare=False)

    #: Set on a wave's own copy (:meth:`counting`) only: the strategies' rule counts.
    tally: RuleTally | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        monotone = tuple(check for check in self.checks if check.monotone)
        object.__setattr__(self, "monotone_checks", monotone)
        parts = (check.party_part() for check in self.checks)
        object.__setattr__(self, "party_checks", tuple(part for part in parts if part))

    def counting(self) -> QueueRuleSet:
        """A copy that counts its named rules' verdicts in a fresh :class:`RuleTally`."""
        return replace(self, tally=RuleTally()) if self.checks else self

    def tally_stats(self) -> tuple[tuple[str, float], ...]:
        return () if self.tally is None else self.tally.stats()

    @property
    def empty(self) -> bool:
        return self == NO_RULES

    @property
    def limits_ratings(self) -> bool:
        """Whether a rule limits the seats' ratings (their spread, distance or team gap),
        so that in a role queue which seat a player takes can decide a match."""
        limits = (self.max_spread, self.max_team_gap, self.max_distance)
        return any(limit is not None for limit in limits)


NO_RULES = QueueRuleSet()


def parse_rules(raw: Mapping[str, object]) -> QueueRuleSet:
    """Build the rule set from a queue's ``rules`` table; ValueError names the bad field.

    >>> parse_rules({"rating": "mmr", "max_spread": {"base": 200, "growth_per_s": 5,
    ...     "cap": 600}}).max_spread
    Expansion(base=200.0, growth_per_s=5.0, steps=(), cap=600.0, expansion_age='oldest')
    >>> parse_rules({"max_sprad": 1})
    Traceback (most recent call last):
    ValueError: rules.max_sprad: unknown rule (known: ...)
    """
    for name in sorted(raw):
        if name not in RULE_NAMES:
            known = ", ".join(sorted(RULE_NAMES))
            raise ValueError(f"rules.{name}: unknown rule (known: {known})")
    rating = raw.get("rating")
    if rating is not None and (not isinstance(rating, str) or not rating):
        raise ValueError(f"rules.rating: must be a rating name such as 'mmr' (got {rating!r})")
    block_lists = raw.get("block_lists", False)
    if not isinstance(block_lists, bool):
        raise ValueError(f"rules.block_lists: must be true or false (got {block_lists!r})")
    priority = raw.get("priority", False)
    if not isinstance(priority, bool):
        raise ValueError(f"rules.priority: must be true or false (got {priority!r})")
    return QueueRuleSet(
        rating=rating,
        max_spread=_limit(raw, "max_spread"),
        max_team_gap=_limit(raw, "max_team_gap"),
        max_distance=_limit(raw, "max_distance"),
        max_latency_ms=_limit(raw, "max_latency_ms"),
        attributes=_attribute_rules(raw.get("attributes", ())),
        rematch=_rematch(raw["rematch"]) if "rematch" in raw else None,
        checks=parse_checks(raw["checks"]) if "checks" in raw else (),
        sort=_sort_keys(raw.get("sort", ())),
        block_lists=block_lists,
        priority=priority,
        deviation=_deviation(raw["deviation"], rating) if "deviation" in raw else None,
    )


def _deviation(raw: object, rating: object) -> DeviationRule:
    if rating is None:
        raise ValueError("rules.deviation: needs rules.rating (the rating whose deviation it is)")
    if _is_number(raw):
        return DeviationRule(_non_negative("rules.deviation", raw))
    if not isinstance(raw, Mapping) or not set(raw) <= {"weight", "missing"} or "weight" not in raw:
        raise ValueError("rules.deviation: must be a number or a table {weight, missing}")
    missing = _non_negative("rules.deviation.missing", raw.get("missing", 0))
    if missing != int(missing) or missing > 10_000:
        raise ValueError(
            f"rules.deviation.missing: must be an integer from 0 to 10000 (got {missing:g})"
        )
    return DeviationRule(_non_negative("rules.deviation.weight", raw["weight"]), int(missing))


def _limit(raw: Mapping[str, object], name: str) -> Expansion | None:
    return _expansion(name, raw[name]) if name in raw else None


def _sort_keys(raw: object) -> tuple[SortKey, ...]:
    if not isinstance(raw, list | tuple):
        raise ValueError("rules.sort: must be a list of {number, weight} tables")
    keys: list[SortKey] = []
    for index, entry in enumerate(raw):
        where = f"rules.sort[{index}]"
        if not isinstance(entry, Mapping) or set(entry) != {"number", "weight"}:
            raise ValueError(f"{where}: must be a table {{number, weight}}")
        number, weight = entry["number"], entry["weight"]
        if not isinstance(number, str) or not 1 <= len(number) <= 64:
            raise ValueError(f"{where}.number: must be a numeric attribute name such as 'level'")
        if not _is_number(weight) or not math.isfinite(weight) or weight == 0:
            raise ValueError(f"{where}.weight: must be a finite number, not 0 (got {weight!r})")
        keys.append(SortKey(number, float(weight)))
    return tuple(keys)


def _rematch(raw: object) -> RematchRule:
    if not isinstance(raw, Mapping) or set(raw) != {"last", "within_s"}:
        raise ValueError("rules.rematch: must be a table {last, within_s}")
    last = raw["last"]
    if isinstance(last, bool) or not isinstance(last, int) or not 1 <= last <= 100:
        raise ValueError(f"rules.rematch.last: must be an integer from 1 to 100 (got {last!r})")
    within = _non_negative("rules.rematch.within_s", raw["within_s"])
    if within == 0:
        raise ValueError("rules.rematch.within_s: must be > 0")
    return RematchRule(last, within)


def _attribute_rules(raw: object) -> tuple[AttributeRule, ...]:
    if not isinstance(raw, list | tuple):
        raise ValueError("rules.attributes: must be a list of {name, match, relax_after_s} tables")
    rules: list[AttributeRule] = []
    for index, entry in enumerate(raw):
        where = f"rules.attributes[{index}]"
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where}: must be a table {{name, match, relax_after_s}}")
        for key in sorted(entry):
            if key not in _ATTRIBUTE_KEYS:
                known = ", ".join(_ATTRIBUTE_KEYS)
                raise ValueError(f"{where}.{key}: unknown field (known: {known})")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}.name: must be an attribute name such as 'language'")
        if name in {rule.name for rule in rules}:
            raise ValueError(f"{where}.name: {name!r} has a rule already")
        match = entry.get("match", "equal")
        if match not in ATTRIBUTE_MATCHES:
            raise ValueError(f"{where}.match: must be one of {', '.join(ATTRIBUTE_MATCHES)}")
        relax = entry.get("relax_after_s")
        after = None if relax is None else _non_negative(f"{where}.relax_after_s", relax)
        missing = entry.get("missing")
        if missing is not None and (not isinstance(missing, str) or not 1 <= len(missing) <= 64):
            raise ValueError(f"{where}.missing: must be a value of 1 to 64 characters")
        age = _expansion_age(where, entry)
        rules.append(AttributeRule(name, str(match), after, missing, age))
    return tuple(rules)


def _expansion(name: str, raw: object) -> Expansion:
    where = f"rules.{name}"
    if _is_number(raw):
        return Expansion(_non_negative(where, raw))
    if not isinstance(raw, Mapping):
        raise ValueError(
            f"{where}: must be a number or a table with base, growth_per_s, steps, cap, "
            "expansion_age"
        )
    for key in sorted(raw):
        if key not in _EXPANSION_KEYS:
            raise ValueError(f"{where}.{key}: unknown field (known: {', '.join(_EXPANSION_KEYS)})")
    if "base" not in raw:
        raise ValueError(f"{where}.base: required (the limit before any wait)")
    base = _non_negative(f"{where}.base", raw["base"])
    growth = _non_negative(f"{where}.growth_per_s", raw.get("growth_per_s", 0))
    steps = _steps(f"{where}.steps", raw.get("steps", ()), base)
    if "cap" in raw:
        cap = _non_negative(f"{where}.cap", raw["cap"])
        if cap < base:
            raise ValueError(f"{where}.cap: must be >= base ({cap:g} < {base:g})")
    elif growth > 0:
        raise ValueError(f"{where}.cap: required with growth_per_s (a limit must stop growing)")
    else:
        cap = math.inf
    return Expansion(base, growth, steps, cap, _expansion_age(where, raw))


def _expansion_age(where: str, raw: Mapping[str, object]) -> str:
    age = raw.get("expansion_age", DEFAULT_EXPANSION_AGE)
    if age not in EXPANSION_AGES:
        known = " or ".join(repr(name) for name in EXPANSION_AGES)
        raise ValueError(f"{where}.expansion_age: must be {known} (got {age!r})")
    return str(age)


def _steps(where: str, raw: object, base: float) -> tuple[tuple[float, float], ...]:
    if not isinstance(raw, list | tuple):
        raise ValueError(f"{where}: must be a list of {{after_s, value}} tables")
    steps: list[tuple[float, float]] = []
    for index, step in enumerate(raw):
        if not isinstance(step, Mapping) or set(step) != {"after_s", "value"}:
            raise ValueError(f"{where}[{index}]: must be a table {{after_s, value}}")
        after = _non_negative(f"{where}[{index}].after_s", step["after_s"])
        value = _non_negative(f"{where}[{index}].value", step["value"])
        if value < base:
            raise ValueError(f"{where}[{index}].value: must be >= base ({value:g} < {base:g})")
        if steps and (after <= steps[-1][0] or value < steps[-1][1]):
            raise ValueError(f"{where}[{index}]: after_s must increase and value not decrease")
        steps.append((after, value))
    return tuple(steps)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _non_negative(where: str, value: object) -> float:
    number = (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) else -1.0
    )
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{where}: must be a finite number >= 0 (got {value!r})")
    return number
