"""Whether matches and tickets respect a queue's rules: the checker and the strategies'
one predicate (:func:`lineup_problem`), so what a strategy builds and what the worker
verifies before publishing are judged by the same code."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import fields as dataclass_fields
from dataclasses import replace
from operator import attrgetter

from matcher.core import (
    Match,
    Player,
    QueueProfile,
    Ticket,
    WaitingTicket,
    WaveResult,
    WaveSnapshot,
)
from matcher.ruleset import QueueRuleSet, Waits
from matcher.wave_memo import per_wave

_PLAYER_NAMES = tuple(f.name for f in dataclass_fields(Player))
_PLAYER_FIELDS = attrgetter(*_PLAYER_NAMES)
_RATINGS, _ROLES = _PLAYER_NAMES.index("ratings"), _PLAYER_NAMES.index("roles")
_DEVIATION = _PLAYER_NAMES.index("deviation")
_TICKET_NAMES = tuple(f.name for f in dataclass_fields(Ticket))
_TICKET_FIELDS = attrgetter(*_TICKET_NAMES)
_PLAYERS = _TICKET_NAMES.index("players")

#: No rematch history: the default of every ``met`` argument.
NO_MEETINGS: Mapping[str, frozenset[str]] = {}

#: Slack for float comparisons of team means against a limit.
EPSILON = 1e-9


def rated(player: Player, rules: QueueRuleSet) -> int | None:
    """The rating ``player`` is matched and seated on under ``rules``: the ``rating`` key,
    lowered to its confidence bound under a ``deviation`` rule; None without the key."""
    assert rules.rating is not None
    value = player.rating(rules.rating)
    if value is None or rules.deviation is None:
        return value
    return rules.deviation.bound(value, player.deviation)


def waited_s(closed_at_ms: int, joined_at_ms: Sequence[int]) -> float:
    """Seconds the least waited of the tickets has waited at the wave's close."""
    return max(0.0, (closed_at_ms - max(joined_at_ms)) / 1000.0)


def waits_of(closed_at_ms: int, joined_at_ms: Sequence[int]) -> Waits:
    """Seconds the newest and the oldest of a match's tickets have waited at the close.

    >>> waits_of(60_000, [59_000, 20_000])
    Waits(newest=1.0, oldest=40.0)
    """
    oldest = max(0.0, (closed_at_ms - min(joined_at_ms)) / 1000.0)
    return Waits(waited_s(closed_at_ms, joined_at_ms), oldest)


def lineup_problem(
    rules: QueueRuleSet,
    teams: Sequence[Sequence[int]],
    waited: float | Waits,
    latencies: Sequence[int | None] = (),
    players: Sequence[Player] = (),
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    *,
    group_judged: bool = False,
) -> str | None:
    """Why a match of these teams' seat ratings breaks ``rules`` after ``waited`` s, or None.

    ``waited``: the match's :class:`~matcher.ruleset.Waits` (each rule reads its
    ``expansion_age``), or one wait for every rule. ``latencies`` are the seats'
    latencies to the match's region (None: unknown), ``players`` the seated players
    (their attributes), when the rules need them. ``group_judged``: a strategy's own
    word that these very players already passed :func:`group_problem` (a grouping's
    ``fits`` judged the group whole), so only what the split decides is judged here, and
    the monotone named rules are counted as passed; the live check never says it.

    >>> from matcher.ruleset import Expansion
    >>> rules = QueueRuleSet(max_spread=Expansion(500, growth_per_s=10, cap=1000))
    >>> lineup_problem(rules, [[100, 200], [700, 650]], 0.0)
    'rating spread 600 exceeds max_spread 500 after 0 s'
    >>> lineup_problem(rules, [[100, 200], [700, 650]], 10.0) is None
    True

    Notes: O(seats).
    """
    waits = waited if isinstance(waited, Waits) else Waits.both(waited)
    seats = [rating for team in teams for rating in team]
    if (rule := rules.max_spread) is not None and seats:
        spread, limit, s = (
            max(seats) - min(seats),
            rule.reached(waits),
            waits.of(rule.expansion_age),
        )
        if spread > limit + EPSILON:
            return f"rating spread {spread:g} exceeds max_spread {limit:g} after {s:g} s"
    if (rule := rules.max_distance) is not None and len(seats) == 2 and len(teams) == 2:
        distance, limit = abs(seats[0] - seats[1]), rule.reached(waits)
        if distance > limit + EPSILON:
            s = waits.of(rule.expansion_age)
            return f"rating distance {distance:g} exceeds max_distance {limit:g} after {s:g} s"
    if (rule := rules.max_team_gap) is not None and all(teams):
        means = [sum(team) / len(team) for team in teams]
        gap, limit, s = max(means) - min(means), rule.reached(waits), waits.of(rule.expansion_age)
        if gap > limit + EPSILON:
            return f"team rating gap {gap:g} exceeds max_team_gap {limit:g} after {s:g} s"
    problem = None if group_judged else group_problem(rules, waits, latencies, players, (), met)
    if problem is None and rules.checks and players:
        # Named rules turn optional by the match's least waited ticket (ADR 0150).
        problem = checks_problem(
            rules, teams, waits.newest, latencies, players, monotone_hold=group_judged
        )
    return problem


