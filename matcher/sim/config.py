"""What a simulation runs: scenarios (one queue, its regions and players) and variants.

A scenario fixes the arrival stream; each of its variants (strategy, wave cadence,
options) is run on that same stream. :func:`config_from_mapping` builds the frozen
config from plain data (a parsed TOML file) and raises :class:`ConfigError` with a
one-line message naming the field, so the CLI never shows a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from matcher.queue.cadence import CadencePolicy

DUEL = "duel"
TEAM = "team"
DUEL_RACES = ("bw", "sc2")
DEFAULT_RACE_WEIGHTS = (0.45, 0.45, 0.1)
DEFAULT_MAPS = ("Fighting Spirit", "Circuit Breaker", "Polypoid")


class ConfigError(ValueError):
    """A simulation config is invalid; the message is one line naming the field."""


@dataclass(frozen=True, slots=True)
class RegionSpec:
    """Where players come from: arrival rate over the day and their ratings.

    ``sessions_per_hour`` is the peak rate of new sessions (parties); the rate at hour
    ``h`` is that times ``curve[h * len(curve) // 24]`` (a time-of-day profile).
    """

    name: str
    sessions_per_hour: float
    rating_mean: float = 1500.0
    rating_sd: float = 300.0
    curve: tuple[float, ...] = (1.0,)


@dataclass(frozen=True, slots=True)
class Behaviour:
    """How players behave: parties, patience, session length and re-queueing.

    ``party_weights[i]`` is the relative weight of a party of ``i + 1`` players.
    ``leave_per_wave`` is the chance a searching ticket gives up at each wave.
    ``games_per_session`` is the mean number of matches a session plays (geometric).
    ``race_weights`` (duel queues) weigh players rated for bw only, sc2 only, both.
    """

    party_weights: tuple[float, ...] = (1.0,)
    leave_per_wave: float = 0.02
    games_per_session: float = 3.0
    game_length_s: float = 900.0
    race_weights: tuple[float, float, float] = DEFAULT_RACE_WEIGHTS


@dataclass(frozen=True, slots=True)
class PeerSpec:
    """Where players sit, for peer-to-peer round trips (matcher/sim/geography.py).

    Players are spread uniformly over a disc of ``radius_ms`` around their region's
    server; a round trip is ``base_ms`` plus the distance, in ms, so round trips between
    players and to the region agree as a map would. Each player measured ``measured``
    others of its region (those whose sessions start nearest in time); ``hosts`` is the
    share of players able to host (``can_host``).
    """

    radius_ms: float = 60.0
    base_ms: float = 10.0
    measured: int = 100
    hosts: float = 0.3


@dataclass(frozen=True, slots=True)
class Variant:
    """One way to run the queue: a strategy, its options, its rules and a wave cadence."""

    name: str
    strategy: str
    cadence: CadencePolicy
    options: Mapping[str, object] = field(default_factory=dict)
    rules: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    queue: str
    kind: str
    team_size: int
    regions: tuple[RegionSpec, ...]
    behaviour: Behaviour
    variants: tuple[Variant, ...]
    duration_s: int = 3600
    start_hour: float = 18.0
    ticket_ttl_ms: int = 600_000
    maps: tuple[str, ...] = DEFAULT_MAPS
    #: Player positions and round trips between players; None: players as before.
    peers: PeerSpec | None = None
    #: Team queues: the queue's role slots per team; players then offer one or two roles.
    roles: tuple[str, ...] = ()
    #: Team queues: named ratings every player also carries beside "any" (skill_dimensions).
    skill_dimensions: tuple[str, ...] = ()

    @property
    def players_per_match(self) -> int:
        return 2 * self.team_size


@dataclass(frozen=True, slots=True)
class SimConfig:
    seed: int
    scenarios: tuple[Scenario, ...]


def config_from_mapping(data: Mapping[str, Any]) -> SimConfig:
    """Build and validate a :class:`SimConfig` from parsed TOML.

    >>> config = config_from_mapping({"seed": 1, "scenario": [{"name": "s", "queue": "1v1",
    ...     "region": [{"name": "eu", "sessions_per_hour": 60}],
    ...     "variant": [{"name": "v", "strategy": "optimal"}]}]})
    >>> config.scenarios[0].variants[0].cadence.mode
    'fixed'
    >>> config_from_mapping({"seed": "x"})
    Traceback (most recent call last):
    matcher.sim.config.ConfigError: seed: must be an integer

    Notes: O(size of the config).
    """
    _known(data, "", {"seed", "scenario"})
    seed = _int(data, "seed", "", None)
    scenarios = _list(data, "scenario", "")
    if not scenarios:
        raise ConfigError("scenario: at least one [[scenario]] is required")
    built = tuple(_scenario(s, f"scenario[{i}]") for i, s in enumerate(scenarios))
    names = [s.name for s in built]
    if len(set(names)) != len(names):
        raise ConfigError("scenario.name: scenario names must be distinct")
    return SimConfig(seed, built)


def _scenario(data: Mapping[str, Any], where: str) -> Scenario:
    _known(
        data,
        where,
        {
            "name",
            "queue",
            "kind",
            "team_size",
            "duration_s",
            "start_hour",
            "ticket_ttl_ms",
            "maps",
            "region",
            "behaviour",
            "variant",
            "peers",
            "roles",
            "skill_dimensions",
        },
    )
    kind = _str(data, "kind", where, DUEL if data.get("team_size", 1) == 1 else TEAM)
    if kind not in (DUEL, TEAM):
        raise ConfigError(f"{where}.kind: must be {DUEL!r} or {TEAM!r}")
    team_size = _int(data, "team_size", where, 1, low=1, high=16)
    if kind == DUEL and team_size != 1:
        raise ConfigError(f"{where}.team_size: a duel queue has teams of 1")
    regions = tuple(
        _region(r, f"{where}.region[{i}]") for i, r in enumerate(_list(data, "region", where))
    )
    variants = tuple(
        _variant(v, f"{where}.variant[{i}]") for i, v in enumerate(_list(data, "variant", where))
    )
    if not regions or not variants:
        raise ConfigError(f"{where}: needs at least one [[region]] and one [[variant]]")
    named = (("region", [r.name for r in regions]), ("variant", [v.name for v in variants]))
    for label, names in named:
        if len(set(names)) != len(names):
            raise ConfigError(f"{where}.{label}.name: names must be distinct")
    behaviour = _behaviour(_table(data, "behaviour", where), f"{where}.behaviour", team_size)
    maps = tuple(str(m) for m in _list(data, "maps", where)) or DEFAULT_MAPS
    roles = tuple(str(r) for r in _list(data, "roles", where))
    if roles and (kind != TEAM or len(roles) != team_size):
        raise ConfigError(f"{where}.roles: a team queue's role slots, one per seat (team_size)")
    dimensions = tuple(str(d) for d in _list(data, "skill_dimensions", where))
    if dimensions and (kind != TEAM or roles):
        raise ConfigError(f"{where}.skill_dimensions: team queues without roles only")
    return Scenario(
        name=_str(data, "name", where, None),
        queue=_str(data, "queue", where, None),
        kind=kind,
        team_size=team_size,
        regions=regions,
        behaviour=behaviour,
        variants=variants,
        duration_s=_int(data, "duration_s", where, 3600, low=60, high=7 * 86_400),
        start_hour=_float(data, "start_hour", where, 18.0, low=0.0, high=24.0),
        ticket_ttl_ms=_int(data, "ticket_ttl_ms", where, 600_000, low=1_000),
        maps=maps,
        peers=_peers(_table(data, "peers", where), f"{where}.peers") if "peers" in data else None,
        roles=roles,
        skill_dimensions=dimensions,
    )


def _peers(data: Mapping[str, Any], where: str) -> PeerSpec:
    _known(data, where, {"radius_ms", "base_ms", "measured", "hosts"})
    return PeerSpec(
        radius_ms=_float(data, "radius_ms", where, 60.0, low=0.0, high=10_000.0),
        base_ms=_float(data, "base_ms", where, 10.0, low=0.0, high=10_000.0),
        # TicketJoined carries at most 100 round trips to other players.
        measured=_int(data, "measured", where, 100, low=0, high=100),
        hosts=_float(data, "hosts", where, 0.3, low=0.0, high=1.0),
    )


def _region(data: Mapping[str, Any], where: str) -> RegionSpec:
    _known(data, where, {"name", "sessions_per_hour", "rating_mean", "rating_sd", "curve"})
    curve = tuple(_number(v, f"{where}.curve") for v in _list(data, "curve", where)) or (1.0,)
    if any(c < 0 for c in curve) or not any(c > 0 for c in curve):
        raise ConfigError(f"{where}.curve: multipliers must be >= 0, at least one > 0")
    return RegionSpec(
        name=_str(data, "name", where, None),
        sessions_per_hour=_float(data, "sessions_per_hour", where, None, low=0.001, high=1e6),
        rating_mean=_float(data, "rating_mean", where, 1500.0, low=0.0, high=10_000.0),
        rating_sd=_float(data, "rating_sd", where, 300.0, low=0.0, high=5_000.0),
        curve=curve,
    )


def _behaviour(data: Mapping[str, Any], where: str, team_size: int) -> Behaviour:
    _known(
        data,
        where,
        {"party_weights", "leave_per_wave", "games_per_session", "game_length_s", "race_weights"},
    )
    parties = tuple(
        _number(v, f"{where}.party_weights") for v in _list(data, "party_weights", where)
    ) or (1.0,)
    if len(parties) > team_size or any(w < 0 for w in parties) or not any(parties):
        raise ConfigError(f"{where}.party_weights: up to team_size weights >= 0, one > 0")
    races = (
        tuple(_number(v, f"{where}.race_weights") for v in _list(data, "race_weights", where))
        or DEFAULT_RACE_WEIGHTS
    )
    if len(races) != 3 or any(w < 0 for w in races) or not any(races):
        raise ConfigError(f"{where}.race_weights: three weights (bw, sc2, both) >= 0, one > 0")
    return Behaviour(
        party_weights=parties,
        leave_per_wave=_float(data, "leave_per_wave", where, 0.02, low=0.0, high=1.0),
        games_per_session=_float(data, "games_per_session", where, 3.0, low=1.0, high=1000.0),
        game_length_s=_float(data, "game_length_s", where, 900.0, low=0.0, high=86_400.0),
        race_weights=(races[0], races[1], races[2]),
    )


def _variant(data: Mapping[str, Any], where: str) -> Variant:
    _known(
        data,
        where,
        {
            "name",
            "strategy",
            "wave_interval_ms",
            "cadence",
            "target_matches",
            "floor_ms",
            "cap_ms",
            "smoothing",
            "trigger_tickets",
            "options",
            "rules",
        },
    )
    try:
        mode = _str(data, "cadence", where, "fixed")
        cadence = CadencePolicy(
            mode=mode,
            interval_ms=_int(data, "wave_interval_ms", where, 10_000, low=100),
            target_matches=_float(data, "target_matches", where, 2.5, low=0.01, high=1e4),
            # A size trigger's floor is a gap between waves, not a pop timer's interval.
            floor_ms=_int(data, "floor_ms", where, 250 if mode == "size" else 5_000, low=20),
            cap_ms=_int(data, "cap_ms", where, 90_000, low=100),
            smoothing=_float(data, "smoothing", where, 0.3, low=0.0, high=1.0),
            trigger_tickets=_int(data, "trigger_tickets", where, 2, low=2),
        )
    except ValueError as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"{where}.{error}") from None
    return Variant(
        _str(data, "name", where, None),
        _str(data, "strategy", where, None),
        cadence,
        dict(_table(data, "options", where)),
        dict(_table(data, "rules", where)),
    )


# -- typed field readers: each names the field in its error ---------------------------

_MISSING: Any = object()


def _known(data: Mapping[str, Any], where: str, allowed: set[str]) -> None:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where or 'config'}: must be a table")
    unknown = sorted(set(data) - allowed)
    if unknown:
        prefix = f"{where}." if where else ""
        known = ", ".join(sorted(allowed))
        raise ConfigError(f"{prefix}{unknown[0]}: unknown field (known: {known})")


def _get(data: Mapping[str, Any], key: str, where: str, default: Any) -> Any:
    if key in data:
        return data[key]
    if default is None:
        raise ConfigError(f"{_path(where, key)}: required")
    return default


def _path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _str(data: Mapping[str, Any], key: str, where: str, default: str | None) -> str:
    value = _get(data, key, where, default)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{_path(where, key)}: must be a non-empty string")
    return value


def _int(
    data: Mapping[str, Any],
    key: str,
    where: str,
    default: int | None,
    low: int | None = None,
    high: int | None = None,
) -> int:
    value = _get(data, key, where, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"{_path(where, key)}: must be an integer")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(f"{_path(where, key)}: must be between {low} and {high}")
    return value


def _number(value: Any, where: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ConfigError(f"{where}: must be a number")
    return float(value)


def _float(
    data: Mapping[str, Any], key: str, where: str, default: float | None, low: float, high: float
) -> float:
    value = _number(_get(data, key, where, default), _path(where, key))
    if not low <= value <= high:
        raise ConfigError(f"{_path(where, key)}: must be between {low:g} and {high:g}")
    return value


def _list(data: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise ConfigError(f"{_path(where, key)}: must be a list")
    return value


def _table(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"{_path(where, key)}: must be a table")
    return value
