"""Which rule kept a ticket out of a match: the ``kept out`` lines of ``wavematch explain``
for a team queue with rules.

Pure: for each ticket the wave left unmatched (nearest in rating to the match first), the
ticket's single player is tried in every seat of the match held by a single player, and
the queue's rules judge each lineup with the live checker's own predicate
(:func:`matcher.rules.check.lineup_problem`). The line names the rule that refused the
most seats, or says which seat the rules would have allowed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from matcher.core import Match, Player, QueueProfile, Ticket, WaveResult, WaveSnapshot
from matcher.rules.check import hard_rules, lineup_problem, met_recently, rated, waits_of
from matcher.ruleset import QueueRuleSet


def kept_out_facts(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult, match: Match, nearest: int
) -> list[tuple[str, str]]:
    """``(f"kept out {ticket}", why)`` for up to ``nearest`` unmatched solo tickets.

    >>> from matcher.core import Seat, Team, WaitingTicket
    >>> rules = {"rating": "mmr", "checks": [{"name": "lvl", "kind": "number",
    ...     "attribute": "level", "max_spread": 5}]}
    >>> profile = QueueProfile("q", "rebalance", ("m",), team_size=1, rules=rules)
    >>> one = lambda t, level: WaitingTicket(Ticket(t, "q", "eu", (Player(t, (("mmr", 1),),
    ...     numbers=(("level", level),)),), 0), 0)
    >>> snapshot = WaveSnapshot("q", "eu", "w", 1, 7, 0, (one("a", 1), one("b", 2), one("c", 30)))
    >>> teams = (Team("1", (Seat("a", "a", "", 1),)), Team("2", (Seat("b", "b", "", 1),)))
    >>> match = Match("m", teams, "m", "s", "c", ())
    >>> kept_out_facts(snapshot, profile, WaveResult("rebalance", (match,), ("c",)), match, 3)
    [('kept out c', "rule 'lvl' in 2 of 2 seats: level spread 28 exceeds 5 after 0 s")]

    Notes: O(unmatched x seats^2).
    """
    rules = hard_rules(profile)  # a priced rematch keeps nobody out (ADR 0180)
    if rules.empty:
        return []
    tickets = {w.ticket.ticket_id: w.ticket for w in snapshot.tickets}
    players = {p.player_id: p for t in tickets.values() for p in t.players}
    mean = sum(s.rating for team in match.teams for s in team.seats) / max(1, match_size(match))
    left = [tickets[t] for t in result.unmatched if t in tickets and tickets[t].size == 1]
    left.sort(key=lambda t: (abs(_rating(t.players[0], rules) - mean), t.ticket_id))
    met = met_recently(snapshot, rules)
    step = _step_of(profile, match)
    role_queue = bool(profile.roles or profile.team_roles)
    return [
        (
            f"kept out {ticket.ticket_id}",
            _why(snapshot, rules, match, ticket, players, met, step, role_queue),
        )
        for ticket in left[:nearest]
    ]


def _step_of(profile: QueueProfile, match: Match) -> tuple[int, float] | None:
    """(number, after_s) of the earliest team step ``match``'s shape is, when it is not
    the queue's own shape: every ticket of it must have waited that long."""
    teams, size = len(match.teams), max((len(team.seats) for team in match.teams), default=0)
    if (teams, size) == (profile.team_count, profile.team_size):
        return None
    steps = [
        (number, step.after_s)
        for number, step in enumerate(profile.team_steps, 1)
        if (step.team_count, step.team_size) == (teams, size)
    ]
    return min(steps, key=lambda found: found[1], default=None)


def match_size(match: Match) -> int:
    return sum(len(team.seats) for team in match.teams)


#: The built-in rules by the start of their problem's text (matcher/rules/check.py).
_BUILT_IN = (
    ("rating spread", "max_spread"),
    ("rating distance", "max_distance"),
    ("team rating gap", "max_team_gap"),
    ("latency", "max_latency_ms"),
    ("players disagree", "attributes"),
    ("players ", "rematch"),
    ("player ", "block_lists"),
)


