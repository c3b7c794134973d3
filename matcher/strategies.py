"""Strategies by name: the one place a queue's ``strategy`` setting is resolved.

Entries are imported lazily so that running one strategy never pays for the
import of another (numpy for ``optimal``, say).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Final

from matcher.checks import wave_result_problems
from matcher.core import QueueProfile, Strategy, WaveResult, WaveSnapshot

#: A strategy's start-up check: parses the profile's options (and team shape) into the
#: strategy's typed config, raising ValueError("<field>: <reason>") on a bad one.
ProfileCheck = Callable[[QueueProfile], object]
#: A checker: every rule a wave result breaks (empty when valid), common rules included.
Checker = Callable[[WaveSnapshot, QueueProfile, WaveResult], list[str]]

_REGISTRY: dict[str, str | Strategy] = {
    "optimal": "matcher.duel.strategies:optimal_strategy",
    "ladder-v2.1": "matcher.duel.strategies:ladder_strategy",
    "rebalance": "matcher.teams.strategies:rebalance_strategy",
    "game-queue": "matcher.teams.strategies:game_queue_strategy",
    "multifactor": "matcher.multifactor.strategy:multifactor_strategy",
}

#: Each strategy's profile check: the same parsing its first lines do on every wave, run
#: once when settings load so a typo stops the start instead of every wave.
_CHECKS: dict[str, str | ProfileCheck] = {
    "optimal": "matcher.strategies:_check_optimal",
    "ladder-v2.1": "matcher.strategies:_check_ladder",
    "rebalance": "matcher.teams.strategies:rebalance_settings",
    "game-queue": "matcher.teams.strategies:game_queue_settings",
    "multifactor": "matcher.multifactor.strategy:multifactor_settings",
}


#: The checker beside each strategy (common rules plus the strategy's own: sides,
#: windows, roles); a plug-in registered without one is held to the common rules.
_CHECKERS: dict[str, str | Checker] = {
    "optimal": "matcher.duel.checks:duel_result_problems",
    "ladder-v2.1": "matcher.duel.checks:duel_result_problems",
    "rebalance": "matcher.teams.checks:team_result_problems",
    "game-queue": "matcher.teams.checks:team_result_problems",
    "multifactor": "matcher.multifactor.checks:multifactor_result_problems",
}


#: A strategy's decision revision: raised whenever its matches for the same input change
#: (the CHANGELOG then says "results differ"). The config fingerprint includes it, so a
#: replay under another release reports "another configuration" instead of comparing
#: decisions made by different code. tests/test_decision_revisions.py fails when a
#: strategy's decisions change and its revision did not.
_REVISIONS: dict[str, int] = {
    # Every strategy's last raise: stage 7 places a match on the latency-best region's
    # servers and channels rotate over the region's matches across waves (ADR 0105).
    # optimal 11: the tier table of docs/optimal.md (ADR 0080): rustworkx's blossom up to
    # 400 players, one relaxation above, pre-pass above 1,000 (earlier revisions: ADR index);
    # 13: the large tier completes its matching and pairs equal-rating twins (ADR 0121)
    "optimal": 13,
    "ladder-v2.1": 2,
    # rebalance, game-queue 2: the queue's rules, and a strict wave's left-out parties
    # completed when the sweep missed a match (ADR 0101, 0102)
    "rebalance": 3,
    "game-queue": 3,
    # multifactor 2: packing fallback and aimed restarts (ADR 0053); 3: skill factors fall
    # as 1 / (1 + gap / scale) instead of flooring at 0, and matches breaking the queue's
    # rules are dropped (ADR 0101); 5: a match the completion finds is no longer lost when
    # its tickets' priority order packs into no full team (ADR 0122)
    "multifactor": 5,
}
#: Plug-ins registered without a revision.
DEFAULT_REVISION: Final = 1


class UnknownStrategy(KeyError):
    pass


def register_strategy(
    name: str,
    strategy: Strategy,
    revision: int = DEFAULT_REVISION,
    check: ProfileCheck | None = None,
    checker: Checker = wave_result_problems,
) -> None:
    """Register ``strategy`` under ``name`` (plug-ins and tests); names are never replaced.

    Raise ``revision`` whenever the strategy's decisions change (see ``_REVISIONS``).
    ``check`` validates a profile's options at start (see :func:`check_profile`);
    ``checker`` judges its results (see ``_CHECKERS``).
    """
    if name in _REGISTRY:
        raise ValueError(f"strategy {name!r} is already registered")
    _REGISTRY[name] = strategy
    _REVISIONS[name] = revision
    _CHECKERS[name] = checker
    if check is not None:
        _CHECKS[name] = check


def check_profile(profile: QueueProfile) -> object:
    """Validate ``profile`` for its strategy; return the strategy's typed config.

    Raises ValueError whose message names the field (``options.<name>: reason``,
    ``team_count: reason``...). A strategy registered without a check accepts any options.

    >>> check_profile(QueueProfile("q", "rebalance", ("m",), options={"methd": "greedy"}))
    Traceback (most recent call last):
    ValueError: options.methd: unknown option (known: alpha, max_sequences, method, p, q)
    """
    get_strategy(profile.strategy)
    target = _CHECKS.get(profile.strategy)
    if target is None:
        return None
    if isinstance(target, str):
        module_name, _, attribute = target.partition(":")
        target = getattr(importlib.import_module(module_name), attribute)
    assert callable(target)
    return target(profile)


def decision_revision(name: str) -> int:
    """The decision revision of the strategy registered as ``name`` (see ``_REVISIONS``)."""
    if name not in _REGISTRY:
        raise _unknown(name)
    return _REVISIONS.get(name, DEFAULT_REVISION)


def strategy_names() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def get_strategy(name: str) -> Strategy:
    """Return the strategy registered as ``name``; raise UnknownStrategy otherwise."""
    try:
        target = _REGISTRY[name]
    except KeyError:
        raise _unknown(name) from None
    if not isinstance(target, str):
        return target
    module_name, _, attribute = target.partition(":")
    strategy: Strategy = getattr(importlib.import_module(module_name), attribute)
    return strategy


def get_checker(name: str) -> Checker:
    """The checker of the strategy registered as ``name``; raise UnknownStrategy otherwise."""
    if name not in _REGISTRY:
        raise _unknown(name)
    target = _CHECKERS.get(name, wave_result_problems)
    if not isinstance(target, str):
        return target
    module_name, _, attribute = target.partition(":")
    checker: Checker = getattr(importlib.import_module(module_name), attribute)
    return checker


def result_problems(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> list[str]:
    """Every rule ``result`` breaks under the queue's strategy's checker (empty when valid).

    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> result_problems(snapshot, QueueProfile("q", "optimal", ("m",)),
    ...                 WaveResult("optimal", (), ()))
    []

    Notes: that checker's cost, O(players) for the built-in ones.
    """
    return get_checker(profile.strategy)(snapshot, profile, result)


def _unknown(name: str) -> UnknownStrategy:
    known = ", ".join(strategy_names())
    return UnknownStrategy(f"unknown strategy {name!r} (known: {known})")


#: The rules (matcher/rules) each strategy honours; a rule its strategy does not honour
#: is refused at start rather than ignored. A 1v1 has no spread or team gap beyond the
#: pair's distance (``max_distance``), and ``ladder-v2.1`` is the reference pipeline as
#: designed (its pressure windows), so it reads the rating key alone. Plug-ins honour none.
_ALL_RULES = frozenset(
    {"rating", "max_spread", "max_team_gap", "max_distance", "max_latency_ms", "attributes"}
    | {"rematch"}
)
RULES_HONOURED_BY: dict[str, frozenset[str]] = {
    "rebalance": _ALL_RULES,
    "game-queue": _ALL_RULES,
    "multifactor": _ALL_RULES,
    "optimal": frozenset({"rating", "max_distance", "max_latency_ms", "attributes", "rematch"}),
    "ladder-v2.1": frozenset({"rating"}),
}


def check_rules(profile: QueueProfile) -> object:
    """Validate ``profile.rules`` for its strategy; ValueError names the bad field.

    >>> check_rules(QueueProfile("q", "optimal", ("m",), rules={"max_spread": 100}))
    Traceback (most recent call last):
    ValueError: rules.max_spread: not honoured by strategy 'optimal' (it honours: ...)
    """
    from matcher.rules import parse_rules

    rules = parse_rules(profile.rules)
    if not profile.rules:
        return rules
    honoured = RULES_HONOURED_BY.get(profile.strategy, frozenset())
    for name in sorted(profile.rules):
        if name not in honoured:
            known = ", ".join(sorted(honoured)) or "none"
            raise ValueError(
                f"rules.{name}: not honoured by strategy {profile.strategy!r} (it honours: {known})"
            )
    if rules.rating is not None and profile.roles:
        raise ValueError("rules.rating: a role queue rates each seat by its role; leave it unset")
    return rules


def run_wave(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close one wave with the queue's strategy, players rated on the queue's rating key."""
    if profile.rules:
        from matcher.rules.check import queue_rules, rated_snapshot

        snapshot = rated_snapshot(snapshot, queue_rules(profile))
    return get_strategy(profile.strategy)(snapshot, profile)


def _check_optimal(profile: QueueProfile) -> object:
    from matcher.duel.model import OPTIMAL_DEFAULTS

    return _check_duel(profile, OPTIMAL_DEFAULTS)


def _check_ladder(profile: QueueProfile) -> object:
    from matcher.duel.model import LADDER_DEFAULTS

    return _check_duel(profile, LADDER_DEFAULTS)


def _check_duel(profile: QueueProfile, defaults: object) -> object:
    # matcher.duel.model alone: the strategies module would import SciPy into every
    # command that reads settings.
    from matcher.duel.model import DuelConfig, parse_config

    assert isinstance(defaults, DuelConfig)
    if profile.team_count != 2 or profile.team_size != 1:
        raise ValueError("profile: duel strategies need team_count 2 and team_size 1")
    return parse_config(profile.options, defaults)