def checks_problem(
    rules: QueueRuleSet,
    teams: Sequence[Sequence[int]],
    waited: float,
    latencies: Sequence[int | None],
    players: Sequence[Player],
    *,
    monotone_hold: bool = False,
) -> str | None:
    """The first of the queue's named ``checks`` the lineup breaks, named; or None.

    ``players`` and ``latencies`` are in seat order, team after team, as ``teams``.
    ``monotone_hold``: the monotone rules are known to hold on these players (see
    :func:`lineup_problem`'s ``group_judged``); they are counted, not judged again.

    Notes: O(seats x rules).
    """
    by_team: list[Sequence[Player]] = []
    latency_by_team: list[Sequence[int | None]] = []
    start = 0
    sizes = [len(team) for team in teams] if sum(map(len, teams)) == len(players) else []
    for size in sizes or [len(players)]:
        by_team.append(players[start : start + size])
        latency_by_team.append(latencies[start : start + size] if latencies else ())
        start += size
    tally = rules.tally
    for check in rules.checks:
        if monotone_hold and check.monotone:
            problem = None
        else:
            problem = check.problem(by_team, latency_by_team, waited)
        if tally is not None:
            tally.count(check.name, problem is None)
        if problem is not None:
            return f"rule {check.name!r}: {problem} after {waited:g} s"
    return None


def group_problem(
    rules: QueueRuleSet,
    waited: float | Waits,
    latencies: Sequence[int | None],
    players: Sequence[Player],
    ratings: Sequence[int] = (),
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
) -> str | None:
    """The rules a group of players breaks however it is split into teams: latency,
    attributes, and the spread of ``ratings`` when given (seat ratings that do not depend
    on the split). Strategies test a group with it before trying its splits.

    Notes: O(players).
    """
    waits = waited if isinstance(waited, Waits) else Waits.both(waited)
    if (limit_rule := rules.max_spread) is not None and ratings:
        spread, limit = max(ratings) - min(ratings), limit_rule.reached(waits)
        if spread > limit + EPSILON:
            s = waits.of(limit_rule.expansion_age)
            return f"rating spread {spread:g} exceeds max_spread {limit:g} after {s:g} s"
    if (limit_rule := rules.max_latency_ms) is not None:
        known = [ms for ms in latencies if ms is not None]
        limit = limit_rule.reached(waits)
        if known and max(known) > limit + EPSILON:
            s = waits.of(limit_rule.expansion_age)
            return f"latency {max(known)} ms exceeds max_latency_ms {limit:g} after {s:g} s"
    for rule in rules.attributes:
        values = [player.attribute(rule.name) for player in players]
        problem = rule.problem(values, waits.of(rule.expansion_age))
        if problem is not None:
            return problem
    for check in rules.monotone_checks:
        problem = check.problem((players,), (latencies,), waits.newest)
        if problem is not None:
            if rules.tally is not None:
                rules.tally.count(check.name, False)
            return f"rule {check.name!r}: {problem} after {waits.newest:g} s"
    if met:
        ids = {player.player_id for player in players}
        for player in players:
            again = met.get(player.player_id, frozenset()) & ids
            if again:
                other = min(again)
                blocked = _blocked(player, other, players) if rules.block_lists else None
                if blocked is not None:
                    return blocked
                return f"players {player.player_id} and {other} met too recently (rematch)"
    return None


