"""Whether a queue can ever match a ticket; checked once, when it joins."""

from __future__ import annotations

from matcher.core import Player, QueueProfile, Ticket
from matcher.event_size import MATCH_EVENT_BYTES, seats_bytes
from matcher.rules.check import ticket_rule_problem
from matcher.strategies import is_duel

DUEL_RACES = ("bw", "sc2")


def admission_problem(ticket: Ticket, profile: QueueProfile) -> str | None:
    """Return why ``ticket`` can never be matched in ``profile``'s queue, or None.

    >>> from matcher.core import Player
    >>> profile = QueueProfile(queue="1v1", strategy="optimal", maps=("m",))
    >>> admission_problem(Ticket("t", "1v1", "eu", (Player("p", (("bw", 1500),)),), 0), profile)
    >>> admission_problem(Ticket("t", "1v1", "eu", (Player("p", (("zerg", 1),)),), 0), profile)
    'player p has no bw or sc2 rating'
    >>> mirror = QueueProfile(queue="1v1", strategy="optimal", maps=("m",), rules={"rating": "mmr"})
    >>> admission_problem(Ticket("t", "1v1", "eu", (Player("p", (("mmr", 1500),)),), 0), mirror)

    Notes: O(players x roles).
    """
    if ticket.queue != profile.queue:
        return f"ticket is for queue {ticket.queue!r}, not {profile.queue!r}"
    if not ticket.players:
        return "ticket has no players"
    size = len(ticket.players)  # not Ticket.size: a property's call on every join
    if size > profile.team_size:
        return f"party of {size} does not fit a team of {profile.team_size}"
    # A mirror 1v1 (``rules.rating``) reads one rating per player: the rules check it.
    duel = is_duel(profile.strategy) and not profile.rules.get("rating")
    for player in ticket.players:
        if duel:
            # Checked for every join: a plain loop, no generator (a tenth of a join's fold).
            for name, _ in player.ratings:
                if name in DUEL_RACES:
                    break
            else:
                return f"player {player.player_id} has no bw or sc2 rating"
        elif not player.ratings:
            return f"player {player.player_id} has no rating"
        elif profile.roles and not set(player.offered_roles()) & set(profile.roles):
            return f"player {player.player_id} offers none of the roles {', '.join(profile.roles)}"
        elif profile.team_roles and not _offers_a_team_role(player, profile.team_roles):
            every = sorted({role for roles in profile.team_roles for role in roles})
            return f"player {player.player_id} offers none of the roles {', '.join(every)}"
    if profile.checks_at_join:  # one read for the queues that have neither check
        share = profile.player_share
        problem = _outgrows_its_share(ticket, share) if share is not None else None
        if problem is None and profile.rules:
            problem = ticket_rule_problem(ticket, profile)
        return problem
    return None


def _outgrows_its_share(ticket: Ticket, share: int) -> str | None:
    """Why ``ticket``'s seats would take more of their match event than its players'
    shares (matcher/event_size.py), or None."""
    players = [(player.player_id, player.data) for player in ticket.players]
    taken = seats_bytes(ticket.ticket_id, ticket.data, players)
    allowed = share * len(players)
    if taken <= allowed:
        return None
    return (
        f"its seats' ids and data take {taken} bytes; a match of this queue is one event of "
        f"at most {MATCH_EVENT_BYTES} bytes, which leaves {share} a player ({allowed} for "
        f"{len(players)})"
    )


def _offers_a_team_role(player: Player, team_roles: tuple[tuple[str, ...], ...]) -> bool:
    offered = set(player.offered_roles())
    return any(offered & set(roles) for roles in team_roles)
