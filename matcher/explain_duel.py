"""The 1v1 part of :mod:`matcher.explain`: windows, pair costs and exchanges."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from matcher.alternatives import Alternative
from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.duel.checks import DuelRules, duel_rules
from matcher.duel.graph import duel_arrays
from matcher.duel.limits import DuelLimits, duel_limits
from matcher.duel.model import BW, SC2, DuelPlayer
from matcher.duel.rematch_cost import RematchPenalty, pair_rules, rematch_penalty, wave_priced
from matcher.duel.windows import pair_wait
from matcher.rules.check import hard_rules, lineup_problem, met_recently, waits_of


@dataclass(frozen=True, slots=True)
class _Judge:
    """The checker's rules of the wave (:func:`matcher.duel.checks.duel_rules`) plus maps."""

    rules: DuelRules
    maps: tuple[str, ...]
    #: The queue's rules as ``optimal`` filters pairs (None: no rule limits a pair).
    limits: DuelLimits | None = None
    index: Mapping[str, int] | None = None
    #: ``optimal``'s sit-out priority per overdue wave (0: none), so that a cost here is
    #: the one its objective compares (:func:`matcher.duel.graph.sit_out_priority`).
    priority: int = 0
    #: Rematches ``optimal`` priced in this wave (``rematch_cost``, ADR 0180).
    penalty: RematchPenalty | None = None
    #: ``optimal_choice = "weighted"``: the pairs are a seeded draw, not the least cost.
    drawn: bool = False
    #: Which of the queue's rules a (BW, SC2) pair breaks, as the rules checker says it.
    broken_rule: Callable[[DuelPlayer, DuelPlayer], str | None] | None = None

    def overdue(self, player: DuelPlayer) -> int:
        after = self.rules.config.optimal_sit_out_after
        return 0 if not self.priority or after is None else max(player.wait_cycles - after, 0)

    def limit(self, bw: DuelPlayer, sc2: DuelPlayer) -> float:
        """The pair's largest diff: its window, or its ``max_distance`` when that replaces it."""
        if self.limits is not None and self.limits.replaces_window and self.index is not None:
            i, j = self.index[bw.ticket_id], self.index[sc2.ticket_id]
            pair = max if self.limits.distance_oldest else min
            return float(pair(self.limits.distance[i], self.limits.distance[j]))
        return self.rules.limit(bw, sc2)

    def outside(self, bw: DuelPlayer, sc2: DuelPlayer, diff: int) -> str | None:
        """Why the pair is outside its window, or None when inside."""
        if self.rules.rank is not None:
            between, allowed = self.rules.rank_limit(bw, sc2)
            if between <= allowed:
                return None
            return f"{between} ratings between > percentile window {allowed}"
        limit = self.limit(bw, sc2)
        if diff <= limit:
            return None
        named = "max_distance" if self.limits and self.limits.replaces_window else "window"
        return f"diff {diff} > {named} {limit:g}"

    def ruled_out(self, bw: DuelPlayer, sc2: DuelPlayer, diff: int) -> bool:
        """Whether the queue's latency, attribute, rematch or block-list rule forbids the pair."""
        if self.limits is None or self.index is None:
            return False
        u = np.array([self.index[bw.ticket_id]])
        v = np.array([self.index[sc2.ticket_id]])
        return not bool(self.limits.allowed(u, v, np.array([diff]))[0])

    def pairing(self, u: DuelPlayer, v: DuelPlayer) -> tuple[int, int] | None:
        """(cost, diff) of the best legal side assignment of ``u`` and ``v``; None if none."""
        best: tuple[int, int] | None = None
        for bw, sc2 in _sides(u, v):
            assert bw.bw_mmr is not None and sc2.sc2_mmr is not None
            diff = abs(bw.bw_mmr - sc2.sc2_mmr)
            if self.outside(bw, sc2, diff) or not self._free_map(bw, sc2):
                continue
            if self.ruled_out(bw, sc2, diff):
                continue
            bonus = self.rules.config.wait_bonus
            cost = diff * diff - bonus * (bw.wait_cycles + sc2.wait_cycles)
            cost -= self.priority * (self.overdue(bw) + self.overdue(sc2))
            if self.penalty is not None and self.index is not None:
                at = np.array([self.index[bw.ticket_id], self.index[sc2.ticket_id]])
                cost += int(self.penalty.table(at)[0, 1])
            if best is None or cost < best[0]:
                best = (cost, diff)
        return best

    def why_illegal(self, u: DuelPlayer, v: DuelPlayer) -> str:
        sides = _sides(u, v)
        if not sides:
            return "no side assignment: both can only play the same race"
        reasons = []
        for bw, sc2 in sides:
            assert bw.bw_mmr is not None and sc2.sc2_mmr is not None
            diff = abs(bw.bw_mmr - sc2.sc2_mmr)
            side = "BW" if self.rules.sides[0] == BW else self.rules.sides[0]
            if outside := self.outside(bw, sc2, diff):
                reasons.append(f"{bw.player_id} as {side}: {outside}")
            elif self.ruled_out(bw, sc2, diff):
                named = self.broken_rule(bw, sc2) if self.broken_rule is not None else None
                rule = named or "the queue's latency, attribute, rematch or block_lists rule"
                reasons.append(f"{bw.player_id} as {side}: {rule}")
            else:
                reasons.append(f"{bw.player_id} as {side}: no map that neither vetoed")
        return "; ".join(reasons)

    def _free_map(self, bw: DuelPlayer, sc2: DuelPlayer) -> bool:
        return bool(set(self.maps) - set(bw.vetoed_maps) - set(sc2.vetoed_maps))


