"""Which queued parties fill a backfill request's open slots, and why (docs/adr/0114).

The oldest eligible parties form a pool; each exact fill of the open slots drawn from
it is seated beside the session's players by S2's permutation method
(:func:`matcher.teams.rebalance.permutation`, ``existing=`` the session's ratings); the
queue's rules (:func:`matcher.rules.check.lineup_problem`) judge the whole session; the
fill with the smallest team mean rating gap wins, the older fill on a tie. Every
candidate older than the youngest chosen party gets the reason it was passed over.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from matcher.core import Player, Ticket
from matcher.queue.lifecycle import BackfillRequested
from matcher.rules.check import NO_MEETINGS, group_problem, lineup_problem, rated, waits_of
from matcher.ruleset import QueueRuleSet
from matcher.teams.model import Party, TeamShape
from matcher.teams.rebalance import Key, composition_key, permutation

#: Parties in the pool at most: the oldest eligible ones.
POOL_MAX_PARTIES = 8
#: Exact fills of the pool tried per request at most, oldest first.
MAX_FILLS = 32
#: Party sequences the permutation method tries per fill (6! : every deal of 6 parties).
MAX_SEQUENCES = 720
#: Party sequences dealt per request at most, all fills together: the permutation
#: method's own default cap, so a choice costs about one default permutation call.
MAX_DEALS = 5040


@dataclass(frozen=True, slots=True)
class PassedOver:
    """A queued ticket older than the youngest chosen one, and why it was not chosen."""

    ticket_id: str
    joined_at_ms: int
    reason: str


@dataclass(frozen=True, slots=True)
class BackfillChoice:
    """How one request was filled: the chosen tickets per team (request order, every
    team), the largest gap between team mean ratings before and after, and the older
    candidates passed over. Not published: ``explain`` reads it from the fold's step."""

    session_id: str
    queue: str
    region: str
    requested_at_ms: int
    wave_id: str
    teams: tuple[tuple[str, tuple[str, ...]], ...]
    gap_before: float
    gap_after: float
    passed_over: tuple[PassedOver, ...]
    pool: int
    fills_tried: int
    #: Every exact fill of the pool was tried, each with every deal of its parties.
    exhaustive: bool


def seat_rating(player: Player, key: str | None) -> int | None:
    """The rating a newcomer is seated with: the queue's rating key, else their best.

    >>> seat_rating(Player("p", (("mmr", 1500), ("tank", 1700))), "mmr")
    1500
    >>> seat_rating(Player("p", (("mmr", 1500), ("tank", 1700))), None)
    1700
    """
    if key is not None:
        return player.rating(key)
    return max((value for _, value in player.ratings), default=0)


def seated_under(player: Player, rules: QueueRuleSet) -> int | None:
    """:func:`seat_rating` under ``rules``: the confidence bound under a deviation rule."""
    return (
        rated(player, rules) if rules.deviation is not None else seat_rating(player, rules.rating)
    )


def session_players(
    request: BackfillRequested, seated: Sequence[Ticket] = ()
) -> tuple[Player, ...]:
    """The session's players as the rules see them: ids only (a request carries no more),
    but a player an earlier partial fill seated with their ticket's attributes.

    >>> from matcher.queue.lifecycle import BackfillTeam
    >>> request = BackfillRequested("s", "q", "eu", (BackfillTeam("red", (("a", 1),), 1),), 0)
    >>> [player.player_id for player in session_players(request)]
    ['a']
    """
    known = {player.player_id: player for ticket in seated for player in ticket.players}
    return tuple(
        known.get(pid, Player(pid, ())) for team in request.teams for pid, _ in team.players
    )


@dataclass(frozen=True, slots=True)
class _Judged:
    """Per pool party: the best legal key of a fill holding it, else the last problem."""

    best: Key | None = None
    problem: str | None = None


