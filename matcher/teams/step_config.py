"""A queue's ``team_steps`` parsed and checked at start: smaller shapes after a wait.

Kept apart from :mod:`matcher.teams.steps` (the close at each step) so that reading the
settings does not import the strategies' dependencies.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from matcher.core import QueueProfile, TeamStep

#: A queue lists at most this many steps: each is one more close of the left-out tickets.
MAX_STEPS = 8
_FIELDS = ("after_s", "team_count", "team_size")


def parse_team_steps(raw: object, team_count: int, team_size: int) -> tuple[TeamStep, ...]:
    """The steps of a queue of ``team_count`` teams of ``team_size``; ValueError names the field.

    A step leaves out what it keeps: ``team_count`` and ``team_size`` default to the step
    before's (the queue's for the first).

    >>> parse_team_steps([{"after_s": 60, "team_count": 2}], 4, 3)
    (TeamStep(after_s=60.0, team_count=2, team_size=3),)
    >>> parse_team_steps([{"after_s": 60, "team_count": 5}], 4, 3)
    Traceback (most recent call last):
    ValueError: team_steps.0.team_count: must be between 2 and 4, the step before's (got 5)
    """
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise ValueError(
            "team_steps: must be a list of tables like { after_s = 60, team_count = 2 }"
        )
    if len(raw) > MAX_STEPS:
        raise ValueError(f"team_steps: at most {MAX_STEPS} steps (got {len(raw)})")
    steps: list[TeamStep] = []
    count, size, after = team_count, team_size, 0.0
    for index, item in enumerate(raw):
        where = f"team_steps.{index}"
        if not isinstance(item, Mapping):
            raise ValueError(f"{where}: must be a table like {{ after_s = 60, team_count = 2 }}")
        for name in sorted(item):
            if name not in _FIELDS:
                raise ValueError(f"{where}.{name}: unknown field (known: {', '.join(_FIELDS)})")
        if "team_count" not in item and "team_size" not in item:
            raise ValueError(f"{where}: give team_count or team_size (or both)")
        seconds = item.get("after_s")
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or seconds <= after
        ):
            before = "the step before's" if steps else "0"
            raise ValueError(
                f"{where}.after_s: must be a number of seconds above {before} (got {seconds!r})"
            )
        new_count = _bounded(item, "team_count", count, 2, where)
        new_size = _bounded(item, "team_size", size, 1, where)
        if (new_count, new_size) == (count, size):
            raise ValueError(f"{where}: must make matches smaller than {count} teams of {size}")
        count, size, after = new_count, new_size, float(seconds)
        steps.append(TeamStep(after, count, size))
    return tuple(steps)


def _bounded(item: Mapping[str, object], name: str, before: int, least: int, where: str) -> int:
    value = item.get(name, before)
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= before:
        raise ValueError(
            f"{where}.{name}: must be between {least} and {before}, the step before's"
            f" (got {value!r})"
        )
    return value


def check_team_steps(profile: QueueProfile, honoured: frozenset[str]) -> None:
    """Refuse steps ``profile.strategy`` cannot play, in one line naming the field.

    ``honoured`` is what the strategy may relax (``team_count``, ``team_size``).
    """
    if profile.team_steps and (profile.team_sizes or profile.team_roles):
        raise ValueError("team_steps: not with team_sizes or team_roles (asymmetric teams)")
    before = (profile.team_count, profile.team_size)
    for index, step in enumerate(profile.team_steps):
        for name, value, old in (
            ("team_count", step.team_count, before[0]),
            ("team_size", step.team_size, before[1]),
        ):
            if value != old and name not in honoured:
                known = ", ".join(sorted(honoured)) or "none"
                raise ValueError(
                    f"team_steps.{index}.{name}: not honoured by strategy {profile.strategy!r}"
                    f" (it relaxes: {known})"
                )
        if step.team_size != before[1] and profile.roles:
            raise ValueError(
                f"team_steps.{index}.team_size: a role queue keeps its team size"
                " (one seat per role slot)"
            )
        before = (step.team_count, step.team_size)


def step_profile(profile: QueueProfile, step: TeamStep) -> QueueProfile:
    """``profile`` at ``step``'s shape, without steps (what one step's close runs under)."""
    size_min = profile.team_size_min
    return replace(
        profile,
        team_count=step.team_count,
        team_size=step.team_size,
        team_size_min=None if size_min is None else min(size_min, step.team_size),
        team_steps=(),
    )
