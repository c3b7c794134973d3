"""A team queue's rules applied to lineups: the splitter wrapper and the final filter
every team strategy uses, so that no lineup breaking a rule becomes a match."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial

from matcher.rulelogic import Check, carries
from matcher.rules.check import NO_MEETINGS, group_problem, lineup_problem, waited_s, waits_of
from matcher.ruleset import AttributeRule, QueueRuleSet, Waits
from matcher.teams.complete import Admit, Hopeless
from matcher.teams.grouping import Fits, GuidedFits, Need, Splitter
from matcher.teams.model import Keeps, Lineup, Party, team_ratings
from matcher.teams.running import (
    Plan,
    Totals,
    compile_rules,
    count_carriers,
    merged,
    needs,
    number_range,
    party_totals,
    passes,
)


def lineup_rule_problem(
    rules: QueueRuleSet,
    parties: Sequence[Party],
    lineup: Lineup,
    closed_at_ms: int,
    region: str,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    *,
    group_judged: bool = False,
) -> str | None:
    """Why ``lineup`` (indices into ``parties``) breaks ``rules`` at the wave's close;
    ``group_judged`` as :func:`~matcher.rules.check.lineup_problem`'s.

    Notes: O(seats).
    """
    members = [parties[i] for team in lineup.teams for i in team]
    latencies = [player.latency_to(region) for party in members for player in party.players]
    waited = waits_of(closed_at_ms, [party.joined_at_ms for party in members])
    seated = [player for party in members for player in party.players]
    ratings = team_ratings(parties, lineup)
    return lineup_problem(rules, ratings, waited, latencies, seated, met, group_judged=group_judged)


def group_rule_problem(
    rules: QueueRuleSet,
    group: Sequence[Party],
    closed_at_ms: int,
    region: str,
    *,
    split_free_ratings: bool,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    addable_since_ms: int | None = None,
) -> str | None:
    """What ``group`` breaks whatever its split; ``split_free_ratings``: the parties'
    ratings are their seat ratings (a queue without roles), so the spread is judged too.

    ``addable_since_ms``: ``group`` is the start of a larger group whose other parties
    joined at or after this time; what is returned then breaks every such group. Each of
    these rules only tightens as players are added, and each limit only widens with the
    wait, so the group is judged at the loosest waits the larger one can have: its own
    newest ticket's, and the oldest of it and that time.
    """
    players = [player for party in group for player in party.players]
    latencies = [player.latency_to(region) for player in players]
    ratings = [r for party in group for r in party.ratings] if split_free_ratings else []
    joined = [party.joined_at_ms for party in group]
    waited = waits_of(closed_at_ms, joined)
    if addable_since_ms is not None and addable_since_ms < min(joined):
        waited = Waits(waited.newest, waits_of(closed_at_ms, [addable_since_ms]).oldest)
    return group_problem(rules, waited, latencies, players, ratings, met)


def group_admission(
    rules: QueueRuleSet,
    closed_at_ms: int,
    region: str,
    *,
    split_free_ratings: bool,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    also: Admit | None = None,
) -> tuple[Admit, Hopeless]:
    """Completion's two questions under ``rules`` (:func:`matcher.teams.complete.complete`):
    whether a group passes :func:`group_rule_problem` (and ``also``, when given), and
    whether none can that starts with given parties.

    >>> from matcher.core import Player
    >>> from matcher.ruleset import parse_rules
    >>> rules = parse_rules({"attributes": [{"name": "lang", "match": "equal"}]})
    >>> admit, hopeless = group_admission(rules, 0, "eu", split_free_ratings=True)
    >>> speaker = lambda i, lang: Party(f"t{i}", (Player(f"p{i}", (("m", 1),),
    ...     attributes=(("lang", lang),)),), (1,), 0, 0, i)
    >>> de, fr = speaker(0, "de"), speaker(1, "fr")
    >>> admit([de, speaker(2, "de")]), hopeless([de, fr], 0), hopeless([de], 0)
    (True, True, False)
    """
    # The start of a group is judged untallied: the rule metrics count judged groups.
    quiet = replace(rules, tally=None) if rules.tally is not None else rules

    def admit(group: Sequence[Party]) -> bool:
        problem = group_rule_problem(
            rules, group, closed_at_ms, region, split_free_ratings=split_free_ratings, met=met
        )
        return problem is None and (also is None or also(group))

    def hopeless(start: Sequence[Party], addable_since_ms: int) -> bool:
        problem = group_rule_problem(
            quiet,
            start,
            closed_at_ms,
            region,
            split_free_ratings=split_free_ratings,
            met=met,
            addable_since_ms=addable_since_ms,
        )
        return problem is not None

    return admit, hopeless


def seat_blind(rules: QueueRuleSet) -> QueueRuleSet:
    """``rules`` without the limits that read the seats' ratings (spread, team gap,
    distance), uncounted: what no seating of a split can change. A split these refuse
    is refused in every seating; one they take may pass in another seating."""
    return replace(rules, max_spread=None, max_team_gap=None, max_distance=None, tally=None)


def team_rule_keeper(rules: QueueRuleSet, closed_at_ms: int, region: str) -> Keeps | None:
    """Whether a split of a group keeps every named rule whose outcome depends on the
    split (one with a per-team leaf or a ``disjoint``, at any depth), judged as the live
    check judges it (at the group's newest wait); None when no rule depends on the split.
    A rule's other leaves read the whole group, the same for every split, so a split it
    refuses is refused by the lineup check too: the splitter never drops a legal split.

    >>> from matcher.core import Player
    >>> from matcher.ruleset import parse_rules
    >>> rules = parse_rules({"checks": [{"name": "h", "kind": "count", "attribute": "class",
    ...     "value": "healer", "min": 1, "per": "team"}]})
    >>> keeps = team_rule_keeper(rules, 0, "eu")
    >>> healer = Party("a", (Player("a", (), attributes=(("class", "healer"),)),), (1,), 0, 0, 0)
    >>> damage = Party("b", (Player("b", (), attributes=(("class", "damage"),)),), (1,), 0, 0, 1)
    >>> group = [healer, healer, damage, damage]
    >>> keeps(group, [[0, 1], [2, 3]]), keeps(group, [[0, 2], [1, 3]])
    (False, True)
    """
    checks = tuple(check for check in rules.checks if _reads_teams(check))
    if not checks:
        return None
    # Per-team counts (the common per-team rule) are judged on each party's carriers,
    # counted once per group: the splitter asks about many splits of the same group.
    counted = tuple(c for c in checks if c.kind == "count" and c.per == "team" and not c.rules)
    others = tuple(c for c in checks if c not in counted)
    held: Sequence[Party] = ()  # held, so that the group's id is not reused meanwhile
    waited = 0.0
    live: list[tuple[float, float, list[int]]] = []

    def keeps(group: Sequence[Party], split: Sequence[Sequence[int]]) -> bool:
        nonlocal held, waited, live
        if held is not group:
            held = group
            waited = waited_s(closed_at_ms, [party.joined_at_ms for party in group])
            live = [
                (check.low, check.high, [count_carriers(check, party.players) for party in group])
                for check in counted
                if check.optional_after_s is None or waited < check.optional_after_s
            ]
        for low, high, carriers in live:
            for team in split:
                count = sum(carriers[i] for i in team)
                if count < low or count > high:
                    return False
        if not others:
            return True
        teams = [[player for i in team for player in group[i].players] for team in split]
        latencies = [[player.latency_to(region) for player in team] for team in teams]
        return all(check.problem(teams, latencies, waited) is None for check in others)

    return keeps


def _reads_teams(check: Check) -> bool:
    return check.per == "team" or check.kind == "disjoint" or any(map(_reads_teams, check.rules))


def ruled_splitter(
    split: Splitter,
    rules: QueueRuleSet,
    closed_at_ms: int,
    region: str,
    *,
    roles: bool,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    team_count: int = 2,
    fitted: int = 0,
) -> Splitter:
    """``split`` that answers None (no lineup) for a group whose lineup breaks a rule:
    the grouping then tries the next parties, as for roles it cannot fill. A group that
    breaks a rule whatever its split is refused before any split is tried.

    ``fitted``: the match size of the groups, when a grouping built them with
    :func:`rule_fits` under the same rules: a group of that many players was judged by it
    with no room left, so only its split (and what the split decides) is judged here."""
    if rules.empty:
        return split

    bounds = team_bounds(rules, team_count)

    def ruled(group: Sequence[Party]) -> Lineup | None:
        fixed = not roles
        judged = fitted > 0 and sum(party.size for party in group) == fitted
        if not judged and (
            group_rule_problem(
                rules, group, closed_at_ms, region, split_free_ratings=fixed, met=met
            )
            or not within(bounds, group, closed_at_ms, 0)
        ):
            return None
        lineup = split(group)
        if lineup is None or lineup_rule_problem(
            rules, group, lineup, closed_at_ms, region, met, group_judged=judged
        ):
            return None
        return lineup

    return ruled


def allowed_lineups(
    lineups: Sequence[Lineup],
    parties: Sequence[Party],
    rules: QueueRuleSet,
    closed_at_ms: int,
    region: str,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
) -> list[Lineup]:
    """The lineups that respect ``rules``; the others' tickets stay queued."""
    if rules.empty:
        return list(lineups)
    return [
        lineup
        for lineup in lineups
        if lineup_rule_problem(rules, parties, lineup, closed_at_ms, region, met) is None
    ]


def playable_now(
    rules: QueueRuleSet, parties: Sequence[Party], closed_at_ms: int, region: str
) -> list[int]:
    """Indices of the parties that could be in some match of this wave: a party whose own
    latency already exceeds the widest limit a match of it can have (at its own wait, or
    at the wave's oldest ticket's under ``expansion_age = "oldest"``) cannot, so the
    grouping does not try it in group after group."""
    if rules.max_latency_ms is None or not parties:
        return list(range(len(parties)))
    oldest_ms = min(party.joined_at_ms for party in parties)
    kept = []
    for index, party in enumerate(parties):
        waits = waits_of(closed_at_ms, [party.joined_at_ms, oldest_ms])
        limit = rules.max_latency_ms.reached(waits)
        known = [ms for p in party.players if (ms := p.latency_to(region)) is not None]
        if not known or max(known) <= limit:
            kept.append(index)
    return kept


def grouped_by_class(
    rules: QueueRuleSet,
    parties: Sequence[Party],
    candidates: Sequence[int],
    group: Callable[[Sequence[Party]], list[Lineup]],
    closed_at_ms: int | None = None,
) -> list[Lineup]:
    """``group`` run on each class of ``candidates`` agreeing on the queue's ``equal``
    attribute rules (and sharing a band, as wide as the rule's ``max_spread``, of each
    match-wide ``number`` rule's attribute), then once on every candidate still left
    (parties a relaxed rule lets mix, or near a band's edge). A sweep in rating order over
    the whole wave would put players of different values side by side in nearly every
    group and refuse group after group.

    A party whose own wait (at ``closed_at_ms``) has relaxed a rule of ``expansion_age =
    "oldest"`` relaxes it for any match it is in, so it joins the largest class agreeing
    with it on the other rules: a lone speaker of a language would otherwise wait for a
    leftover of the final pass, which a busy queue's class passes never leave.

    Lineups hold indices into ``parties``. Notes: O(candidates) plus the grouping's cost.
    """
    equal = [rule for rule in rules.attributes if rule.match == "equal"]
    spans = _number_spans(rules)
    classes: dict[tuple[object, ...], list[int]] = {}
    relaxed: list[tuple[int, tuple[bool, ...]]] = []
    for index in candidates:
        free = _relaxed(equal, parties[index], closed_at_ms) + (False,) * len(spans)
        if any(free):
            relaxed.append((index, free))
        else:
            classes.setdefault(_class_key(parties[index], equal, spans), []).append(index)
    # The classes agreeing with a (relaxed rules, key) pair, kept until a class is added:
    # most relaxed parties share a few such pairs.
    agreeing_with: dict[tuple[tuple[bool, ...], tuple[object, ...]], list[tuple[object, ...]]] = {}
    for index, free in relaxed:
        key = _class_key(parties[index], equal, spans)
        agreeing = agreeing_with.get((free, key))
        if agreeing is None:
            agreeing = agreeing_with[free, key] = [
                k for k in classes if all(f or a == b for f, a, b in zip(free, key, k, strict=True))
            ]
        home = max(agreeing, key=lambda k: len(classes[k]), default=key)
        if home not in classes:
            agreeing_with.clear()
        classes.setdefault(home, []).append(index)
    passes = [sorted(members) for members in classes.values()]
    passes = passes if (equal or spans) and len(classes) > 1 else []
    lineups: list[Lineup] = []
    taken: set[int] = set()
    for members in [*passes, list(candidates)]:
        members = [i for i in members if i not in taken]
        for lineup in group([parties[i] for i in members]):
            teams = tuple(tuple(members[i] for i in team) for team in lineup.teams)
            lineups.append(Lineup(teams, lineup.roles))
            taken.update(i for team in teams for i in team)
    return lineups


def _number_spans(rules: QueueRuleSet) -> list[tuple[str, float]]:
    return [
        (check.attribute, check.max_spread)
        for check in rules.checks
        if check.kind == "number" and check.per == "match" and check.max_spread
    ]


def _span_key(party: Party, spans: Sequence[tuple[str, float]]) -> tuple[int | None, ...]:
    key: list[int | None] = []
    for attribute, spread in spans:
        found = number_range(party.players, attribute)
        key.append(None if found is None else math.floor(found[0] / spread))
    return tuple(key)


def _relaxed(
    rules: Sequence[AttributeRule], party: Party, closed_at_ms: int | None
) -> tuple[bool, ...]:
    """Per rule: has ``party``'s own wait relaxed it for any match it is in?"""
    waited = None if closed_at_ms is None else waits_of(closed_at_ms, [party.joined_at_ms])
    return tuple(
        waited is not None
        and rule.relax_after_s is not None
        and rule.expansion_age == "oldest"
        and waited.oldest >= rule.relax_after_s
        for rule in rules
    )


def _class_key(
    party: Party, rules: Sequence[AttributeRule], spans: Sequence[tuple[str, float]] = ()
) -> tuple[object, ...]:
    key: list[str | None] = []
    for rule in rules:
        values = {player.attribute(rule.name) for player in party.players}
        key.append(values.pop() if len(values) == 1 else None)
    return (*key, *_span_key(party, spans))


def rule_fits(
    rules: QueueRuleSet,
    closed_at_ms: int,
    region: str,
    *,
    roles: bool,
    met: Mapping[str, frozenset[str]] = NO_MEETINGS,
    team_count: int = 2,
    match_size: int = 0,
) -> Fits | None:
    """The grouping's ``fits`` for ``rules``: a party joins a group when the group with it
    breaks no rule that no split can mend (None without rules)."""
    if rules.empty:
        return None
    bounds = team_bounds(rules, team_count)
    plan = compile_rules(
        rules,
        bounds,
        split_free_ratings=not roles,
        met=met,
        region=region,
        closed_at_ms=closed_at_ms,
        match_size=match_size,
    )
    if plan is not None:
        return running_fits(plan)

    def fits(members: Sequence[Party], candidate: Party) -> bool:
        group = [*members, candidate]
        problem = group_rule_problem(
            rules, group, closed_at_ms, region, split_free_ratings=not roles, met=met
        )
        if problem is not None or not bounds:
            return problem is None
        room = match_size - sum(party.size for party in group)
        return within(bounds, group, closed_at_ms, room)

    return fits


def running_fits(plan: Plan) -> Fits:
    """``fits`` on running totals (:class:`_RunningFits`)."""
    return _RunningFits(plan)


class _RunningFits(GuidedFits):
    """``fits`` on running totals: the grouping tests candidate after candidate against
    the same members, and grows them one party at a time, so the members' totals are
    kept (with the parties they are of, compared by identity) and extended by the party
    added, and each party's own totals are computed once."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._own: dict[int, tuple[Party, Totals]] = {}
        self._kept: list[Party] = []
        self._kept_totals: Totals | None = None

    def _totals_of(self, party: Party) -> Totals:
        found = self._own.get(id(party))
        if found is None or found[0] is not party:
            found = self._own[id(party)] = (party, party_totals(self._plan, party))
        return found[1]

    def _held(self, members: Sequence[Party]) -> Totals | None:
        kept = self._kept
        same = len(members) >= len(kept) and all(map(operator.is_, members, kept))
        if not same:
            kept.clear()
            self._kept_totals = None
        for party in members[len(kept) :]:
            add = self._totals_of(party)
            held = self._kept_totals
            self._kept_totals = add if held is None else merged(self._plan, held, add)
            kept.append(party)
        return self._kept_totals

    def __call__(self, members: Sequence[Party], candidate: Party) -> bool:
        held = self._held(members)
        found = self._own.get(id(candidate))
        add = self._totals_of(candidate) if found is None or found[0] is not candidate else found[1]
        return passes(self._plan, add) if held is None else passes(self._plan, held, add)

    def needs(self, members: Sequence[Party]) -> tuple[Need, ...]:
        held = self._held(members)
        return () if held is None else needs(self._plan, held)

    def least_carriers(self) -> tuple[tuple[Callable[[Party], int], float], ...]:
        # A per-team count bound with no ``optional_after_s`` binds every group; the
        # grouping's groups are all judged against it with no room left (``fitted``).
        return tuple(
            (partial(self._carriers, index), check.low)
            for index, check in enumerate(self._plan.bounds)
            if check.optional_after_s is None and check.low > 0
        )

    def _carriers(self, index: int, party: Party) -> int:
        """How many of ``party``'s players carry what count bound ``index`` counts: read
        off its totals, which the grouping's fits reads anyway."""
        return self._totals_of(party).counts[index]


def team_bounds(rules: QueueRuleSet, team_count: int) -> tuple[Check, ...]:
    """What a group must hold for a per-team ``count`` rule to hold in some split: its
    total within ``team_count`` times the rule's bounds (see :func:`within`).

    >>> from matcher.ruleset import parse_rules
    >>> rules = parse_rules({"checks": [{"name": "h", "kind": "count", "attribute": "c",
    ...     "value": "healer", "min": 1, "max": 2, "per": "team"}]})
    >>> [(c.low, c.high, c.per) for c in team_bounds(rules, 2)]
    [(2.0, 4.0, 'match')]
    """
    return tuple(
        replace(check, per="match", low=check.low * team_count, high=check.high * team_count)
        for check in rules.checks
        if check.kind == "count" and check.per == "team"
    )


def within(bounds: Sequence[Check], group: Sequence[Party], closed_at_ms: int, room: int) -> bool:
    """Whether ``group`` can still meet every one of ``bounds`` (:func:`team_bounds`) with
    ``room`` more players: no count above its upper bound (more players cannot lower it),
    and no count so far below its lower bound that the room left cannot make it up. The
    grouping then looks further for the players a group lacks (a second healer) instead
    of filling it with players it cannot split."""
    if not bounds:
        return True
    players = [player for party in group for player in party.players]
    waited = waited_s(closed_at_ms, [party.joined_at_ms for party in group])
    for check in bounds:
        if check.optional_after_s is not None and waited >= check.optional_after_s:
            continue
        count = 0
        for player in players:
            value = player.attribute(check.attribute)
            if value is not None and carries(value, check.value):
                count += 1
        if count > check.high or check.low - count > room:
            return False
    return True


def preference_key(rules: QueueRuleSet) -> Callable[[Party], float] | None:
    """The sweep's order under the queue's soft ``sort`` preferences, None without them:
    a party's mean rating plus each preference's weight times its players' mean value of
    that numeric attribute (players without it are not counted; a party where nobody
    gives it adds nothing). It orders the grouping only, so it never keeps anyone out.

    >>> from matcher.core import Player
    >>> from matcher.ruleset import parse_rules
    >>> key = preference_key(parse_rules({"sort": [{"number": "level", "weight": 10}]}))
    >>> player = Player("p", (("mmr", 1500),), numbers=(("level", 3.0),))
    >>> key(Party("t", (player,), (1500,), 0, 0, 0))
    1530.0
    """
    if not rules.sort:
        return None
    preferences = rules.sort

    def key(party: Party) -> float:
        value = party.mean
        for preference in preferences:
            # A plain loop: the key is read of every party of the wave.
            total, count = 0.0, 0
            for player in party.players:
                given = player.number(preference.number)
                if given is not None:
                    total += given
                    count += 1
            if count:
                value += preference.weight * total / count
        return value

    return key
