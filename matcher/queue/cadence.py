"""Adaptive wave interval: a fixed timer, a pop timer aiming at N matches per wave, or a
size trigger that closes a wave once N tickets wait.

A wave that closes with too few players gives the strategy nothing to choose from;
one that waits too long makes everyone wait. The pop timer picks the interval that,
at the recent arrival rate, should gather ``target_matches`` matches' worth of players
(one open-source ladder pops at 2.5 matches per wave, capped at 90 s), clamped to a
floor and a cap. The arrival rate is an exponential moving average the caller keeps
with :func:`update_arrival_rate`; time is always an input, never read from a clock.
See docs/adr/0050-adaptive-wave-interval.md. The size trigger (:func:`size_due_at_ms`,
docs/adr/0183) keeps the interval as a fallback and a floor between waves.
"""

from __future__ import annotations

from dataclasses import dataclass

FIXED = "fixed"
POP = "pop"
SIZE = "size"


@dataclass(frozen=True, slots=True)
class CadencePolicy:
    """How a queue's wave timer chooses the next interval.

    ``mode`` is ``"fixed"`` (always ``interval_ms``), ``"pop"`` (aim at
    ``target_matches`` per wave, within ``[floor_ms, cap_ms]``) or ``"size"`` (a wave as
    soon as ``trigger_tickets`` tickets wait, at least ``floor_ms`` after the last one,
    and ``interval_ms`` after it at the latest). ``smoothing`` is the weight of the
    newest wave in the arrival-rate moving average (0 < smoothing <= 1).
    """

    mode: str = FIXED
    interval_ms: int = 10_000
    target_matches: float = 2.5
    floor_ms: int = 5_000
    cap_ms: int = 90_000
    smoothing: float = 0.3
    trigger_tickets: int = 2

    def __post_init__(self) -> None:
        if self.mode not in (FIXED, POP, SIZE):
            raise ValueError(f"mode: must be {FIXED!r}, {POP!r} or {SIZE!r}, not {self.mode!r}")
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
        if self.trigger_tickets < 2:  # one ticket alone can never be matched
            raise ValueError("trigger_tickets: must be >= 2")
        if self.mode == SIZE and self.floor_ms > self.interval_ms:
            raise ValueError("floor_ms: must be <= interval_ms (the trigger would never fire)")


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
    if policy.mode != POP:  # a size trigger's fallback is its interval
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


def size_due_at_ms(
    policy: CadencePolicy, waiting_tickets: int, arrivals: int, last_tick_at_ms: int, now_ms: int
) -> int:
    """When a size-triggered queue's next wave is due if nothing else happens before.

    ``interval_ms`` after the last wave at the latest (before the first wave, the next
    multiple of the interval); sooner once ``trigger_tickets`` tickets wait and
    ``arrivals`` (players joined since the last wave) is not 0, so a join re-checks the
    queue but tickets a wave left unmatched do not close wave after wave; never sooner
    than ``floor_ms`` after the last wave, so a burst of joins closes one wave, not one
    per join. ``last_tick_at_ms`` 0: no wave yet. Due means ``<= now_ms``.

    >>> size = CadencePolicy(mode="size", interval_ms=60_000, floor_ms=250, trigger_tickets=2)
    >>> size_due_at_ms(size, 1, 1, 1_000_000, 1_000_500)   # one ticket: the fallback
    1060000
    >>> size_due_at_ms(size, 2, 1, 1_000_000, 1_000_500)   # two, one new: now
    1000500
    >>> size_due_at_ms(size, 2, 0, 1_000_000, 1_000_500)   # two, left over: the fallback
    1060000
    >>> size_due_at_ms(size, 2, 1, 1_000_000, 1_000_100)   # two, inside the floor
    1000250
    >>> size_due_at_ms(size, 0, 0, 0, 1_000_500)           # no wave yet: the grid
    1020000

    Notes: O(1).
    """
    if policy.mode != SIZE:
        raise ValueError(f"mode: {policy.mode!r} is not {SIZE!r}")
    if last_tick_at_ms:
        fallback = last_tick_at_ms + policy.interval_ms
    else:
        fallback = (now_ms // policy.interval_ms + 1) * policy.interval_ms
    if waiting_tickets < policy.trigger_tickets or arrivals <= 0:
        return fallback
    return min(fallback, max(now_ms, last_tick_at_ms + policy.floor_ms))
