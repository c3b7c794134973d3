"""The 1v1 part of :mod:`matcher.explain`: windows, pair costs and exchanges."""

from __future__ import annotations

from dataclasses import dataclass

from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.duel.model import (
    BW,
    LADDER_DEFAULTS,
    OPTIMAL_DEFAULTS,
    SC2,
    DuelConfig,
    DuelPlayer,
    Window,
    parse_config,
)
from matcher.duel.result import duel_players
from matcher.duel.windows import pair_wait, pressure, tier_window
from matcher.explain import Alternative


@dataclass(frozen=True, slots=True)
class _Rules:
    config: DuelConfig
    window: Window
    lead_side: str
    maps: tuple[str, ...]

    def pairing(self, u: DuelPlayer, v: DuelPlayer) -> tuple[int, int] | None:
        """(cost, diff) of the best legal side assignment of ``u`` and ``v``; None if none."""
        best: tuple[int, int] | None = None
        for bw, sc2 in ((u, v), (v, u)):
            if bw.bw_mmr is None or sc2.sc2_mmr is None:
                continue
            diff = abs(bw.bw_mmr - sc2.sc2_mmr)
            if diff > self.window.max_diff(
                pair_wait(self.config.window_rule, bw, sc2, self.lead_side)
            ):
                continue
            if not set(self.maps) - set(bw.vetoed_maps) - set(sc2.vetoed_maps):
                continue
            cost = diff * diff - self.config.wait_bonus * (bw.wait_cycles + sc2.wait_cycles)
            if best is None or cost < best[0]:
                best = (cost, diff)
        return best

    def why_illegal(self, u: DuelPlayer, v: DuelPlayer) -> str:
        sides = [
            (bw, sc2)
            for bw, sc2 in ((u, v), (v, u))
            if bw.bw_mmr is not None and sc2.sc2_mmr is not None
        ]
        if not sides:
            return "no side assignment: both can only play the same race"
        reasons = []
        for bw, sc2 in sides:
            assert bw.bw_mmr is not None and sc2.sc2_mmr is not None
            diff = abs(bw.bw_mmr - sc2.sc2_mmr)
            limit = self.window.max_diff(
                pair_wait(self.config.window_rule, bw, sc2, self.lead_side)
            )
            if diff > limit:
                reasons.append(f"{bw.player_id} as BW: diff {diff} > window {limit}")
            else:
                reasons.append(f"{bw.player_id} as BW: no map that neither vetoed")
        return "; ".join(reasons)


def explain_duel(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult, match: Match, nearest: int
) -> tuple[tuple[tuple[str, str], ...], tuple[Alternative, ...]]:
    """Facts about the pair's window and cost, and its ``nearest`` alternatives per player.

    Notes: O(n log n) for n players (a sort per player of the match).
    """
    rules = _rules(snapshot, profile, result)
    players, _ = duel_players(snapshot)
    by_ticket = {p.ticket_id: p for p in players}
    partner: dict[str, str] = {}
    for other in result.matches:
        a, b = (team.seats[0].ticket_id for team in other.teams)
        partner[a], partner[b] = b, a
    bw_ticket, sc2_ticket = (team.seats[0].ticket_id for team in match.teams)
    bw, sc2 = by_ticket[bw_ticket], by_ticket[sc2_ticket]
    chosen = rules.pairing(bw, sc2)
    wait = pair_wait(rules.config.window_rule, bw, sc2, rules.lead_side)
    facts = (
        (
            "window",
            f"pressure {_stat(result, 'pressure', 0.0):.3f} -> base {rules.window.base} + "
            f"{rules.window.growth} per wave waited; rule '{rules.config.window_rule}' "
            f"uses {wait} waves -> max diff {rules.window.max_diff(wait)}",
        ),
        (
            "pair cost",
            f"diff^2 - {rules.config.wait_bonus} x waits = "
            f"{chosen[0] if chosen else 'illegal'} (lower is better)",
        ),
    )
    alternatives: list[Alternative] = []
    for me, mate, side in ((bw, sc2, BW), (sc2, bw, SC2)):
        rating = me.bw_mmr if side == BW else me.sc2_mmr
        assert rating is not None
        others = [p for p in players if p.ticket_id not in (me.ticket_id, mate.ticket_id)]
        others.sort(key=lambda p: (_distance(rating, p, side), p.ticket_id))
        for candidate in others[:nearest]:
            alternatives.append(_judge(rules, me, mate, candidate, by_ticket, partner, chosen))
    return facts, tuple(alternatives)


def _judge(
    rules: _Rules,
    me: DuelPlayer,
    mate: DuelPlayer,
    candidate: DuelPlayer,
    by_ticket: dict[str, DuelPlayer],
    partner: dict[str, str],
    chosen: tuple[int, int] | None,
) -> Alternative:
    instead = rules.pairing(me, candidate)
    if instead is None:
        return Alternative(
            me.player_id,
            candidate.player_id,
            None,
            "not a legal pair: " + rules.why_illegal(me, candidate),
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
    their_cost = rules.pairing(candidate, theirs)
    swap = rules.pairing(mate, theirs)
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


def _rules(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> _Rules:
    defaults = OPTIMAL_DEFAULTS if profile.strategy == "optimal" else LADDER_DEFAULTS
    config = parse_config(profile.options, defaults)
    stats = dict(result.stats)
    if "window_base" in stats and "window_growth" in stats:
        window = Window(int(stats["window_base"]), int(stats["window_growth"]))
    else:
        window = tier_window(
            pressure(len(snapshot.tickets), snapshot.active_population, config), config
        )
    lead = BW if stats.get("lead_side_is_bw", 1.0) else SC2
    return _Rules(config, window, lead, profile.maps)


def _stat(result: WaveResult, name: str, default: float) -> float:
    return dict(result.stats).get(name, default)
