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

#: A checker: every rule a wave result breaks (empty when valid), common rules included.
Checker = Callable[[WaveSnapshot, QueueProfile, WaveResult], list[str]]

_REGISTRY: dict[str, str | Strategy] = {
    "optimal": "matcher.duel.strategies:optimal_strategy",
    "ladder-v2.1": "matcher.duel.strategies:ladder_strategy",
    "rebalance": "matcher.teams.strategies:rebalance_strategy",
    "game-queue": "matcher.teams.strategies:game_queue_strategy",
    "multifactor": "matcher.multifactor.strategy:multifactor_strategy",
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
    # optimal 11: the tier table of docs/optimal.md (ADR 0080): rustworkx's blossom up to
    # 400 players, one relaxation above, pre-pass above 1,000 (earlier revisions: ADR index)
    "optimal": 11,
    "ladder-v2.1": 1,
    "rebalance": 1,
    "game-queue": 1,
    "multifactor": 2,  # 2: packing fallback and aimed restarts (ADR 0053)
}
#: Plug-ins registered without a revision.
DEFAULT_REVISION: Final = 1


class UnknownStrategy(KeyError):
    pass


def register_strategy(
    name: str,
    strategy: Strategy,
    revision: int = DEFAULT_REVISION,
    checker: Checker = wave_result_problems,
) -> None:
    """Register ``strategy`` under ``name`` (plug-ins and tests); names are never replaced.

    Raise ``revision`` whenever the strategy's decisions change (see ``_REVISIONS``).
    ``checker`` judges its results (see ``_CHECKERS``).
    """
    if name in _REGISTRY:
        raise ValueError(f"strategy {name!r} is already registered")
    _REGISTRY[name] = strategy
    _REVISIONS[name] = revision
    _CHECKERS[name] = checker


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


def run_wave(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close one wave with the queue's strategy."""
    return get_strategy(profile.strategy)(snapshot, profile)
