"""``optimal``'s ``rematch_cost`` (ADR 0180): a recent rematch is priced, not forbidden.

With the option, the queue's ``rematch`` rule (``last``, ``within_s``) no longer filters
the pair graph: it says which meetings count, and a pair who met ``age`` ms before the
wave's close adds ``rematch_cost * (within - age) // within`` to its score
(``diff**2 - wait_bonus * waits``), the full cost just after the match and nothing once
the meeting is ``within_s`` old. Of several meetings of a pair the newest counts. So the
most-pairs-then-least-score objective trades a rematch against rating gap and wait in
one sum. ``block_lists`` stay a hard filter.

Priced pairs are not rating-local, which the large tier's passes assume, and the exact
tier's blossom on every pair takes seconds past a thousand players: a wave is priced up
to ``optimal_exact_limit`` players, and a larger one keeps the ``rematch`` rule as the
hard filter it is without the option, which the ``rematch_priced`` stat (0) and the live
checker both say (ADR 0180).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from matcher.core import QueueProfile, WaveSnapshot
from matcher.duel.model import DuelConfig, DuelPlayer
from matcher.rules.check import hard_rules, rematch_priced
from matcher.ruleset import QueueRuleSet

Ints = NDArray[np.int64]


@dataclass(frozen=True)
class RematchPenalty:
    """The priced pairs of a wave: sorted keys ``low * n + high`` of player numbers and
    the cost each adds (``n``: the wave's duel players)."""

    keys: Ints
    costs: Ints
    size: int

    def table(self, members: Ints) -> Ints:
        """``[a, b]``: the cost added when ``members[a]`` plays ``members[b]``.

        Notes: O(p^2 log priced pairs) for p members.
        """
        a, b = members[:, None], members[None, :]
        keys = np.minimum(a, b) * self.size + np.maximum(a, b)
        found = np.clip(np.searchsorted(self.keys, keys), 0, max(len(self.keys) - 1, 0))
        if not len(self.keys):
            return np.zeros(keys.shape, dtype=np.int64)
        added: Ints = np.where(self.keys[found] == keys, self.costs[found], 0)
        return added


def wave_priced(profile: QueueProfile, config: DuelConfig, size: int) -> bool:
    """Whether a wave of ``size`` duel players prices rematches (the exact tier's waves)."""
    return rematch_priced(profile) and size <= config.optimal_exact_limit


def pair_rules(profile: QueueProfile, priced: bool) -> QueueRuleSet:
    """The rules that filter a wave's pairs: without ``rematch`` when the wave prices it."""
    return hard_rules(profile) if priced else profile.ruleset


def rematch_penalty(
    players: Sequence[DuelPlayer], snapshot: WaveSnapshot, rules: QueueRuleSet, cost: int
) -> RematchPenalty:
    """The cost each recently met pair of ``players`` adds, by the ``rematch`` rule.

    >>> from matcher.core import Player, Ticket, WaitingTicket
    >>> tickets = tuple(WaitingTicket(Ticket(t, "q", "eu", (Player(t, ()),), 0), 0)
    ...                 for t in ("a", "b"))
    >>> snapshot = WaveSnapshot("q", "eu", "w", 1, 7, 60_000, tickets,
    ...                         meetings=(("a", ((45_000, ("b",)),)),))
    >>> from matcher.ruleset import RematchRule
    >>> rules = QueueRuleSet(rematch=RematchRule(last=1, within_s=60))
    >>> players = [DuelPlayer(t, 1500, None, ticket_id=t) for t in ("a", "b")]
    >>> rematch_penalty(players, snapshot, rules, 1000).costs.tolist()
    [750]

    Notes: O(players x last).
    """
    rule = rules.rematch
    assert rule is not None
    within_ms = int(rule.within_s * 1000)
    since = snapshot.closed_at_ms - within_ms
    index = {p.player_id: i for i, p in enumerate(players)}
    n = max(len(players), 1)
    newest: dict[int, int] = {}
    for player_id, history in snapshot.meetings:
        a = index.get(player_id)
        if a is None:
            continue
        for at_ms, others in history[: rule.last]:
            if at_ms < since:
                continue
            for other in others:
                b = index.get(other)
                if b is not None and b != a:
                    key = min(a, b) * n + max(a, b)
                    newest[key] = max(newest.get(key, at_ms), at_ms)
    keys = sorted(newest)
    costs = [
        cost * (within_ms - (snapshot.closed_at_ms - newest[k])) // within_ms if within_ms else 0
        for k in keys
    ]
    return RematchPenalty(np.array(keys, dtype=np.int64), np.array(costs, dtype=np.int64), n)
