"""Adaptive wave interval: a fixed timer, or a pop timer aiming at N matches per wave.

A wave that closes with too few players gives the strategy nothing to choose from;
one that waits too long makes everyone wait. The pop timer picks the interval that,
at the recent arrival rate, should gather ``target_matches`` matches' worth of players
(one open-source ladder pops at 2.5 matches per wave, capped at 90 s), clamped to a
floor and a cap. The arrival rate is an exponential moving average the caller keeps
with :func:`update_arrival_rate`; time is always an input, never read from a clock.
See docs/adr/0050-adaptive-wave-interval.md.
"""

from __future__ import annotations

from dataclasses import dataclass

FIXED = "fixed"
POP = "pop"


@dataclass(frozen=True, slots=True)
class CadencePolicy:
    """How a queue's wave timer chooses the next interval.

    ``mode`` is ``"fixed"`` (always ``interval_ms``) or ``"pop"`` (aim at
    ``target_matches`` per wave, within ``[floor_ms, cap_ms]``). ``smoothing`` is the
    weight of the newest wave in the arrival-rate moving average (0 < smoothing <= 1).
    """

    mode: str = FIXED
    interval_ms: int = 10_000
    target_matches: float = 2.5
    floor_ms: int = 5_000
    cap_ms: int = 90_000
    smoothing: float = 0.3

    def __post_init__(self) -> None:
        if self.mode not in (FIXED, POP):
            raise ValueError(f"mode: must be {FIXED!r} or {POP!r}, not {self.mode!r}")
        if self.interval_ms <= 0:
            raise ValueError("interval_ms: must be > 0")
        if not self.target_matches > 0:
            raise ValueError("target_matches: must be > 0")
        if self.floor_ms <= 0:
            raise ValueError("floor_ms: must be > 0")
        if self.cap_ms < self.floor_ms:
            raise ValueError("cap_ms: must be >= floor_ms")
        if not 0 < self.smoothing <= 1:
            raise ValueError("smoothing: must be in (0, 1]")


def next_interval_ms(
    policy: CadencePolicy, recent_arrivals_per_s: float, players_per_match: int
) -> int:
    """Return the interval until the next wave, in milliseconds.

    A pop timer waits ``target_matches * players_per_match / rate`` seconds, clamped
    to ``[floor_ms, cap_ms]``; with no recent arrivals it waits the cap.

    >>> pop = CadencePolicy(mode="pop", target_matches=2.5, floor_ms=5_000, cap_ms=90_000)
    >>> next_interval_ms(pop, 0.5, 2)   # 5 players at 0.5/s: 10 s
    10000
    >>> next_interval_ms(pop, 0.01, 2), next_interval_ms(pop, 50.0, 2)
    (90000, 5000)
    >>> next_interval_ms(CadencePolicy(interval_ms=30_000), 50.0, 2)
    30000

    Notes: O(1).
    """
    if players_per_match <= 0:
        raise ValueError("players_per_match: must be > 0")
    if policy.mode == FIXED:
        return policy.interval_ms
    if not recent_arrivals_per_s > 0:  # also NaN: no evidence of anyone arriving
        return policy.cap_ms
    wanted_ms = 1000.0 * policy.target_matches * players_per_match / recent_arrivals_per_s
    return round(min(float(policy.cap_ms), max(float(policy.floor_ms), wanted_ms)))


def update_arrival_rate(
    policy: CadencePolicy, previous_per_s: float | None, arrivals: int, elapsed_ms: int
) -> float:
    """Fold one wave's arrivals into the moving average of arrivals per second.

    The first observation is taken as is; later ones weigh ``policy.smoothing``.

    >>> policy = CadencePolicy(mode="pop", smoothing=0.5)
    >>> update_arrival_rate(policy, None, 10, 10_000)
    1.0
    >>> update_arrival_rate(policy, 1.0, 30, 10_000)
    2.0

    Notes: O(1).
    """
    if elapsed_ms <= 0:
        return previous_per_s if previous_per_s is not None else 0.0
    observed = arrivals * 1000.0 / elapsed_ms
    if previous_per_s is None:
        return observed
    return policy.smoothing * observed + (1 - policy.smoothing) * previous_per_s
