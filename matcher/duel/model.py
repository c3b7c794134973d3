"""The duel (1v1, BW against SC2) model: players, pairs and the one frozen config.

Every constant of the reference design ("8-stage locally-optimal system v2.1") is a
field of :class:`DuelConfig` with the design's value as its default, so a queue can
tune any of them through ``QueueProfile.options`` without touching code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matcher.ruleset import QueueRuleSet

BW = "bw"
SC2 = "sc2"
WINDOW_RULES = ("lead", "longer", "shorter")
#: ``optimal_choice``: the least-cost matching, or a seeded draw weighted by closeness.
OPTIMAL_CHOICES = ("best", "weighted")
#: The teams of a mirror 1v1 (one rating per player, ``rules.rating``): no races, so
#: named as the team strategies name theirs.
MIRROR_SIDES = ("team1", "team2")


@dataclass(frozen=True, slots=True)
class DuelPlayer:
    """One player of a 1v1 wave; at least one of ``bw_mmr`` / ``sc2_mmr`` is set.

    A player with both ratings is a "both" player and may take either side.
    ``ticket_id`` is the queue ticket the player came in (the player id in the
    offline 1v1 format).
    """

    player_id: str
    bw_mmr: int | None
    sc2_mmr: int | None
    wait_cycles: int = 0
    region: str = ""
    vetoed_maps: tuple[str, ...] = ()
    ticket_id: str = ""

    @property
    def is_both(self) -> bool:
        return self.bw_mmr is not None and self.sc2_mmr is not None

    @property
    def bias(self) -> int:
        """``bw_mmr - sc2_mmr``: positive means the player is stronger as BW."""
        assert self.bw_mmr is not None and self.sc2_mmr is not None
        return self.bw_mmr - self.sc2_mmr


@dataclass(frozen=True, slots=True)
class DuelPair:
    """A match of two players: ``bw`` plays BW with its bw_mmr, ``sc2`` SC2 with its sc2_mmr."""

    bw: DuelPlayer
    sc2: DuelPlayer

    @property
    def diff(self) -> int:
        """Absolute MMR difference of the pair."""
        assert self.bw.bw_mmr is not None and self.sc2.sc2_mmr is not None
        return abs(self.bw.bw_mmr - self.sc2.sc2_mmr)


@dataclass(frozen=True, slots=True)
class Window:
    """A pressure tier's window: ``max_diff = base + wait_cycles * growth``."""

    base: int
    growth: int

    def max_diff(self, wait_cycles: int) -> int:
        return self.base + wait_cycles * self.growth


