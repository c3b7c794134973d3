"""``optimal``'s virtual rating (ADR 0179): a waiting player is paired as if rated nearer
the wave's mean, so a far-rated player finds a partner as the wait grows.

A player's offset from the mean halves after every ``half_life_ms`` of its own wait
(joined to the wave's close), linearly in between: ``offset * (2h - r) / (2h * 2**k)``
after ``k`` whole half-lives and ``r`` ms more, rounded toward the mean. Integers only,
so every machine pairs the same wave alike. The mean is the floor of the mean of every
rating the wave's duel players offer (a "both" player counts both). The virtual ratings
move only the window and the score; the outputs keep the real ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from matcher.core import WaveSnapshot
from matcher.duel.model import DuelPlayer

#: After this many half-lives every offset below 2**40 points has reached the mean.
_SETTLED = 40


def wave_mean(players: Sequence[DuelPlayer]) -> int:
    """The floor of the mean of every rating the players offer (0 for no rating).

    >>> wave_mean([DuelPlayer("a", 1500, 1401), DuelPlayer("b", None, 1000)])
    1300
    """
    ratings = [r for p in players for r in (p.bw_mmr, p.sc2_mmr) if r is not None]
    return sum(ratings) // len(ratings) if ratings else 0


def pulled(rating: int, mean: int, waited_ms: int, half_life_ms: int) -> int:
    """``rating`` pulled toward ``mean`` after ``waited_ms`` (halfway per half-life).

    >>> [pulled(1900, 1500, ms, 1000) for ms in (0, 500, 1000, 2000, 3000)]
    [1900, 1800, 1700, 1600, 1550]
    >>> pulled(1101, 1500, 1000, 1000)
    1301
    """
    offset = rating - mean
    halvings, rest = divmod(max(waited_ms, 0), half_life_ms)
    if halvings >= _SETTLED or offset == 0:
        return mean
    shrunk = abs(offset) * (2 * half_life_ms - rest) // (half_life_ms << (halvings + 1))
    return mean + (shrunk if offset > 0 else -shrunk)


def virtual_players(
    players: Sequence[DuelPlayer], snapshot: WaveSnapshot, half_life_ms: int
) -> list[DuelPlayer]:
    """The players with their ratings pulled toward the wave's mean by their wait.

    Notes: O(n).
    """
    joined = {w.ticket.ticket_id: w.ticket.joined_at_ms for w in snapshot.tickets}
    mean = wave_mean(players)
    moved = []
    for player in players:
        waited = snapshot.closed_at_ms - joined.get(player.ticket_id, snapshot.closed_at_ms)
        bw, sc2 = player.bw_mmr, player.sc2_mmr
        moved.append(
            dataclasses.replace(
                player,
                bw_mmr=None if bw is None else pulled(bw, mean, waited, half_life_ms),
                sc2_mmr=None if sc2 is None else pulled(sc2, mean, waited, half_life_ms),
            )
        )
    return moved
