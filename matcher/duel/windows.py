"""Stage 3 of the reference design: queue pressure picks how wide a pair's MMR window is.

Shared by both duel strategies and by the checker, so a pair is judged by the very
window the strategy used.
"""

from __future__ import annotations

from matcher.duel.model import BW, DuelConfig, DuelPlayer, Window


def pressure(queue_size: int, active_population: int, config: DuelConfig) -> float:
    """Return ``min(1, scale * queue_size / active_population)``.

    An unknown or too small population (the queue itself is active) counts as the
    queue size; the formula caps the pressure at 1 either way, so the tier is the one
    the design's formula gives whenever it is defined.

    >>> pressure(6, 40, DuelConfig())
    0.12
    >>> pressure(3, 0, DuelConfig())
    1.0

    Notes: O(1).
    """
    population = max(active_population, queue_size)
    if population <= 0:
        return 0.0
    if population <= config.small_population:
        scale = config.small_scale
    elif population <= config.medium_population:
        scale = config.medium_scale
    else:
        scale = config.large_scale
    return min(1.0, round(scale * queue_size / population, 12))


def tier_window(wave_pressure: float, config: DuelConfig) -> Window:
    """Return the window of the pressure tier: HIGH, MODERATE or LOW.

    >>> tier_window(0.12, DuelConfig()).max_diff(5)
    275

    Notes: O(1).
    """
    if wave_pressure >= config.high_pressure:
        return Window(config.high_base, config.high_growth)
    if wave_pressure >= config.moderate_pressure:
        return Window(config.moderate_base, config.moderate_growth)
    return Window(config.low_base, config.low_growth)


def pair_wait(rule: str, bw: DuelPlayer, sc2: DuelPlayer, lead_side: str) -> int:
    """Return the wait that widens the window of ``bw`` against ``sc2`` under ``rule``.

    ``lead``: the player on ``lead_side``; ``longer``: the longer wait; ``shorter``:
    the shorter one (both players must accept the diff).

    >>> a, b = DuelPlayer("a", 1500, None, 4), DuelPlayer("b", None, 1500, 1)
    >>> [pair_wait(rule, a, b, "sc2") for rule in ("lead", "longer", "shorter")]
    [1, 4, 1]
    """
    if rule == "longer":
        return max(bw.wait_cycles, sc2.wait_cycles)
    if rule == "shorter":
        return min(bw.wait_cycles, sc2.wait_cycles)
    return bw.wait_cycles if lead_side == BW else sc2.wait_cycles
