"""What a wave close derives from its snapshot, derived once for the strategy and its checkers.

A close asks the same pure questions of one snapshot several times: the strategy rates
its players, reads who may not meet whom and which tickets can duel, then the strategy's
checker and the rules checker ask again. :func:`per_wave` remembers a function's last
answer, keyed by the snapshot's identity (a snapshot is immutable and the slot keeps it
alive, so its identity cannot be reused) and by the other arguments' equality. The slot
is one tuple replaced whole: a wave closed on another thread at the same time (a large
wave off the event loop, the console's replay) finds its own answer or none, never the
other wave's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from matcher.core import WaveSnapshot

P = ParamSpec("P")
R = TypeVar("R")


def per_wave(
    function: Callable[Concatenate[WaveSnapshot, P], R],
) -> Callable[Concatenate[WaveSnapshot, P], R]:
    """``function(snapshot, *args)`` answered once per snapshot and arguments in a row.

    Only for a pure function whose answer its callers do not change (type it read-only:
    a ``Mapping``, a ``Sequence``), as every caller of a snapshot shares that answer.

    >>> calls = []
    >>> @per_wave
    ... def size(snapshot: WaveSnapshot, extra: int) -> int:
    ...     calls.append(extra)
    ...     return len(snapshot.tickets) + extra
    >>> wave = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> size(wave, 1), size(wave, 1), size(wave, 2), len(calls)
    (1, 1, 2, 2)

    Notes: O(1) plus one comparison of the other arguments on a repeat.
    """
    slot: list[tuple[WaveSnapshot, tuple[Any, ...], R] | None] = [None]

    @functools.wraps(function)
    def remembered(snapshot: WaveSnapshot, /, *args: P.args, **kwargs: P.kwargs) -> R:
        last = slot[0]
        if last is not None and last[0] is snapshot and last[1] == args and not kwargs:
            return last[2]
        answer = function(snapshot, *args, **kwargs)
        if not kwargs:  # arguments by name are not remembered: a rare call, answered anew
            slot[0] = (snapshot, args, answer)
        return answer

    return remembered