def _blocked(player: Player, other: str, players: Sequence[Player]) -> str | None:
    """Which of ``player`` and ``other`` blocked the other, as a problem; None: neither."""
    if other in player.blocked:
        return f"player {player.player_id} blocked {other} (block_lists)"
    for each in players:
        if each.player_id == other and player.player_id in each.blocked:
            return f"player {other} blocked {player.player_id} (block_lists)"
    return None


@per_wave
def met_recently(snapshot: WaveSnapshot, rules: QueueRuleSet) -> Mapping[str, frozenset[str]]:
    """Whom each queued player may not be matched with: whom they met in their last
    ``rematch.last`` matches within ``rematch.within_s`` of the wave's close, and with
    ``block_lists`` whom they blocked or were blocked by (empty without either rule).
    Every strategy reads its pairs to avoid from here, and the checker too: the wave's
    one answer, shared (:func:`matcher.wave_memo.per_wave`).

    Notes: O(players x last x match size), plus O(players + blocked ids) with block lists.
    """
    rule = rules.rematch
    met: dict[str, frozenset[str]] = {}
    if rule is not None and snapshot.meetings:
        since, last = snapshot.closed_at_ms - rule.within_s * 1000, rule.last
        for player_id, history in snapshot.meetings:
            if len(history) == 1 and last:  # most players: one recent match, read whole
                at_ms, others = history[0]
                met[player_id] = frozenset(others if at_ms >= since else ())
            else:
                met[player_id] = frozenset(
                    [
                        other
                        for at_ms, others in history[:last]
                        if at_ms >= since
                        for other in others
                    ]
                )
    if rules.block_lists:
        _add_blocks(snapshot, met)
    return met


def _add_blocks(snapshot: WaveSnapshot, met: dict[str, frozenset[str]]) -> None:
    """Add to ``met`` both sides of every block among ``snapshot``'s players."""
    blocks: dict[str, list[str]] = {}
    for waiting in snapshot.tickets:
        for player in waiting.ticket.players:
            blocked = player.blocked
            if not blocked:
                continue
            player_id = player.player_id
            mine = blocks.get(player_id)
            if mine is None:
                blocks[player_id] = list(blocked)
            else:
                mine.extend(blocked)
            for other in blocked:
                theirs = blocks.get(other)
                if theirs is None:
                    blocks[other] = [player_id]
                else:
                    theirs.append(player_id)
    for player_id, others in blocks.items():
        known = met.get(player_id)
        met[player_id] = frozenset(others) if known is None else known.union(others)


def match_rule_problems(
    rules: QueueRuleSet,
    match: Match,
    snapshot: WaveSnapshot,
    tickets: Mapping[str, Ticket],
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
) -> list[str]:
    """Rule violations of one published match (empty when it respects every rule).

    Its players are those of its tickets in the wave (in ticket id order); a seat whose
    player is none of them is judged by its rating alone (the common checker names it).
    """
    # One pass over the seats: the live check reads every match of a wave this way.
    teams: list[list[int]] = []
    found: dict[str, Ticket] = {}
    for team in match.teams:
        ratings = []
        for seat in team.seats:
            ratings.append(seat.rating)
            ticket_id = seat.ticket_id
            if ticket_id not in found and (ticket := tickets.get(ticket_id)) is not None:
                found[ticket_id] = ticket
        teams.append(ratings)
    players: dict[str, Player] = {}
    for ticket_id in sorted(found) if len(found) > 1 else found:
        for player in found[ticket_id].players:
            players[player.player_id] = player
    region = snapshot.region
    seated: list[Player] = []
    latencies: list[int | None] = []
    for team in match.teams:
        for seat in team.seats:
            seated_player = players.get(seat.player_id)
            if seated_player is not None:
                seated.append(seated_player)
                latencies.append(seated_player.latency_to(region))
    joined = [ticket.joined_at_ms for ticket in found.values()]
    waited = waits_of(snapshot.closed_at_ms, joined) if joined else Waits.both(0.0)
    problem = lineup_problem(rules, teams, waited, latencies, seated, met)
    return [] if problem is None else [f"match {match.match_id}: {problem}"]