def _rule_judge(
    snapshot: WaveSnapshot, profile: QueueProfile
) -> Callable[[DuelPlayer, DuelPlayer], str | None]:
    """The rules checker's verdict on a pair (the queue's hard rules: a priced rematch
    is a cost, not a rule), naming the rule a pair breaks."""
    rules = hard_rules(profile)
    met = met_recently(snapshot, rules)
    tickets = {waiting.ticket.ticket_id: waiting.ticket for waiting in snapshot.tickets}

    def broken(bw: DuelPlayer, sc2: DuelPlayer) -> str | None:
        pair = (tickets[bw.ticket_id], tickets[sc2.ticket_id])
        players = [player for ticket in pair for player in ticket.players]
        latencies = [player.latency_to(snapshot.region) for player in players]
        waits = waits_of(snapshot.closed_at_ms, [ticket.joined_at_ms for ticket in pair])
        teams = [[bw.bw_mmr or 0], [sc2.sc2_mmr or 0]]
        return lineup_problem(rules, teams, waits, latencies, players, met)

    return broken


def _sides(u: DuelPlayer, v: DuelPlayer) -> list[tuple[DuelPlayer, DuelPlayer]]:
    """The (BW, SC2) assignments the two players' races allow."""
    return [
        (bw, sc2)
        for bw, sc2 in ((u, v), (v, u))
        if bw.bw_mmr is not None and sc2.sc2_mmr is not None
    ]