def _rule_of(problem: str) -> tuple[str, str]:
    """The rule a problem names and its detail: ``("rule 'lvl'", "level spread ...")``."""
    if problem.startswith("rule "):
        name, _, detail = problem.partition(": ")
        return name, detail
    name = next((rule for start, rule in _BUILT_IN if problem.startswith(start)), "a rule")
    return f"rule {name!r}", problem


def _rating(player: Player, rules: QueueRuleSet) -> int:
    """The rating ``player`` is matched on: the rules' key (at its deviation bound), else
    the best one."""
    if rules.rating is not None:
        return rated(player, rules) or 0
    return max((value for _, value in player.ratings), default=0)


def _seat_rating(player: Player, role: str, rules: QueueRuleSet, role_queue: bool) -> int | None:
    """The rating ``player`` would sit on in a seat of ``role``; None when a role queue's
    player does not play that role (or has no rating for it)."""
    if role_queue:
        return player.rating(role) if role in player.offered_roles() else None
    return _rating(player, rules)


def _why(
    snapshot: WaveSnapshot,
    rules: QueueRuleSet,
    match: Match,
    ticket: Ticket,
    players: dict[str, Player],
    met: Mapping[str, frozenset[str]],
    step: tuple[int, float] | None = None,
    role_queue: bool = False,
) -> str:
    newcomer = ticket.players[0]
    joined = {w.ticket.ticket_id: w.ticket.joined_at_ms for w in snapshot.tickets}
    priorities = {w.ticket.ticket_id: w.ticket.priority for w in snapshot.tickets}
    seats_of = Counter(s.ticket_id for team in match.teams for s in team.seats)
    refusals: Counter[str] = Counter()
    first: dict[str, str] = {}
    solo_seats = [s for team in match.teams for s in team.seats if seats_of[s.ticket_id] == 1]
    playable = 0
    for out in solo_seats:
        mine = _seat_rating(newcomer, out.role, rules, role_queue)
        if mine is None:  # a role queue's seat of a role it does not play: not a rule's doing
            continue
        playable += 1
        lineup = [
            [newcomer if s is out else players[s.player_id] for s in team.seats]
            for team in match.teams
        ]
        seated = [p for team in lineup for p in team]
        # Everyone else keeps the rating of their seat (its role's, at the deviation bound).
        ratings = [[mine if s is out else s.rating for s in team.seats] for team in match.teams]
        stay = [joined[t] for t in seats_of if t != out.ticket_id and t in joined]
        waited = waits_of(snapshot.closed_at_ms, [*stay, ticket.joined_at_ms])
        if step is not None and waited.newest < step[1]:
            refusals["team step"] += 1
            first.setdefault(
                "team step",
                f"the match is team step {step[0]}, made once every ticket has waited "
                f"{step[1]:g} s; with it, the least waited would have waited {waited.newest:g} s",
            )
            continue
        latencies = [p.latency_to(snapshot.region) for p in seated]
        problem = lineup_problem(rules, ratings, waited, latencies, seated, met)
        if problem is None:
            held = priorities.get(out.ticket_id, 0)
            if rules.priority and held >= ticket.priority:
                return (
                    f"rule 'priority': the seat of {out.player_id} went to a ticket of "
                    f"priority {held}, not below its {ticket.priority}"
                )
            return f"the rules allowed the seat of {out.player_id}; the strategy chose otherwise"
        name, detail = _rule_of(problem)
        refusals[name] += 1
        first.setdefault(name, detail)
    if solo_seats and not playable:
        roles = ", ".join(sorted({s.role for s in solo_seats}))
        offered = ", ".join(newcomer.offered_roles())
        return (
            f"no seat of its roles ({offered}) was held by a single player; those seats were "
            f"{roles}: its roles kept it out, not a rule"
        )
    if not refusals:  # parties stay whole: a solo player can take no one seat of theirs
        seats = sum(seats_of.values())
        return (
            f"all {seats} seats went to parties, which stay together: no single seat to try it in"
        )
    name, count = refusals.most_common(1)[0]
    return f"{name} in {count} of {sum(refusals.values())} seats: {first[name]}"