def rematch_priced(profile: QueueProfile) -> bool:
    """Whether the queue's strategy prices rematches instead of forbidding them
    (``optimal``'s ``rematch_cost``, ADR 0180; other strategies refuse the option)."""
    return profile.ruleset.rematch is not None and bool(profile.options.get("rematch_cost"))


def hard_rules(profile: QueueProfile) -> QueueRuleSet:
    """The queue's rules that forbid: without ``rematch`` when it is priced.

    >>> profile = QueueProfile("q", "optimal", ("m",), options={"rematch_cost": 9},
    ...                        rules={"rematch": {"last": 1, "within_s": 60}})
    >>> hard_rules(profile).rematch is None
    True
    """
    rules = profile.ruleset
    return replace(rules, rematch=None) if rematch_priced(profile) else rules


def wave_rule_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """Every rule violation in ``result`` (the live checker runs it before publishing).

    Notes: O(seats of the result).
    """
    rules = hard_rules(profile)
    if rules.empty:
        return []
    tickets = {w.ticket.ticket_id: w.ticket for w in snapshot.tickets}
    problems: list[str] = []
    met = met_recently(snapshot, rules)
    for match in result.matches:
        problems += match_rule_problems(rules, match, snapshot, tickets, met)
        if rules.rating is not None:
            for team in match.teams:
                for seat in team.seats:
                    player = _player(tickets.get(seat.ticket_id), seat.player_id)
                    if player is not None and rated(player, rules) != seat.rating:
                        bound = " bound" if rules.deviation is not None else ""
                        problems.append(
                            f"match {match.match_id}: seat of {seat.player_id} is rated "
                            f"{seat.rating}, not the player's {rules.rating!r} rating{bound}"
                        )
    if rules.priority:
        from matcher.rules.priority_check import priority_problems

        def judge(teams: list[list[int]], seated: list[Player], joined: list[int]) -> str | None:
            waited = waits_of(snapshot.closed_at_ms, joined)
            latencies = [player.latency_to(snapshot.region) for player in seated]
            return lineup_problem(rules, teams, waited, latencies, seated, met)

        def rate(player: Player) -> int | None:  # as matcher.teams.model seats a player
            if rules.rating is not None:
                return rated(player, rules)
            return max((value for _, value in player.ratings), default=None)

        shape = (profile.team_count, profile.team_size) if profile.team_steps else None
        problems += priority_problems(snapshot, result, judge, rate, shape)
    return problems


def _player(ticket: Ticket | None, player_id: str) -> Player | None:
    if ticket is None:
        return None
    for player in ticket.players:
        if player.player_id == player_id:
            return player
    return None


def least_spread(players: Sequence[Player]) -> int:
    """The least spread of one rating taken from each player's ratings.

    >>> least_spread([Player("a", (("dps", 1500), ("tank", 1900))), Player("b", (("dps", 1850),))])
    50

    Notes: O(r log r) for r ratings in all.
    """
    values = sorted((value, index) for index, p in enumerate(players) for _, value in p.ratings)
    held: dict[int, int] = {}  # player index -> ratings of theirs in the window
    best, low = math.inf, 0
    for value, index in values:
        held[index] = held.get(index, 0) + 1
        while len(held) == len(players):
            best = min(best, value - values[low][0])
            first = values[low][1]
            held[first] -= 1
            if not held[first]:
                del held[first]
            low += 1
    return int(best)