def explain_duel(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult, match: Match, nearest: int
) -> tuple[tuple[tuple[str, str], ...], tuple[Alternative, ...]]:
    """Facts about the pair's window and cost, and its ``nearest`` alternatives per player.

    Notes: O(n log n) for n players (a sort per player of the match).
    """
    rules = duel_rules(snapshot, profile, profile.strategy)
    players = rules.paired  # as optimal paired them: virtual ratings when on (ADR 0179)
    # What optimal filters by; ladder-v2.1 honours no pair rule (refused at start).
    limits: DuelLimits | None = None
    penalty: RematchPenalty | None = None
    priority = 0
    if profile.strategy == "optimal":
        priced = wave_priced(profile, rules.config, len(players))
        limits = duel_limits(players, snapshot, pair_rules(profile, priced))
        if priced:
            cost = rules.config.rematch_cost
            penalty = rematch_penalty(players, snapshot, profile.ruleset, cost)
        lead_is_bw = rules.lead_side == BW
        arrays = duel_arrays(players, profile.maps, rules.window, rules.config, lead_is_bw, limits)
        priority = arrays.priority
    index = {p.ticket_id: i for i, p in enumerate(players)}
    drawn = profile.strategy == "optimal" and rules.config.optimal_choice == "weighted"
    broken = _rule_judge(snapshot, profile) if limits is not None else None
    judge = _Judge(rules, profile.maps, limits, index, priority, penalty, drawn, broken)
    by_ticket = {p.ticket_id: p for p in players}
    partner: dict[str, str] = {}
    for other in result.matches:
        a, b = (team.seats[0].ticket_id for team in other.teams)
        partner[a], partner[b] = b, a
    bw_ticket, sc2_ticket = (team.seats[0].ticket_id for team in match.teams)
    bw, sc2 = by_ticket[bw_ticket], by_ticket[sc2_ticket]
    chosen = judge.pairing(bw, sc2)
    wait = pair_wait(rules.config.window_rule, bw, sc2, rules.lead_side)
    window = (
        f"pressure {_stat(result, 'pressure', 0.0):.3f} -> base {rules.window.base} + "
        f"{rules.window.growth} per earlier wave; rule '{rules.config.window_rule}' "
        f"counts {wait} earlier waves -> max diff {rules.limit(bw, sc2)}"
    )
    if rules.rank is not None:
        between, allowed = rules.rank_limit(bw, sc2)
        window = (
            f"percentile {rules.config.window_percentile:g} of the wave's "
            f"{len(rules.rank.pool)} ratings; rule '{rules.config.window_rule}' counts {wait} "
            f"earlier waves -> at most {allowed} between, {between} for this pair"
        )
    if limits is not None and limits.replaces_window:
        window = (
            f"the queue's max_distance replaces it: {judge.limit(bw, sc2):g} for this pair "
            f"(the limit of its {limits.distance_age} ticket)"
        )
    rematch = " + rematch cost" if penalty is not None else ""
    facts: tuple[tuple[str, str], ...] = (
        ("window", window),
        (
            "pair cost",
            f"diff^2 - {rules.config.wait_bonus} x waits{rematch}"
            + (
                f" - {priority} x waves past {rules.config.optimal_sit_out_after}"
                if priority
                else ""
            )
            + " = "
            f"{chosen[0] if chosen else 'illegal'} (lower is better)",
        ),
    )
    if rules.virtual is not None:
        half_life = rules.config.virtual_rating_half_life_ms
        facts += (
            (
                "ratings",
                f"virtual: pulled toward the wave's mean, halfway per {half_life} ms waited "
                "(diffs and costs here are between virtual ratings)",
            ),
        )
    if drawn:
        facts += (
            (
                "choice",
                "optimal_choice weighted: the wave's seeded draw among its maximum "
                f"matchings, closer pairs likelier (scale {rules.config.optimal_choice_scale})",
            ),
        )
    alternatives: list[Alternative] = []
    for me, mate, side in ((bw, sc2, BW), (sc2, bw, SC2)):
        rating = me.bw_mmr if side == BW else me.sc2_mmr
        assert rating is not None
        others = [p for p in players if p.ticket_id not in (me.ticket_id, mate.ticket_id)]
        others.sort(key=lambda p: (_distance(rating, p, side), p.ticket_id))
        for candidate in others[:nearest]:
            alternatives.append(_judge(judge, me, mate, candidate, by_ticket, partner, chosen))
    return facts, tuple(alternatives)


def _judge(
    judge: _Judge,
    me: DuelPlayer,
    mate: DuelPlayer,
    candidate: DuelPlayer,
    by_ticket: dict[str, DuelPlayer],
    partner: dict[str, str],
    chosen: tuple[int, int] | None,
) -> Alternative:
    instead = judge.pairing(me, candidate)
    if instead is None:
        return Alternative(
            me.player_id,
            candidate.player_id,
            None,
            "not a legal pair: " + judge.why_illegal(me, candidate),
        )
    cost, diff = instead
    current = chosen[0] if chosen else 0
    their_ticket = partner.get(candidate.ticket_id)
    if their_ticket is None:
        delta = cost - current
        return Alternative(
            me.player_id,
            candidate.player_id,
            diff,
            (
                f"unmatched in this wave; pairing them instead would leave {mate.player_id} out "
                f"and change the wave's cost by {delta:+d}"
            ),
        )
    theirs = by_ticket[their_ticket]
    their_cost = judge.pairing(candidate, theirs)
    swap = judge.pairing(mate, theirs)
    if swap is None:
        return Alternative(
            me.player_id,
            candidate.player_id,
            diff,
            (
                f"matched with {theirs.player_id}; the exchange would cost a match "
                f"({mate.player_id} and {theirs.player_id} cannot play each other)"
            ),
        )
    delta = cost + swap[0] - current - (their_cost[0] if their_cost else 0)
    judged = "no better" if delta >= 0 else "better: the strategy missed it"
    if delta < 0 and judge.drawn:
        judged = "cheaper, not drawn: optimal_choice weighted"
    return Alternative(
        me.player_id,
        candidate.player_id,
        diff,
        (
            f"matched with {theirs.player_id}; exchanging partners changes the wave's cost by "
            f"{delta:+d} ({judged})"
        ),
    )


def _distance(rating: int, other: DuelPlayer, my_side: str) -> int:
    opposite = other.sc2_mmr if my_side == BW else other.bw_mmr
    same = other.bw_mmr if my_side == BW else other.sc2_mmr
    return abs(rating - opposite) if opposite is not None else 10**9 + abs(rating - (same or 0))


def _stat(result: WaveResult, name: str, default: float) -> float:
    return dict(result.stats).get(name, default)
