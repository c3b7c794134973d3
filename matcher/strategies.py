"""Strategies by name: the one place a queue's ``strategy`` setting is resolved.

Each strategy is one :class:`StrategyEntry` (function, checker, start-up check, decision
revision, the rules it honours). Functions and checkers are named ``"module:attribute"``
and imported on first use, so that validating a strategy's name or options never pays
for the import of its solver (numpy and SciPy for ``optimal``, say).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Final, TypeVar

from matcher.core import QueueProfile, Strategy, WaveResult, WaveSnapshot
from matcher.event_size import LEAST_SHARE, MATCH_EVENT_BYTES
from matcher.rulelogic import Check
from matcher.ruleset import RULE_NAMES

#: A strategy's start-up check: parses the profile's options (and team shape) into the
#: strategy's typed config, raising ValueError("<field>: <reason>") on a bad one.
ProfileCheck = Callable[[QueueProfile], object]
#: A checker: every rule a wave result breaks (empty when valid), common rules included.
Checker = Callable[[WaveSnapshot, QueueProfile, WaveResult], list[str]]

#: Plug-ins registered without a revision.
DEFAULT_REVISION: Final = 1
#: The common rules every result is held to (a plug-in registered without a checker).
COMMON_CHECKER: Final = "matcher.checks:wave_result_problems"

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class StrategyEntry:
    """Everything the service knows about one strategy, in one place.

    ``revision`` is raised whenever the strategy's matches for the same input change (the
    CHANGELOG then says "results differ"); the config fingerprint includes it, so a replay
    under another release reports "another configuration" instead of comparing decisions
    made by different code (tests/test_decision_revisions.py fails when a strategy's
    decisions change and its revision did not). ``check`` parses a profile's options once
    at start, so a typo stops the start instead of every wave; None accepts any options.
    ``checker`` judges every result before it is published. A rule outside
    ``rules_honoured`` is refused at start rather than ignored. ``duel``: the strategy
    plays the 1v1 model of :mod:`matcher.duel` (BW against SC2, or a mirror ladder on
    the rules' rating key), which admission and explain read differently.
    """

    name: str
    function: str | Strategy
    checker: str | Checker = COMMON_CHECKER
    check: str | ProfileCheck | None = None
    revision: int = DEFAULT_REVISION
    rules_honoured: frozenset[str] = frozenset()
    duel: bool = False
    #: Whether it closes a wave again at the queue's ``team_steps`` (matcher/teams/steps.py);
    #: which shape changes it plays, its ``check`` says.
    team_steps: bool = False

    def strategy(self) -> Strategy:
        return _loaded(self.function)

    def result_checker(self) -> Checker:
        return _loaded(self.checker)


_ALL_RULES = frozenset(RULE_NAMES)

# What each revision changed: the CHANGELOG's "results differ" lines and ADR 0141.
_BUILT_IN = (
    # Its rules are a hard pair filter; a 1v1 has no spread or team gap beyond the pair's
    # distance (ADR 0103).
    StrategyEntry(
        "optimal",
        "matcher.duel.strategies:optimal_strategy",
        duel=True,
        checker="matcher.duel.checks:duel_result_problems",
        check="matcher.strategies:_check_optimal",
        revision=20,
        # ``priority``: its sit-out order is the duel code's own (docs/adr/0162).
        rules_honoured=_ALL_RULES - {"max_spread", "max_team_gap", "priority"},
    ),
    # The reference pipeline as designed (its pressure windows): the rating key alone.
    StrategyEntry(
        "ladder-v2.1",
        "matcher.duel.strategies:ladder_strategy",
        duel=True,
        checker="matcher.duel.checks:duel_result_problems",
        check="matcher.strategies:_check_ladder",
        revision=2,
        rules_honoured=frozenset({"rating"}),
    ),
    StrategyEntry(
        "rebalance",
        "matcher.teams.strategies:rebalance_strategy",
        checker="matcher.teams.checks:team_result_problems",
        check="matcher.teams.options:rebalance_settings",
        revision=7,
        rules_honoured=_ALL_RULES,
        team_steps=True,
    ),
    StrategyEntry(
        "game-queue",
        "matcher.teams.strategies:game_queue_strategy",
        checker="matcher.teams.checks:team_result_problems",
        check="matcher.teams.options:game_queue_settings",
        revision=7,
        rules_honoured=_ALL_RULES,
        team_steps=True,
    ),
    StrategyEntry(
        "multifactor",
        "matcher.multifactor.strategy:multifactor_strategy",
        checker="matcher.multifactor.checks:multifactor_result_problems",
        check="matcher.multifactor.config:multifactor_settings",
        revision=6,
        # Its search orders nothing by a sweep: the soft ``sort`` has no place to act.
        # ``priority``: its selection, then the team strategies' swap pass (ADR 0195).
        rules_honoured=_ALL_RULES - {"sort"},
    ),
)

_ENTRIES: dict[str, StrategyEntry] = {entry.name: entry for entry in _BUILT_IN}
_BUILT_IN_NAMES = frozenset(_ENTRIES)
#: "module:attribute" -> the object, so that each is imported and looked up once.
_RESOLVED: dict[str, object] = {}


class UnknownStrategy(KeyError):
    pass


def register_strategy(
    name: str,
    strategy: Strategy,
    revision: int = DEFAULT_REVISION,
    check: ProfileCheck | None = None,
    checker: Checker | str = COMMON_CHECKER,
) -> None:
    """Register ``strategy`` under ``name`` (plug-ins and tests); names are never replaced.

    See :class:`StrategyEntry` for ``revision``, ``check`` and ``checker``. A plug-in
    honours no rules.
    """
    if name in _ENTRIES:
        raise ValueError(f"strategy {name!r} is already registered")
    held = partial(_plug_in_checked, checker)
    _ENTRIES[name] = StrategyEntry(name, strategy, held, check, revision)


def _plug_in_checked(
    checker: Checker | str, snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """A plug-in's checker, and its quality figures held to what a match event can carry
    (the built-in strategies' checkers re-derive their own figures): a result breaking it
    fails its wave whole, instead of its matches failing to encode once taken."""
    from matcher.checks import quality_problems

    return [*_loaded(checker)(snapshot, profile, result), *quality_problems(result)]


def is_registered(name: str) -> bool:
    """Whether ``name`` is registered, its installed plug-in loaded first if it has one;
    raise UnknownStrategy when that plug-in fails to load."""
    return _entry(name) is not None


def strategy_entry(name: str) -> StrategyEntry:
    """The entry registered as ``name`` (an installed plug-in's is loaded on first use);
    raise UnknownStrategy otherwise, or when the plug-in fails to load."""
    entry = _entry(name)
    if entry is None:
        known = ", ".join(sorted({*strategy_names(), *_plug_in_names()}))
        raise UnknownStrategy(f"unknown strategy {name!r} (known: {known})")
    return entry


def _entry(name: str) -> StrategyEntry | None:
    if name not in _ENTRIES:
        _load_plug_in(name)
    return _ENTRIES.get(name)


#: The entry-point group in which an installed package declares its strategies
#: (docs/plug-ins.md): ``name = "package.module:register"``, ``register()`` registering
#: the strategy ``name`` through :func:`register_strategy`.
PLUG_IN_GROUP: Final = "wavematch.strategies"


def _load_plug_in(name: str) -> None:
    """Register the strategy ``name`` from the installed package that declares it in
    :data:`PLUG_IN_GROUP`, if one does. Python's entry points are the packaging
    standard's plug-in registry: a plug-in is installed, not configured, so a worker, the
    CLI and a replay find the same strategies with no setting."""
    for point in importlib.metadata.entry_points(group=PLUG_IN_GROUP, name=name):
        try:
            point.load()()
        except Exception as error:  # the plug-in's own code: any failure is one line
            raise UnknownStrategy(
                f"strategy {name!r}: its plug-in {point.value} failed to load: "
                f"{type(error).__name__}: {error}"
            ) from None
        if name not in _ENTRIES:
            raise UnknownStrategy(
                f"strategy {name!r}: its plug-in {point.value} registered no strategy of that name"
            )
        return


def _plug_in_names() -> set[str]:
    return {point.name for point in importlib.metadata.entry_points(group=PLUG_IN_GROUP)}


def is_built_in(name: str) -> bool:
    """Whether ``name`` is one of wavematch's own strategies (False for a plug-in)."""
    return name in _BUILT_IN_NAMES


def is_duel(name: str) -> bool:
    """Whether ``name`` plays the 1v1 model of :mod:`matcher.duel` (False if unknown)."""
    entry = _ENTRIES.get(name)
    return entry is not None and entry.duel


def strategy_names() -> tuple[str, ...]:
    return tuple(sorted(_ENTRIES))


def get_strategy(name: str) -> Strategy:
    """Return the strategy registered as ``name`` (imported once); UnknownStrategy otherwise."""
    return strategy_entry(name).strategy()


def get_checker(name: str) -> Checker:
    """The checker of the strategy registered as ``name``; raise UnknownStrategy otherwise."""
    return strategy_entry(name).result_checker()


def decision_revision(name: str) -> int:
    """The decision revision of the strategy registered as ``name`` (no import)."""
    return strategy_entry(name).revision


def load_strategies(names: tuple[str, ...] | list[str]) -> None:
    """Import every named strategy and its checker now, at start: a broken one fails the
    start, and the first wave does not pay for the import."""
    for name in names:
        strategy_entry(name).strategy()
        strategy_entry(name).result_checker()


def check_profile(profile: QueueProfile) -> object:
    """Validate ``profile`` for its strategy; return the strategy's typed config.

    Raises ValueError whose message names the field (``options.<name>: reason``,
    ``team_count: reason``...). A strategy registered without a check accepts any options.

    >>> check_profile(QueueProfile("q", "rebalance", ("m",), options={"methd": "greedy"}))
    Traceback (most recent call last):
    ValueError: options.methd: unknown option (known: alpha, max_sequences, method, p, q)
    """
    entry = strategy_entry(profile.strategy)
    share = profile.player_share
    if share is not None and share < LEAST_SHARE:
        field = "team_sizes" if profile.team_sizes else "team_size"
        raise ValueError(
            f"{field}: a match of this queue leaves {max(0, share)} bytes a player for ids and "
            f"data in one {MATCH_EVENT_BYTES}-byte event (at least {LEAST_SHARE}); "
            "make its matches smaller"
        )
    if profile.team_steps:
        check_team_steps_honoured(profile.strategy)
    if (profile.team_sizes or profile.team_roles) and entry.name != "rebalance":
        name = "team_sizes" if profile.team_sizes else "team_roles"
        raise ValueError(
            f"{name}: not honoured by strategy {profile.strategy!r} (asymmetric teams: rebalance)"
        )
    if entry.check is None:
        return None
    check: ProfileCheck = _loaded(entry.check)
    return check(profile)


def check_team_steps_honoured(name: str) -> None:
    """Refuse ``team_steps`` for a strategy that does not close waves at them, in one line.

    >>> check_team_steps_honoured("optimal")
    Traceback (most recent call last):
    ValueError: team_steps: not honoured by strategy 'optimal' (honoured by: game-queue, rebalance)
    """
    if not strategy_entry(name).team_steps:
        stepped = ", ".join(sorted(e.name for e in _ENTRIES.values() if e.team_steps))
        raise ValueError(f"team_steps: not honoured by strategy {name!r} (honoured by: {stepped})")


def check_rules(profile: QueueProfile) -> object:
    """Validate ``profile.rules`` for its strategy; ValueError names the bad field.

    >>> check_rules(QueueProfile("q", "optimal", ("m",), rules={"max_spread": 100}))
    Traceback (most recent call last):
    ValueError: rules.max_spread: not honoured by strategy 'optimal' (it honours: ...)
    """
    honoured = strategy_entry(profile.strategy).rules_honoured
    for name in sorted(profile.rules):
        if name not in honoured:
            known = ", ".join(sorted(honoured)) or "none"
            raise ValueError(
                f"rules.{name}: not honoured by strategy {profile.strategy!r} (it honours: {known})"
            )
    if "sort" in profile.rules and profile.options.get("mode") == "queue":
        raise ValueError(
            f"rules.sort: not honoured by strategy {profile.strategy!r} in mode 'queue' "
            "(its game queue pops games by imbalance, not by a sweep)"
        )
    if profile.ruleset.priority and profile.options.get("max_imbalance") is not None:
        raise ValueError(
            f"rules.priority: not honoured by strategy {profile.strategy!r} with "
            "options.max_imbalance (a swap the rules allow may exceed it; docs/adr/0162)"
        )
    if profile.ruleset.rating is not None and (profile.roles or profile.team_roles):
        raise ValueError("rules.rating: a role queue rates each seat by its role; leave it unset")
    _check_counts_can_hold(profile)
    if profile.ruleset.max_distance is not None and not _has_a_duel_shape(profile):
        raise ValueError(
            "rules.max_distance: a limit between the two players of a 1v1, and this queue's "
            "matches have more players: use max_spread or max_team_gap"
        )
    return profile.ruleset


def _has_a_duel_shape(profile: QueueProfile) -> bool:
    """Whether some match of the queue has two teams of one (its shape or a team step's):
    the only matches ``max_distance`` judges."""
    if profile.team_sizes:
        return tuple(profile.team_sizes) == (1, 1)
    shapes = [(profile.team_count, profile.team_size)]
    shapes += [(step.team_count, step.team_size) for step in profile.team_steps]
    return (2, 1) in shapes


def _check_counts_can_hold(profile: QueueProfile) -> None:
    """Refuse ``count`` rules that every match must meet (never optional, at the top or
    under ``all``) and that no match can: one asking for more players than a team
    (``per = "team"``: its smallest team) or the match can hold, or two on the same value
    whose bounds do not meet (a team's minimum counts once per team against the match's
    maximum). The queue would make no match at all.

    >>> _check_counts_can_hold(QueueProfile("q", "rebalance", ("m",), team_size=5,
    ...     rules={"checks": [{"name": "healers", "kind": "count", "attribute": "class",
    ...     "value": "healer", "min": 6, "per": "team"}]}))
    Traceback (most recent call last):
    ValueError: rules.checks[0]: 'healers' asks for at least 6 ... a team holds at most 5: ...
    """
    sizes = profile.team_sizes or (profile.team_size,) * profile.team_count
    least: dict[tuple[str, str, str], tuple[float, str]] = {}  # the highest minimum
    most: dict[tuple[str, str, str], tuple[float, str]] = {}  # the lowest maximum
    for where, name, check in _required_counts(profile.ruleset.checks):
        what = f"players with {check.attribute} {check.value!r} a {check.per}"
        holds = min(sizes) if check.per == "team" else sum(sizes)
        if check.low > holds:
            raise ValueError(
                f"{where}: {name!r} asks for at least {check.low:g} {what}, and a "
                f"{check.per} holds at most {holds}: no match could be made"
            )
        scope = (check.attribute, check.value, check.per)
        if check.low > least.get(scope, (-1.0, ""))[0]:
            least[scope] = (check.low, f"{where}: {name!r} asks for at least {check.low:g} {what}")
        if check.high < most.get(scope, (math.inf, ""))[0]:
            most[scope] = (check.high, f"{where} ({name!r}) for at most {check.high:g}")
    # A team step's match may have fewer teams: the fewest any match has.
    teams = min([len(sizes), *(step.team_count for step in profile.team_steps)])
    _refuse_unmet_bounds(least, most, teams)


def _refuse_unmet_bounds(
    least: dict[tuple[str, str, str], tuple[float, str]],
    most: dict[tuple[str, str, str], tuple[float, str]],
    teams: int,
) -> None:
    """Two count rules on one value whose bounds cannot both hold: a minimum above a
    maximum of the same scope, or a team's minimum, once per team, above the match's."""
    for (attribute, value, per), (low, asks) in least.items():
        same = most.get((attribute, value, per))
        if same is not None and low > same[0]:
            raise ValueError(f"{asks}, and {same[1]}: no match could be made")
        whole = most.get((attribute, value, "match"))
        if per == "team" and whole is not None and low * teams > whole[0]:
            raise ValueError(
                f"{asks}, {low * teams:g} in {teams} teams, and {whole[1]} a match: no match "
                "could be made"
            )


def _required_counts(checks: tuple[Check, ...]) -> list[tuple[str, str, Check]]:
    """The ``count`` rules every match must meet, each with where it is written and its
    queue rule's name: the queue's own and those under an ``all``, at any depth, none of
    which turns optional."""
    found: list[tuple[str, str, Check]] = []
    pending = [(f"rules.checks[{i}]", check.name, check) for i, check in enumerate(checks)]
    while pending:
        where, name, check = pending.pop(0)
        if check.optional_after_s is not None:
            continue
        if check.kind == "count":
            found.append((where, name, check))
        elif check.kind == "all":
            pending += [(f"{where}.rules[{i}]", name, r) for i, r in enumerate(check.rules)]
    return found


def result_problems(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> list[str]:
    """Every rule ``result`` breaks under the queue's strategy's checker (empty when valid).

    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> result_problems(snapshot, QueueProfile("q", "optimal", ("m",)),
    ...                 WaveResult("optimal", (), ()))
    []

    Notes: that checker's cost, O(players) for the built-in ones.
    """
    return get_checker(profile.strategy)(snapshot, profile, result)


def run_wave(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close one wave with the queue's strategy, players rated on the queue's rating key."""
    if profile.rules:
        from matcher.rules.check import rated_snapshot

        snapshot = rated_snapshot(snapshot, profile.ruleset)
    return get_strategy(profile.strategy)(snapshot, profile)


def _loaded(target: str | _T) -> _T:
    if not isinstance(target, str):
        return target
    found = _RESOLVED.get(target)
    if found is None:
        module_name, _, attribute = target.partition(":")
        found = _RESOLVED[target] = getattr(importlib.import_module(module_name), attribute)
    return found  # type: ignore[return-value]


def _check_optimal(profile: QueueProfile) -> object:
    from matcher.duel.model import OPTIMAL_DEFAULTS, DuelConfig, check_optimal_only

    config = _check_duel(profile, OPTIMAL_DEFAULTS)
    if "window_percentile" in profile.options and "max_distance" in profile.rules:
        # The queue's max_distance replaces every window (docs/adr/0177).
        raise ValueError(
            "options.window_percentile: rules.max_distance replaces the windows; set one of them"
        )
    assert isinstance(config, DuelConfig)
    check_optimal_only(config, profile.ruleset)
    return config


def _check_ladder(profile: QueueProfile) -> object:
    from matcher.duel.model import LADDER_DEFAULTS, DuelConfig, refuse_optimal_only

    config = _check_duel(profile, LADDER_DEFAULTS)
    assert isinstance(config, DuelConfig)
    refuse_optimal_only(config, "ladder-v2.1")
    return config


def _check_duel(profile: QueueProfile, defaults: object) -> object:
    # matcher.duel.model alone: the strategies module would import SciPy into every
    # command that reads settings.
    from matcher.duel.model import DuelConfig, parse_config

    assert isinstance(defaults, DuelConfig)
    if profile.team_count != 2 or profile.team_size != 1:
        raise ValueError("profile: duel strategies need team_count 2 and team_size 1")
    if profile.strategy == "ladder-v2.1":
        from matcher.duel.model import parse_ladder_config

        return parse_ladder_config(profile.options)
    return parse_config(profile.options, defaults)