def ticket_rule_problem(ticket: Ticket, profile: QueueProfile) -> str | None:
    """Why ``ticket`` can never satisfy its queue's rules, however long it waits; or None.

    >>> from matcher.core import Player
    >>> profile = QueueProfile("q", "rebalance", ("m",), team_size=2,
    ...     rules={"rating": "mmr", "max_latency_ms": {"base": 80, "growth_per_s": 1, "cap": 150}})
    >>> far = Player("p", (("mmr", 1500),), latency_ms=(("eu", 200),))
    >>> ticket_rule_problem(Ticket("t", "q", "eu", (far,), 0), profile)
    "player p: latency 200 ms to 'eu' exceeds max_latency_ms's cap 150"
    """
    rules = profile.ruleset
    if rules.empty:
        return None
    ratings: list[int] = []
    for player in ticket.players:
        if rules.rating is not None:
            value = rated(player, rules)
            if value is None:
                return f"player {player.player_id} has no {rules.rating!r} rating"
            ratings.append(value)
        latency = player.latency_to(ticket.region)
        if rules.max_latency_ms is not None and latency is not None:
            widest = rules.max_latency_ms.widest
            if latency > widest:
                return (
                    f"player {player.player_id}: latency {latency} ms to {ticket.region!r} "
                    f"exceeds max_latency_ms's cap {widest:g}"
                )
    if rules.max_spread is not None and ratings:
        spread, widest = max(ratings) - min(ratings), rules.max_spread.widest
        if spread > widest:
            return f"party's rating spread {spread} exceeds max_spread's cap {widest:g}"
    elif rules.max_spread is not None and len(ticket.players) > 1:
        # No rating key: a seat reads one of its player's ratings (a role's, or the best).
        least, widest = least_spread(ticket.players), rules.max_spread.widest
        if least > widest:
            return (
                f"party's rating spread {least} (the least, whichever rating seats each "
                f"player) exceeds max_spread's cap {widest:g}"
            )
    for rule in rules.attributes:
        if rule.relax_after_s is None:  # a party that disagrees with itself never fits
            problem = rule.problem([p.attribute(rule.name) for p in ticket.players], 0.0)
            if problem is not None:
                return f"party: {problem.removesuffix(' after 0 s')}"
    if rules.block_lists:  # a party whose members blocked each other is never matched
        for player in ticket.players:
            for other in ticket.players:
                if other.player_id in player.blocked:
                    return (
                        f"party: player {player.player_id} blocked {other.player_id} (block_lists)"
                    )
    if rules.party_checks:  # a party sits on one team: what it breaks there, it breaks for good
        latencies = ([player.latency_to(ticket.region) for player in ticket.players],)
        whose = "party" if len(ticket.players) > 1 else f"player {ticket.players[0].player_id}"
        for check in rules.party_checks:
            problem = check.problem((ticket.players,), latencies, 0.0)
            if problem is not None:
                return f"{whose}: rule {check.name!r}: {problem}"
    return None


@per_wave
def rated_snapshot(snapshot: WaveSnapshot, rules: QueueRuleSet) -> WaveSnapshot:
    """``snapshot`` with every player rated on ``rules.rating`` alone (unchanged without it).

    A strategy then reads the queue's rating key wherever it reads "the player's rating".
    Tickets with a player lacking the key (joined before the rule) are left out. The
    strategy and the checkers rate the same wave: once (:func:`matcher.wave_memo.per_wave`).

    Notes: O(players).
    """
    key = rules.rating
    if key is None:
        return snapshot
    return _rated_snapshot(snapshot, rules, key)


def _rated_snapshot(snapshot: WaveSnapshot, rules: QueueRuleSet, key: str) -> WaveSnapshot:
    kept = []
    changed = False
    for waiting in snapshot.tickets:
        players = []
        same = True
        for player in waiting.ticket.players:
            value = rated(player, rules)
            if value is None:
                changed = True
                break
            if player.roles or len(player.ratings) != 1 or player.ratings[0][1] != value:
                same = False
                # Rated once: its deviation is spent (a second pass changes nothing).
                # Built from its fields (all of them, whatever they are): a deviation rule
                # rebuilds every player of the wave, and dataclasses.replace costs more.
                fields = list(_PLAYER_FIELDS(player))
                fields[_RATINGS], fields[_ROLES] = ((key, value),), ()
                if rules.deviation:
                    fields[_DEVIATION] = 0
                player = Player(*fields)
            players.append(player)
        else:
            # Players who sent only the queue's rating (a mirror ladder's usual join) are
            # already rated on it: their ticket is kept as it is, no copy.
            if not same:
                changed = True
                fields = list(_TICKET_FIELDS(waiting.ticket))
                fields[_PLAYERS] = tuple(players)
                waiting = WaitingTicket(Ticket(*fields), waiting.wait_cycles)
            kept.append(waiting)
    return replace(snapshot, tickets=tuple(kept)) if changed else snapshot
