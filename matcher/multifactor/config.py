"""Weights and knobs of the multifactor strategy, parsed from ``QueueProfile.options``.

Every default is documented in docs/multifactor.md with its trade-off; the numbers
here are the single source. Parsing accepts numbers or numeric strings (settings and
JSON snapshots carry either) and rejects an unknown or invalid option with its name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from itertools import pairwise

from matcher.core import QueueProfile

#: Fixed-point unit of pair scores and penalties. Sums of integers held in float64 are
#: exact in any order, so BLAS or SIMD reductions cannot change a search decision on
#: another machine (audit replay); 1e-6 is far below any weight anyone would tune.
UNIT = 1_000_000

#: Perceived ping curve, (round-trip ms, score) points, linearly interpolated: flat
#: while nobody notices, steep around 100 ms, flat again when everything is bad
#: already. 110 -> 100 ms gains 0.06, 210 -> 200 ms only 0.02.
DEFAULT_PING_CURVE: tuple[tuple[int, float], ...] = (
    (0, 1.0),
    (50, 1.0),
    (100, 0.75),
    (150, 0.45),
    (200, 0.25),
    (300, 0.05),
    (400, 0.0),
)

#: The largest round trip a join may report (schemas: TicketJoined latency_ms).
MAX_ROUND_TRIP_MS = 60_000

FACTORS = ("team_skill", "player_skill", "premades", "ping", "variation", "hosts")


class OptionError(ValueError):
    """An option of the queue profile is unknown or invalid; the message names it."""


@dataclass(frozen=True, slots=True)
class MultifactorConfig:
    """Weights and factor parameters of one multifactor queue (see docs/multifactor.md).

    >>> MultifactorConfig().weight_hosts
    0.0
    """

    weight_team_skill: float = 3.0
    weight_player_skill: float = 1.0
    weight_premades: float = 1.0
    weight_ping: float = 2.0
    weight_variation: float = 1.0
    weight_hosts: float = 0.0
    rating_floor: int = 0
    rating_ceiling: int = 3000
    team_skill_scale: float = 200.0
    player_skill_scale: float = 500.0
    premade_small_score: float = 0.6
    ping_curve: tuple[tuple[int, float], ...] = DEFAULT_PING_CURVE
    ping_unknown_ms: int = 150
    variation_repeat_penalty: float = 1.0
    variation_swapped_penalty: float = 0.5
    hosts_one_score: float = 0.5
    worst_match_emphasis: float = 0.0
    budget_evaluations: int = 400_000
    max_restarts: int = 1_000
    restart_jitter: float = 0.5
    restart_kicks: int = 6
    #: 1: a pair's ping is its measured round trip (Player.peer_latency_ms) when either
    #: reported it, else the estimate via regions; 0: the estimate always (docs/adr/0185).
    ping_peer: int = 0
    #: > 0: a match needs a player with can_host whose round trip to every other player
    #: is within this many ms; the host is named in the match's server (docs/adr/0185).
    p2p_host_max_ms: int = 0

    def __post_init__(self) -> None:
        for name in (f"weight_{factor}" for factor in FACTORS):
            _require(name, getattr(self, name) >= 0, "must be >= 0")
        _require("weight_*", self.total_weight() > 0, "at least one weight must be > 0")
        _require(
            "rating_ceiling", self.rating_ceiling > self.rating_floor, "must be > rating_floor"
        )
        for name in ("team_skill_scale", "player_skill_scale"):
            _require(name, getattr(self, name) > 0, "must be > 0")
        for name in (
            "premade_small_score",
            "variation_repeat_penalty",
            "variation_swapped_penalty",
            "hosts_one_score",
        ):
            _require(name, 0 <= getattr(self, name) <= 1, "must be within [0, 1]")
        _require("ping_unknown_ms", self.ping_unknown_ms >= 0, "must be >= 0")
        _require("worst_match_emphasis", self.worst_match_emphasis >= 0, "must be >= 0")
        _require("budget_evaluations", self.budget_evaluations >= 1, "must be >= 1")
        _require("max_restarts", self.max_restarts >= 0, "must be >= 0")
        _require("restart_jitter", self.restart_jitter >= 0, "must be >= 0")
        _require("restart_kicks", self.restart_kicks >= 0, "must be >= 0")
        _require("ping_peer", self.ping_peer in (0, 1), "must be 0 (regions) or 1 (peers)")
        _require(
            "p2p_host_max_ms",
            0 <= self.p2p_host_max_ms <= MAX_ROUND_TRIP_MS,
            f"must be within [0, {MAX_ROUND_TRIP_MS}] (0: off)",
        )
        _check_curve(self.ping_curve)

    def weights(self) -> tuple[float, ...]:
        """Weights in :data:`FACTORS` order."""
        return tuple(float(getattr(self, f"weight_{factor}")) for factor in FACTORS)

    def total_weight(self) -> float:
        return sum(self.weights())


def _require(name: str, ok: bool, reason: str) -> None:
    if not ok:
        raise OptionError(f"{name}: {reason}")


def _check_curve(curve: tuple[tuple[int, float], ...]) -> None:
    _require("ping_curve", len(curve) >= 1, "needs at least one (ms, score) point")
    _require("ping_curve", curve[0][0] == 0, "must start at 0 ms")
    for (ms_a, score_a), (ms_b, score_b) in pairwise(curve):
        _require("ping_curve", ms_b > ms_a, "milliseconds must increase")
        _require("ping_curve", score_b <= score_a, "scores must not increase with ping")
    _require(
        "ping_curve", all(0 <= score <= 1 for _, score in curve), "scores must be within [0, 1]"
    )


def parse_config(options: Mapping[str, object]) -> MultifactorConfig:
    """Build the config from profile options; unknown or invalid ones raise OptionError.

    >>> parse_config({"weight_ping": "0.5", "ping_curve": "0:1, 100:0.5, 200:0"}).ping_curve
    ((0, 1.0), (100, 0.5), (200, 0.0))
    >>> try:
    ...     parse_config({"weight_pings": 1})
    ... except OptionError as error:
    ...     print(error)
    weight_pings: unknown multifactor option
    """
    kinds = {f.name: f.type for f in fields(MultifactorConfig)}
    values: dict[str, object] = {}
    for name, raw in options.items():
        kind = kinds.get(name)
        if kind is None:
            raise OptionError(f"{name}: unknown multifactor option")
        if name == "ping_curve":
            values[name] = _parse_curve(raw)
        else:
            values[name] = _parse_number(name, raw, integer=kind == "int")
    return MultifactorConfig(**values)  # type: ignore[arg-type]


def _parse_number(name: str, raw: object, *, integer: bool) -> float | int:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise OptionError(f"{name}: expected a number, got {raw!r}")
    try:
        value = float(raw)
    except ValueError:
        raise OptionError(f"{name}: expected a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise OptionError(f"{name}: must be finite")
    if integer:
        if value != int(value):
            raise OptionError(f"{name}: expected a whole number, got {raw!r}")
        return int(value)
    return value


def _parse_curve(raw: object) -> tuple[tuple[int, float], ...]:
    pairs: list[object]
    if isinstance(raw, str):
        pairs = [item.split(":") for item in raw.split(",") if item.strip()]
    elif isinstance(raw, list | tuple):
        pairs = list(raw)
    else:
        raise OptionError(f"ping_curve: expected 'ms:score, ...' or (ms, score) pairs, got {raw!r}")
    curve: list[tuple[int, float]] = []
    for pair in pairs:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise OptionError(f"ping_curve: {pair!r} is not an (ms, score) pair")
        ms = _parse_number("ping_curve", _strip(pair[0]), integer=True)
        score = _parse_number("ping_curve", _strip(pair[1]), integer=False)
        curve.append((int(ms), float(score)))
    return tuple(curve)


def _strip(value: object) -> object:
    return value.strip() if isinstance(value, str) else value


# The start-up check of the strategy (matcher.strategies): here, beside the options, so
# that checking a queue's settings does not import the search.


def multifactor_settings(profile: QueueProfile) -> MultifactorConfig:
    """The options of a multifactor queue; OptionError (a ValueError) names a bad field.

    >>> multifactor_settings(QueueProfile("q", "multifactor", ("m",), options={"weight_pings": 1}))
    Traceback (most recent call last):
    matcher.multifactor.config.OptionError: options.weight_pings: unknown multifactor option
    """
    try:
        config = parse_config(profile.options)
    except OptionError as error:
        raise OptionError(f"options.{error}") from None
    if profile.team_count != 2:
        raise OptionError(
            f"team_count: multifactor plays exactly 2 teams, got {profile.team_count}"
        )
    if profile.team_size < 1:
        raise OptionError(f"team_size: must be >= 1, got {profile.team_size}")
    if profile.roles:
        raise OptionError("roles: multifactor does not assign roles; use a queue without roles")
    if profile.team_size_min is not None and profile.team_size_min != profile.team_size:
        raise OptionError("team_size_min: multifactor plays full teams only; leave it unset")
    return config