def choose_fill(
    request: BackfillRequested,
    tickets: Sequence[Ticket],
    closed_at_ms: int,
    expired_before: int,
    rules: QueueRuleSet,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    wave_id: str = "",
    seated: Sequence[Ticket] = (),
) -> BackfillChoice | None:
    """The most balanced legal fill of ``request`` from ``tickets`` (join order); None if none.

    A ticket joined at or before ``expired_before`` expires at this tick and is not a
    candidate. ``met`` is whom each queued player met recently (the rematch rule);
    ``seated`` the tickets earlier partial fills seated in the session.

    >>> from matcher.queue.lifecycle import BackfillTeam
    >>> from matcher.ruleset import NO_RULES
    >>> solo = lambda t, r, at: Ticket(t, "3v3", "eu", (Player("p" + t, (("mmr", r),)),), at)
    >>> request = BackfillRequested("s", "3v3", "eu", (
    ...     BackfillTeam("red", (("r1", 1500), ("r2", 1500)), 0),
    ...     BackfillTeam("blue", (("b1", 1500),), 1)), 0)
    >>> queued = [solo("old", 1300, 1), solo("mid", 1490, 2), solo("new", 1510, 3)]
    >>> choice = choose_fill(request, queued, 10_000, 0, NO_RULES)
    >>> choice.teams, choice.gap_before, choice.gap_after
    ((('red', ()), ('blue', ('mid',))), 0.0, 5.0)
    >>> [(p.ticket_id, p.reason) for p in choice.passed_over]
    [('old', 'its best fill leaves a team gap of 100, not 5')]

    Notes: O(n) to build the pool from n queued tickets (at most ``POOL_MAX_PARTIES``
    plus the open slots' worth of parties per size), then at most ``MAX_FILLS`` fills
    and ``MAX_DEALS + MAX_SEQUENCES`` deals in all, each O(k + t) for k parties and t
    teams (permutation method), plus O(seats) per fill for the rules.
    """
    caps = tuple(len(team.players) + team.open_slots for team in request.teams)
    existing = tuple(tuple(r for _, r in team.players) for team in request.teams)
    members = session_players(request, seated)
    pool, passed = _pool(request, tickets, closed_at_ms, expired_before, rules, met, members)
    session = _Session(request.region, caps, existing, members, closed_at_ms, rules, met)
    judged = [_Judged() for _ in pool]
    best: tuple[Key, tuple[tuple[int, ...], ...]] | None = None
    tried, deals, cut, sampled = 0, 0, False, False
    for fill in _exact_fills([p.size for p in pool], sum(t.open_slots for t in request.teams)):
        if tried == MAX_FILLS or deals >= MAX_DEALS:
            cut = True
            break
        tried += 1
        orders = math.factorial(len(fill))
        deals += min(orders, MAX_SEQUENCES)
        sampled = sampled or orders > MAX_SEQUENCES
        key, teams, problem = session.seat([pool[i] for i in fill])
        _note(judged, fill, key, problem)
        if key is not None and (best is None or key < best[0]):
            best = (key, tuple(tuple(sorted(fill[i] for i in team)) for team in teams))
    if best is None:
        return None
    return _choice(request, pool, passed, judged, best, existing, (tried, cut, sampled), wave_id)


@dataclass(frozen=True, slots=True)
class _Session:
    """The running session a fill is seated in, and the rules it must keep."""

    region: str
    caps: tuple[int, ...]
    existing: tuple[tuple[int, ...], ...]
    members: tuple[Player, ...]
    closed_at_ms: int
    rules: QueueRuleSet
    met: Mapping[str, frozenset[str]]

    def seat(
        self, parties: Sequence[Party]
    ) -> tuple[Key | None, tuple[tuple[int, ...], ...], str | None]:
        """The permutation method's best seating of ``parties`` (key, party indices per
        team), or why it has none: no exact deal, or the rule the best seating breaks.

        Only ``max_team_gap`` depends on the seating, and the best key has the least gap:
        if the best seating breaks a rule, every seating of these parties does.
        """
        shape = TeamShape(len(self.caps), min(self.caps), max(self.caps))
        lineup = permutation(
            parties, shape, self.existing, max_sequences=MAX_SEQUENCES, capacities=self.caps
        )
        if lineup is None:
            return None, (), "no deal of it fits the teams' open slots exactly"
        ratings = [
            [*self.existing[t], *(r for i in team for r in parties[i].ratings)]
            for t, team in enumerate(lineup.teams)
        ]
        waited = waits_of(self.closed_at_ms, [p.joined_at_ms for p in parties])
        players = [*self.members, *(player for p in parties for player in p.players)]
        latencies = [p.latency_to(self.region) for q in parties for p in q.players]
        problem = lineup_problem(self.rules, ratings, waited, latencies, players, self.met)
        if problem is not None:
            return None, (), problem
        return composition_key(ratings), lineup.teams, None


