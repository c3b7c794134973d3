"""Strategies by name: the one place a queue's ``strategy`` setting is resolved.

Entries are imported lazily so that running one strategy never pays for the
import of another (numpy for ``optimal``, say).
"""

from __future__ import annotations

import importlib

from matcher.core import QueueProfile, Strategy, WaveResult, WaveSnapshot

_REGISTRY: dict[str, str | Strategy] = {
    "optimal": "matcher.duel.strategies:optimal_strategy",
    "ladder-v2.1": "matcher.duel.strategies:ladder_strategy",
    "rebalance": "matcher.teams.strategies:rebalance_strategy",
    "game-queue": "matcher.teams.strategies:game_queue_strategy",
    "multifactor": "matcher.multifactor.strategy:multifactor_strategy",
}


class UnknownStrategy(KeyError):
    pass


def register_strategy(name: str, strategy: Strategy) -> None:
    """Register ``strategy`` under ``name`` (plug-ins and tests); names are never replaced."""
    if name in _REGISTRY:
        raise ValueError(f"strategy {name!r} is already registered")
    _REGISTRY[name] = strategy


def strategy_names() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def get_strategy(name: str) -> Strategy:
    """Return the strategy registered as ``name``; raise UnknownStrategy otherwise."""
    try:
        target = _REGISTRY[name]
    except KeyError:
        known = ", ".join(strategy_names())
        raise UnknownStrategy(f"unknown strategy {name!r} (known: {known})") from None
    if not isinstance(target, str):
        return target
    module_name, _, attribute = target.partition(":")
    strategy: Strategy = getattr(importlib.import_module(module_name), attribute)
    return strategy


def run_wave(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close one wave with the queue's strategy."""
    return get_strategy(profile.strategy)(snapshot, profile)
