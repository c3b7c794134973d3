"""The rule model of a queue: frozen values parsed from the queue's ``[queues.rules]``.

Every limit may expand with the seconds a ticket has waited (the tick's time minus its
join time): either FlexMatch-style steps ``[{after_s, value}]`` or a base plus a growth
per second, never beyond ``cap``. A match is held to the limit of its *least* waited
ticket: every ticket in it has accepted that limit by then (docs/adr/0101).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

#: Every rule a queue may declare, with what it limits.
RULE_NAMES = ("rating", "max_spread", "max_team_gap", "max_distance", "max_latency_ms")
_EXPANSION_KEYS = ("base", "growth_per_s", "steps", "cap")


@dataclass(frozen=True, slots=True)
class Expansion:
    """A limit as a function of seconds waited.

    >>> Expansion(100, growth_per_s=10, cap=300).at(5), Expansion(100, 10, cap=300).at(60)
    (150.0, 300.0)
    >>> Expansion(50, steps=((10, 100), (30, 200))).at(29.9)
    100.0
    """

    base: float
    growth_per_s: float = 0.0
    steps: tuple[tuple[float, float], ...] = ()
    cap: float = math.inf

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
class QueueRuleSet:
    """The rules of one queue; None means "no such limit".

    ``rating`` names the rating key every player is matched on (``"mmr"``); without it
    a strategy reads each player's best rating (or the role's rating in a role queue).
    ``max_spread``: highest minus lowest seat rating in a match. ``max_team_gap``:
    highest minus lowest team mean rating. ``max_distance``: rating distance between
    1v1 opponents. ``max_latency_ms``: every player's latency to the wave's region
    (players who sent no figure for it are not held to it).
    """

    rating: str | None = None
    max_spread: Expansion | None = None
    max_team_gap: Expansion | None = None
    max_distance: Expansion | None = None
    max_latency_ms: Expansion | None = None

    @property
    def empty(self) -> bool:
        return self == NO_RULES


NO_RULES = QueueRuleSet()


def parse_rules(raw: Mapping[str, object]) -> QueueRuleSet:
    """Build the rule set from a queue's ``rules`` table; ValueError names the bad field.

    >>> parse_rules({"rating": "mmr", "max_spread": {"base": 200, "growth_per_s": 5,
    ...     "cap": 600}}).max_spread
    Expansion(base=200.0, growth_per_s=5.0, steps=(), cap=600.0)
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
    return QueueRuleSet(
        rating=rating,
        **{name: _expansion(name, raw[name]) for name in RULE_NAMES[1:] if name in raw},
    )


def _expansion(name: str, raw: object) -> Expansion:
    where = f"rules.{name}"
    if _is_number(raw):
        return Expansion(_non_negative(where, raw))
    if not isinstance(raw, Mapping):
        raise ValueError(
            f"{where}: must be a number or a table with base, growth_per_s, steps, cap"
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
    return Expansion(base, growth, steps, cap)


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
    if not _is_number(value) or not math.isfinite(value) or value < 0:  # type: ignore[operator, arg-type]
        raise ValueError(f"{where}: must be a finite number >= 0 (got {value!r})")
    return float(value)  # type: ignore[arg-type]