@dataclass(frozen=True, slots=True)
class DuelConfig:
    """Every constant of the duel strategies, with the reference design's defaults.

    Stage 2: ``mean_gap_limit`` triggers the one neutral move between sides.
    Stage 3: ``pressure = min(1, scale * queue_size / active_population)`` with
    ``small_scale`` up to ``small_population`` active players, ``medium_scale`` up to
    ``medium_population``, else ``large_scale``; the tier thresholds pick a window.
    Stage 5: ``score = diff**2 - wait_bonus * (wait of both players)``.
    Stage 6: ``refinement_passes`` passes of adjacent follow swaps.
    ``window_rule`` says whose wait widens a pair's window: the lead side's player
    (the design), the longer-waiting one, or the shorter-waiting one (mutual acceptance).
    The ``optimal_*`` fields tune only the ``optimal`` strategy (docs/optimal.md): waves
    of at most ``optimal_exact_limit`` players get the proved optimum; larger ones one LP
    relaxation on the ``optimal_neighbours``-nearest candidate graph, where one more pair
    outweighs re-pairing up to ``optimal_relax_cap`` pairs; waves of more than
    ``optimal_prepair_limit`` players first pair equal ratings in dense rating ranges.
    Past ``optimal_sit_out_after`` waves waited, each further wave of a matched player
    outweighs any legal pair's squared gap, so a long-waiting player is not the one left
    out (None: the design's score alone).
    ``window_percentile`` (``optimal`` only; None: off) replaces the points window by a
    share of the wave's rating pool that may lie between a pair (docs/adr/0177).
    ``optimal_choice = "weighted"`` draws, from the wave's seed, which maximum matching
    the small tier returns, a pair's chance falling with ``exp(-score /
    optimal_choice_scale**2)`` (:mod:`matcher.duel.choice`, docs/adr/0181).
    """

    mean_gap_limit: int = 50
    small_population: int = 10
    small_scale: float = 1.2
    medium_population: int = 25
    medium_scale: float = 1.0
    large_scale: float = 0.8
    high_pressure: float = 0.20
    moderate_pressure: float = 0.10
    high_base: int = 75
    high_growth: int = 25
    moderate_base: int = 100
    moderate_growth: int = 35
    low_base: int = 125
    low_growth: int = 45
    wait_bonus: int = 20
    refinement_passes: int = 2
    window_rule: str = "lead"
    optimal_exact_limit: int = 400
    optimal_prepair_limit: int = 1000
    optimal_neighbours: int = 6
    optimal_relax_cap: int = 2
    optimal_sit_out_after: int | None = None
    window_percentile: float | None = None
    #: ``optimal`` only (ADR 0179): pair on ratings pulled toward the wave's mean, halfway
    #: after this wait in ms; 0 is off.
    virtual_rating_half_life_ms: int = 0
    #: ``optimal`` only (ADR 0180): a recent rematch adds up to this to the pair's score
    #: instead of being forbidden by the queue's ``rematch`` rule; 0 is off (the filter).
    rematch_cost: int = 0
    optimal_choice: str = "best"
    optimal_choice_scale: int = 100


#: ``optimal`` widens a pair's window by the longer-waiting player's wait (the issue's
#: default), and past nine waves a player's wait outweighs any pair's gap (docs/adr/0191).
OPTIMAL_DEFAULTS = DuelConfig(window_rule="longer", optimal_sit_out_after=9)
LADDER_DEFAULTS = DuelConfig()

_NON_NEGATIVE_INTS = {
    "optimal_prepair_limit",
    "optimal_relax_cap",
    "optimal_sit_out_after",
    "mean_gap_limit",
    "small_population",
    "medium_population",
    "high_base",
    "high_growth",
    "moderate_base",
    "moderate_growth",
    "low_base",
    "low_growth",
    "wait_bonus",
    "refinement_passes",
    "virtual_rating_half_life_ms",
    "rematch_cost",
}
_POSITIVE_INTS = {"optimal_exact_limit", "optimal_neighbours"}
#: A scale's square times a Gumbel draw (below 40) stays far inside int64 with the scores.
_MAX_SCALE = 100_000
_FLOATS = {
    "small_scale",
    "medium_scale",
    "large_scale",
    "high_pressure",
    "moderate_pressure",
}


def parse_config(
    options: Mapping[str, object], defaults: DuelConfig = LADDER_DEFAULTS
) -> DuelConfig:
    """Return ``defaults`` with ``options`` applied; raise ValueError naming a bad option.

    >>> parse_config({"window_rule": "longer", "high_base": 80}).high_base
    80
    >>> parse_config({"colour": 1})
    Traceback (most recent call last):
    ...
    ValueError: options.colour: unknown option

    Notes: O(number of options).
    """
    changes: dict[str, Any] = {}
    for key, value in options.items():
        changes[key] = _checked_option(key, value)
    if "optimal_choice_scale" in changes and changes.get("optimal_choice") != "weighted":
        raise ValueError('options.optimal_choice_scale: read only under optimal_choice "weighted"')
    config = dataclasses.replace(defaults, **changes) if changes else defaults
    if config.window_percentile is not None:
        _check_percentile_bases(config)
    return config


