"""Strategy options of team queues: ``profile.options`` parsed into frozen configs.

Every option is checked once per wave; an unknown name or a bad value raises a
ValueError whose message starts with ``options.<name>:`` and says why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from matcher.core import QueueProfile
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import TeamShape, team_shape
from matcher.teams.rebalance import DEFAULT_MAX_SEQUENCES, METHODS
from matcher.teams.skill import Dimensions, parse_dimensions
from matcher.teams.step_config import check_team_steps
from matcher.teams.window import DEFAULT_MAX_NODES

MODES = ("offline", "queue")
#: How a role queue's queue mode plays parties: offline grouping, or role intervals too.
ROLE_PARTIES = ("offline", "interval")


@dataclass(frozen=True, slots=True)
class RebalanceConfig:
    method: str = "auto"
    max_sequences: int = DEFAULT_MAX_SEQUENCES
    imbalance: Imbalance = field(default_factory=Imbalance)


@dataclass(frozen=True, slots=True)
class GameQueueConfig:
    imbalance: Imbalance = field(default_factory=Imbalance)
    beta: float = 0.0
    mode: str = "offline"
    window: int | None = None
    max_imbalance: float | None = None
    max_nodes: int = DEFAULT_MAX_NODES
    #: Named ratings weighed into the imbalance (matcher/teams/skill.py); empty: off.
    skill_dimensions: Dimensions = ()
    #: Queue mode with roles: "interval" plays parties in the role intervals (ADR 0188).
    role_parties: str = "offline"


def rebalance_config(options: Mapping[str, object]) -> RebalanceConfig:
    """Parse the rebalance strategy's options.

    >>> rebalance_config({"method": "greedy"}).method
    'greedy'
    >>> rebalance_config({"methd": "greedy"})
    Traceback (most recent call last):
    ValueError: options.methd: unknown option (known: alpha, max_sequences, method, p, q)
    """
    _reject_unknown(options, ("method", "max_sequences", "alpha", "p", "q"))
    method = options.get("method", "auto")
    if method not in METHODS:
        raise ValueError(f"options.method: {method!r} is not one of {', '.join(METHODS)}")
    return RebalanceConfig(
        method=str(method),
        max_sequences=_integer(options, "max_sequences", DEFAULT_MAX_SEQUENCES, 1),
        imbalance=_imbalance(options),
    )


def game_queue_config(options: Mapping[str, object]) -> GameQueueConfig:
    """Parse the game-queue strategy's options.

    >>> game_queue_config({"q": "inf", "beta": 0.5}).imbalance.q
    inf
    >>> game_queue_config({"alpha": -1})
    Traceback (most recent call last):
    ValueError: options.alpha: must be a number >= 0 (got -1)
    """
    known = ("alpha", "p", "q", "beta", "mode", "window", "max_imbalance", "max_nodes")
    _reject_unknown(options, (*known, "skill_dimensions", "role_parties"))
    mode = options.get("mode", "offline")
    if mode not in MODES:
        raise ValueError(f"options.mode: {mode!r} is not one of {', '.join(MODES)}")
    window = options.get("window")
    limit = options.get("max_imbalance")
    return GameQueueConfig(
        imbalance=_imbalance(options),
        beta=_number(options, "beta", 0.0, 0.0),
        mode=str(mode),
        window=None if window is None else _integer(options, "window", 0, 2),
        max_imbalance=None if limit is None else _number(options, "max_imbalance", 0.0, 0.0),
        max_nodes=_integer(options, "max_nodes", DEFAULT_MAX_NODES, 1),
        skill_dimensions=_dimensions(options, str(mode), limit),
        role_parties=_role_parties(options, str(mode)),
    )


def _role_parties(options: Mapping[str, object], mode: str) -> str:
    value = options.get("role_parties", "offline")
    if value not in ROLE_PARTIES:
        raise ValueError(f"options.role_parties: {value!r} is not one of {', '.join(ROLE_PARTIES)}")
    if value != "offline" and mode != "queue":
        raise ValueError('options.role_parties: needs mode = "queue" (the role intervals)')
    return str(value)


def _dimensions(options: Mapping[str, object], mode: str, limit: object) -> Dimensions:
    if "skill_dimensions" not in options:
        return ()
    dimensions = parse_dimensions(options["skill_dimensions"])
    # The vector imbalance is searched by the offline partition's exact splits only.
    if mode != "offline":
        raise ValueError('options.skill_dimensions: needs mode = "offline"')
    if limit is not None:
        raise ValueError("options.skill_dimensions: not with max_imbalance")
    return dimensions


def _reject_unknown(options: Mapping[str, object], known: tuple[str, ...]) -> None:
    for name in sorted(options):
        if name not in known:
            raise ValueError(f"options.{name}: unknown option (known: {', '.join(sorted(known))})")


def _imbalance(options: Mapping[str, object]) -> Imbalance:
    return Imbalance(
        alpha=_number(options, "alpha", 1.0, 0.0),
        p=_norm(options, "p", 1.0),
        q=_norm(options, "q", 2.0),
    )


def _number(options: Mapping[str, object], name: str, default: float, minimum: float) -> float:
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"options.{name}: must be a number >= {minimum:g} (got {value!r})")
    if value < minimum:
        raise ValueError(f"options.{name}: must be a number >= {minimum:g} (got {value!r})")
    return float(value)


def _norm(options: Mapping[str, object], name: str, default: float) -> float:
    value = options.get(name, default)
    if value in ("inf", "infinity"):
        return math.inf
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 1:
        raise ValueError(f'options.{name}: must be a number >= 1 or "inf" (got {value!r})')
    return float(value)


def _integer(options: Mapping[str, object], name: str, default: int, minimum: int) -> int:
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"options.{name}: must be an integer >= {minimum} (got {value!r})")
    return value


# The start-up checks of the team strategies (matcher.strategies): here, beside the
# options, so that checking a queue's settings does not import the solvers.


def rebalance_settings(profile: QueueProfile) -> tuple[TeamShape, RebalanceConfig]:
    """The team shape and options of a ``rebalance`` queue; ValueError names a bad field."""
    shape = team_shape(profile)
    check_team_steps(profile, frozenset({"team_count", "team_size"}))
    return shape, rebalance_config(profile.options)


def game_queue_settings(profile: QueueProfile) -> tuple[TeamShape, GameQueueConfig]:
    """The team shape and options of a ``game-queue`` queue; ValueError names a bad field."""
    shape = _shape_for_game_queue(profile)
    # Two teams always (the game queue's model); the size may shrink, k vs k.
    check_team_steps(profile, frozenset({"team_size"}))
    config = game_queue_config(profile.options)
    if config.role_parties != "offline" and not shape.roles:
        raise ValueError("options.role_parties: needs the queue's roles")
    if config.skill_dimensions and shape.role_rated:
        raise ValueError("options.skill_dimensions: a role queue rates each seat by its role")
    if config.skill_dimensions and profile.rules and profile.ruleset.rating is not None:
        raise ValueError("options.skill_dimensions: not with rules.rating (one rating key)")
    return shape, config


def _shape_for_game_queue(profile: QueueProfile) -> TeamShape:
    shape = team_shape(profile)
    if shape.team_count != 2:
        raise ValueError(f"team_count: the game queue plays two teams (got {shape.team_count})")
    if not shape.strict:
        raise ValueError("team_size_min: the game queue needs strict team sizes (k vs k)")
    return shape