def _pool(
    request: BackfillRequested,
    tickets: Sequence[Ticket],
    closed_at_ms: int,
    expired_before: int,
    rules: QueueRuleSet,
    met: Mapping[str, frozenset[str]],
    members: tuple[Player, ...],
) -> tuple[list[Party], list[tuple[int, Ticket, str]]]:
    """The oldest eligible parties, and each older ineligible one with its reason.

    The pool takes the ``POOL_MAX_PARTIES`` oldest eligible parties, and beyond them, per
    party size ``s``, the oldest parties up to what the open slots could seat at once
    (the sum over teams of ``open // s``): so the fill of the oldest parties that fit,
    team by team (ADR 0113's choice), is always among the fills considered.
    """
    widest = max(team.open_slots for team in request.teams)
    seatable = [0] + [sum(t.open_slots // s for t in request.teams) for s in range(1, widest + 1)]
    wanted = sum(seatable)  # reserved places still open, all sizes together
    ratings = [r for team in request.teams for _, r in team.players]
    # The oldest candidate's wait bounds the limits of every fill (expansion_age "oldest").
    oldest = next((t.joined_at_ms for t in tickets if t.joined_at_ms > expired_before), 0)
    pool: list[Party] = []
    passed: list[tuple[int, Ticket, str]] = []
    for order, ticket in enumerate(tickets):
        full = len(pool) >= POOL_MAX_PARTIES
        if full and wanted == 0:
            break
        # The cheap reasons first: past a full pool most tickets stop here.
        size = len(ticket.players)
        if size > widest:
            reason: str | None = f"party of {size}, more than any team's open slots ({widest})"
        elif full and seatable[size] == 0:
            reason = "the pool already holds the oldest eligible parties"
        else:
            reason = _ineligible(
                ticket, (closed_at_ms, oldest), expired_before, rules, met, members, ratings
            )
        if reason is not None:
            passed.append((order, ticket, reason))
            continue
        if seatable[size]:
            seatable[size] -= 1
            wanted -= 1
        seated = tuple(seated_under(p, rules) or 0 for p in ticket.players)
        pool.append(Party(ticket.ticket_id, ticket.players, seated, ticket.joined_at_ms, 0, order))
    return pool, passed


def _ineligible(
    ticket: Ticket,
    times: tuple[int, int],
    expired_before: int,
    rules: QueueRuleSet,
    met: Mapping[str, frozenset[str]],
    members: tuple[Player, ...],
    ratings: list[int],
) -> str | None:
    """Why ``ticket`` can join no fill of this session, or None (the split-free rules).

    ``times``: the wave's close and the oldest candidate's join time."""
    closed_at_ms, oldest_ms = times
    if ticket.joined_at_ms <= expired_before:
        return "expires at this tick (ticket_ttl_ms)"
    seated: list[int] = []
    for player in ticket.players:
        value = seated_under(player, rules)
        if value is None:
            return f"player {player.player_id} has no {rules.rating!r} rating"
        seated.append(value)
    if rules.empty:
        return None
    waited = waits_of(closed_at_ms, [ticket.joined_at_ms, min(oldest_ms, ticket.joined_at_ms)])
    latencies = [p.latency_to(ticket.region) for p in ticket.players]
    players = [*members, *ticket.players]
    problem = group_problem(rules, waited, latencies, players, [*ratings, *seated], met)
    return None if problem is None else f"rule: {problem}"


def _exact_fills(sizes: Sequence[int], total: int) -> Iterator[tuple[int, ...]]:
    """Index sets of ``sizes`` summing to ``total``, in lexicographic (oldest-first) order.

    >>> list(_exact_fills([1, 2, 1, 1], 2))
    [(0, 2), (0, 3), (1,), (2, 3)]
    """

    def extend(start: int, room: int, chosen: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if room == 0:
            yield chosen
            return
        for i in range(start, len(sizes)):
            if sizes[i] <= room:
                yield from extend(i + 1, room - sizes[i], (*chosen, i))

    return extend(0, total, ())


def _note(judged: list[_Judged], fill: Sequence[int], key: Key | None, problem: str | None) -> None:
    for i in fill:
        seen = judged[i]
        if key is not None and (seen.best is None or key < seen.best):
            judged[i] = _Judged(key, seen.problem)
        elif key is None and seen.best is None:
            judged[i] = _Judged(None, problem)


def _choice(
    request: BackfillRequested,
    pool: Sequence[Party],
    passed: list[tuple[int, Ticket, str]],
    judged: Sequence[_Judged],
    best: tuple[Key, tuple[tuple[int, ...], ...]],
    existing: tuple[tuple[int, ...], ...],
    search: tuple[int, bool, bool],
    wave_id: str,
) -> BackfillChoice:
    key, teams = best
    chosen = {i for team in teams for i in team}
    youngest = max(pool[i].order for i in chosen)
    older = [
        (order, PassedOver(ticket.ticket_id, ticket.joined_at_ms, reason))
        for order, ticket, reason in passed
        if order < youngest
    ]
    for i, party in enumerate(pool):
        if i not in chosen and party.order < youngest:
            why = _why(judged[i], key, search)
            older.append((party.order, PassedOver(party.ticket_id, party.joined_at_ms, why)))
    older.sort(key=lambda item: item[0])
    return BackfillChoice(
        request.session_id,
        request.queue,
        request.region,
        request.at_ms,
        wave_id,
        tuple(
            (team.name, tuple(pool[i].ticket_id for i in members))
            for team, members in zip(request.teams, teams, strict=True)
        ),
        composition_key([list(r) for r in existing])[1],
        key[1],
        tuple(p for _, p in older),
        len(pool),
        search[0],
        not (search[1] or search[2]),
    )


def _why(judged: _Judged, chosen: Key, search: tuple[int, bool, bool]) -> str:
    if judged.best is not None:
        if judged.best[1] > chosen[1]:
            return f"its best fill leaves a team gap of {judged.best[1]:g}, not {chosen[1]:g}"
        return "an equally balanced fill of older parties came first"
    if judged.problem is not None:
        return f"every fill with it breaks a rule: {judged.problem}"
    if search[1]:
        return f"not tried: the search stopped after {search[0]} fills (MAX_FILLS, MAX_DEALS)"
    return "no set of parties with it fills the open slots exactly (parties stay whole)"
