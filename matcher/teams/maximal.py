"""Completeness of a team wave's result: the team strategies promise a match whenever the
queue's rules allow one (docs/adr/0102), so the live checker fails a strict wave whose
unmatched tickets could still make one.

The unmatched tickets are searched by the team queues' completion
(:func:`matcher.teams.complete.complete`, exhaustive on small remainders, bounded by its
``MAX_SPLITS`` on large ones) under the queue's rules and, for ``game-queue``, its
``max_imbalance``, and for a multifactor queue with ``p2p_host_max_ms`` its host rule.
A match found there is a match the published result left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from matcher.core import QueueProfile, WaveResult, WaveSnapshot
from matcher.peers import host_limit, reachable_hosts
from matcher.rules.check import met_recently
from matcher.teams.acceptance import acceptor, reseater
from matcher.teams.complete import complete
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import Party, TeamShape, parties_of
from matcher.teams.options import game_queue_config
from matcher.teams.ruled import group_admission


def left_match_problem(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult, shape: TeamShape
) -> str | None:
    """Why ``result`` is not maximal (its unmatched tickets can make a match), or None.

    >>> from matcher.core import Player, Ticket, WaitingTicket
    >>> tickets = tuple(WaitingTicket(Ticket(f"t{i}", "q", "eu",
    ...     (Player(f"p{i}", (("mmr", 1500),)),), 0), 0) for i in range(2))
    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, tickets)
    >>> profile = QueueProfile("q", "rebalance", ("m",), team_size=1)
    >>> left_match_problem(snapshot, profile, WaveResult("rebalance", (), ("t0", "t1")),
    ...                    TeamShape(2, 1, 1))
    'not maximal: tickets t0, t1 left unmatched can still make a match'

    Notes: bounded by ``matcher.teams.complete.MAX_SPLITS`` subsets and splits.
    """
    if not shape.strict or not result.unmatched:
        return None
    unmatched = frozenset(result.unmatched)
    rest = replace(
        snapshot, tickets=tuple(w for w in snapshot.tickets if w.ticket.ticket_id in unmatched)
    )
    parties, _ = parties_of(rest, shape)
    if sum(len(party.players) for party in parties) < shape.match_max:
        return None
    rules = profile.ruleset
    met = met_recently(snapshot, rules)
    closed, region = snapshot.closed_at_ms, snapshot.region
    limit, params = None, Imbalance()
    if result.strategy == "game-queue":
        config = game_queue_config(profile.options)
        limit, params = config.max_imbalance, config.imbalance

    accept = acceptor(snapshot, rules, met, params, limit)
    hosting = host_limit(profile)

    def hosted(group: Sequence[Party]) -> bool:
        # No peer-to-peer host, whatever the split (docs/adr/0185).
        return bool(reachable_hosts([p for party in group for p in party.players], hosting))

    fixed = not shape.role_rated
    admit, hopeless = group_admission(
        rules, closed, region, split_free_ratings=fixed, met=met, also=hosted if hosting else None
    )
    reseat = reseater(
        snapshot, rules, met, shape.role_rated and (rules.limits_ratings or limit is not None)
    )
    found = complete(parties, [], shape, params, accept, admit, hopeless=hopeless, reseat=reseat)
    if not found:
        return None
    tickets = sorted(parties[i].ticket_id for team in found[0].teams for i in team)
    return f"not maximal: tickets {', '.join(tickets)} left unmatched can still make a match"
