"""What an explanation of a match names: a partner a player could have had, and why not.

Its own module so that :mod:`matcher.explain` and :mod:`matcher.explain_duel` (which
explain builds on) both import it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Alternative:
    """A partner ``candidate`` that ``player`` could have had, and why it was not chosen."""

    player: str
    candidate: str
    diff: int | None
    verdict: str