#: Options only ``optimal`` reads (ADRs 0177, 0179, 0180, 0191): ``ladder-v2.1`` stays the
#: reference design and refuses them.
OPTIMAL_ONLY = (
    "window_percentile",
    "optimal_sit_out_after",
    "virtual_rating_half_life_ms",
    "rematch_cost",
)


def parse_ladder_config(options: Mapping[str, object]) -> DuelConfig:
    """:func:`parse_config` for ``ladder-v2.1``, refusing the options of ``optimal`` only.

    >>> parse_ladder_config({"window_percentile": 5})
    Traceback (most recent call last):
    ...
    ValueError: options.window_percentile: not honoured by strategy 'ladder-v2.1' (optimal only)
    """
    for key in OPTIMAL_ONLY:
        if key in options:
            raise ValueError(
                f"options.{key}: not honoured by strategy 'ladder-v2.1' (optimal only)"
            )
    return parse_config(options, LADDER_DEFAULTS)


def _check_percentile_bases(config: DuelConfig) -> None:
    # The reach widens with the wait as the tier's window does, by growth / base.
    if min(config.high_base, config.moderate_base, config.low_base) <= 0:
        raise ValueError(
            "options.window_percentile: needs high_base, moderate_base and low_base > 0 "
            "(the wait widens it by the tier's growth / base)"
        )


def refuse_optimal_only(config: DuelConfig, strategy: str) -> None:
    """Raise ValueError naming the first ``optimal``-only option ``config`` turns on.

    >>> refuse_optimal_only(DuelConfig(rematch_cost=100), "ladder-v2.1")
    Traceback (most recent call last):
    ...
    ValueError: options.rematch_cost: not honoured by strategy 'ladder-v2.1' (optimal only)
    """
    for name in OPTIMAL_ONLY:
        if getattr(config, name):
            raise ValueError(
                f"options.{name}: not honoured by strategy {strategy!r} (optimal only)"
            )


def check_optimal_only(config: DuelConfig, rules: QueueRuleSet) -> None:
    """Raise ValueError when an ``optimal``-only option lacks what it reads from the rules.

    ``rematch_cost`` prices the meetings the ``rematch`` rule keeps; the virtual rating
    widens the pressure windows, which ``max_distance`` replaces (its limit holds on the
    real gap and already widens with the wait).
    """
    if config.rematch_cost and rules.rematch is None:
        raise ValueError("options.rematch_cost: needs rules.rematch (the meetings it prices)")
    if config.virtual_rating_half_life_ms and rules.max_distance is not None:
        raise ValueError(
            "options.virtual_rating_half_life_ms: not with rules.max_distance "
            "(it replaces the windows the virtual rating widens)"
        )


def _checked_option(key: str, value: object) -> object:
    if key == "window_rule":
        if value not in WINDOW_RULES:
            raise ValueError(f"options.window_rule: must be one of {', '.join(WINDOW_RULES)}")
        return value
    if key == "optimal_choice_scale":
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= _MAX_SCALE:
            raise ValueError(
                f"options.optimal_choice_scale: must be an integer from 1 to {_MAX_SCALE}"
            )
        return value
    if key == "optimal_choice":
        if value not in OPTIMAL_CHOICES:
            raise ValueError(f"options.optimal_choice: must be one of {', '.join(OPTIMAL_CHOICES)}")
        return value
    if key in _NON_NEGATIVE_INTS or key in _POSITIVE_INTS:
        floor = 1 if key in _POSITIVE_INTS else 0
        if not isinstance(value, int) or isinstance(value, bool) or value < floor:
            raise ValueError(f"options.{key}: must be an integer >= {floor}")
        return value
    if key in _FLOATS:
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValueError(f"options.{key}: must be a number >= 0")
        return float(value)
    if key == "window_percentile":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 100:
            raise ValueError("options.window_percentile: must be a number > 0 and <= 100")
        return float(value)
    raise ValueError(f"options.{key}: unknown option")
