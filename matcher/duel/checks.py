"""The checker beside both duel strategies: is a wave result a legal set of 1v1 matches?

It recomputes everything it judges from the snapshot and the profile (the window
from the pressure, the lead side from stages 1-2); the result's own stats are
never trusted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from matcher.checks import wave_result_problems
from matcher.core import Match, QueueProfile, WaveResult, WaveSnapshot
from matcher.duel.choice_check import weighted_choice_problems
from matcher.duel.graph import duel_arrays
from matcher.duel.ladder import lead_side
from matcher.duel.limits import duel_limits
from matcher.duel.model import (
    BW,
    MIRROR_SIDES,
    OPTIMAL_DEFAULTS,
    SC2,
    DuelConfig,
    DuelPlayer,
    Window,
    parse_config,
    parse_ladder_config,
)
from matcher.duel.near import legal_between
from matcher.duel.objective import objective_problems, optimal_options_on
from matcher.duel.percentile import RankWindow, rank_window, reach
from matcher.duel.rematch_cost import pair_rules, wave_priced
from matcher.duel.result import duel_players, seat_roles
from matcher.duel.virtual import virtual_players
from matcher.duel.windows import pair_wait, pressure, tier_window
from matcher.rules.check import met_recently, rematch_priced


@dataclass(frozen=True, slots=True)
class DuelRules:
    """What a duel wave is judged by, recomputed from its snapshot and profile."""

    players: tuple[DuelPlayer, ...]
    config: DuelConfig
    window: Window
    lead_side: str
    sides: tuple[str, str] = (BW, SC2)
    #: The queue's ``max_distance`` replaces the window (the rules check judges it).
    windowless: bool = False
    #: The percentile window of the whole wave (docs/adr/0177), players in ``players``' order.
    rank: RankWindow | None = None
    #: The players as paired, by ticket: their virtual ratings (ADR 0179), else none.
    virtual: dict[str, DuelPlayer] | None = None

    @property
    def paired(self) -> tuple[DuelPlayer, ...]:
        """The players as the strategy paired them (virtual ratings when on)."""
        return self.players if self.virtual is None else tuple(self.virtual.values())

    def limit(self, bw: DuelPlayer, sc2: DuelPlayer) -> int:
        """The largest diff allowed for ``bw`` playing BW against ``sc2`` playing SC2."""
        return self.window.max_diff(pair_wait(self.config.window_rule, bw, sc2, self.lead_side))

    def rank_limit(self, bw: DuelPlayer, sc2: DuelPlayer) -> tuple[int, int]:
        """Under the percentile window: the pool's ratings between the pair's, and how many
        its reach allows (its wait by the window rule, as :meth:`limit`)."""
        percent, rank = self.config.window_percentile, self.rank
        assert percent is not None and rank is not None
        assert bw.bw_mmr is not None and sc2.sc2_mmr is not None
        wait = pair_wait(self.config.window_rule, bw, sc2, self.lead_side)
        allowed = reach(percent, len(rank.pool), self.window, np.array([wait], dtype=np.int64))
        between = rank.between(np.array([bw.bw_mmr]), np.array([sc2.sc2_mmr]))
        return int(between[0]), int(allowed[0])


def duel_rules(snapshot: WaveSnapshot, profile: QueueProfile, strategy: str) -> DuelRules:
    """The rules of ``snapshot``'s wave under ``strategy``; ValueError names a bad option.

    Notes: O(n log n) for n tickets (stages 1-2 are replayed for the lead side).
    """
    if strategy == "ladder-v2.1":
        config = parse_ladder_config(profile.options)
    else:
        config = parse_config(profile.options, OPTIMAL_DEFAULTS)
    rules = profile.ruleset
    rating = rules.rating  # a mirror 1v1: one rating, either side
    players, _ = duel_players(snapshot, rating)
    window = tier_window(pressure(len(players), snapshot.active_population, config), config)
    sides = (BW, SC2) if rating is None else MIRROR_SIDES
    windowless = rules.max_distance is not None
    rank = None
    if config.window_percentile is not None and not windowless:
        rank = rank_window(players, config.window_percentile, window)
    virtual = None
    if config.virtual_rating_half_life_ms and strategy == "optimal":
        moved = virtual_players(players, snapshot, config.virtual_rating_half_life_ms)
        virtual = {player.ticket_id: player for player in moved}
    # Both strategies: stage 4's lead side (docs/adr/0013).
    return DuelRules(
        tuple(players),
        config,
        window,
        lead_side(players if virtual is None else list(virtual.values()), config),
        sides,
        windowless=windowless,
        rank=rank,
        virtual=virtual,
    )


def duel_result_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """Return every rule of a duel wave that ``result`` breaks (empty when valid).

    Rules: those of :func:`matcher.checks.wave_result_problems`; every match has a
    ``bw`` and an ``sc2`` team of one seat each (a mirror 1v1: ``team1`` and ``team2``),
    held by two different duel-fit players who offer that race at the seated rating
    (either side at the queue's rating in a mirror); every diff lies inside the pair's
    window; tickets unfit for a duel stay unmatched. ``optimal`` promises the most pairs,
    so its result must also be maximal: no two unmatched players may play each other;
    under ``optimal_choice = "weighted"`` it must be the wave's seeded choice, with as
    many pairs as a maximum matching (:mod:`matcher.duel.choice_check`).

    >>> from matcher.core import QueueProfile, WaveResult, WaveSnapshot
    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> duel_result_problems(snapshot, QueueProfile("q", "optimal", ("m",)),
    ...                      WaveResult("optimal", (), (), ()))
    []

    Notes: O(n log n) for n tickets (stages 1-2 are replayed for the lead side).
    """
    problems = wave_result_problems(snapshot, profile, result)
    try:
        rules = duel_rules(snapshot, profile, result.strategy)
    except ValueError as error:
        return [*problems, str(error)]
    by_ticket = {player.ticket_id: player for player in rules.players}
    for match in result.matches:
        problems.extend(_match_problems(match, by_ticket, rules))
    if result.strategy == "optimal" and not problems:
        problems.extend(_completeness_problems(snapshot, profile, result, rules))
    if result.strategy == "optimal" and not problems and rematch_priced(profile):
        problems.extend(_unpriced_rematches(snapshot, profile, result, rules))
    # The least summed score is the promise of ``best`` only: a seeded draw is proved by
    # the choice check below instead.
    moved = optimal_options_on(rules.config) or bool(profile.ruleset.sort)
    moved = moved and rules.config.optimal_choice == "best"
    if result.strategy == "optimal" and not problems and moved:
        wave = (rules.config, rules.window, rules.lead_side == BW)
        problems.extend(objective_problems(snapshot, profile, result, rules.paired, wave))
    if result.strategy == "optimal" and not problems and rules.config.optimal_choice != "best":
        problems.extend(
            weighted_choice_problems(
                snapshot, profile, result, rules.paired, rules.window, rules.config
            )
        )
    return problems


def _completeness_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult, rules: DuelRules
) -> list[str]:
    """``optimal`` promises the most pairs: a legal pair of two unmatched players (by the
    queue's rules, the wave's window and vetoes) means the result is not even maximal.

    Only the unmatched players' arrays are built: whether two players may play depends on
    the two of them and on wave-level facts (the window, the lead side, both recomputed in
    ``rules``), and the window radius that ``max_distance`` gives is capped by the
    ratings' span, which no pair among them exceeds.

    Notes: one exact search of the unmatched players' pairs near in rating
    (:mod:`matcher.duel.near`).
    """
    unmatched = frozenset(result.unmatched)
    players = [player for player in rules.paired if player.ticket_id in unmatched]
    if len(players) < 2:
        return []
    priced = wave_priced(profile, rules.config, len(rules.players))
    limits = duel_limits(players, snapshot, pair_rules(profile, priced))
    lead_is_bw = rules.lead_side == BW
    pool = None if rules.rank is None else rules.rank.pool  # the whole wave's, not theirs
    arrays = duel_arrays(
        players, profile.maps, rules.window, rules.config, lead_is_bw, limits, pool
    )
    everyone = np.arange(len(players), dtype=np.int64)
    bw, sc2 = legal_between(arrays, everyone, everyone)
    if not len(bw):
        return []
    first, second = players[int(bw[0])], players[int(sc2[0])]
    count = len(np.unique(np.minimum(bw, sc2) * len(players) + np.maximum(bw, sc2)))
    return [
        f"not maximal: {count} legal pairs left among the unmatched, e.g. "
        f"{first.player_id} against {second.player_id}"
    ]


def _unpriced_rematches(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult, rules: DuelRules
) -> list[str]:
    """A wave too large to price rematches keeps the ``rematch`` rule as a hard filter
    (ADR 0180); the queue's rules check, which no longer filters them, cannot say so."""
    if wave_priced(profile, rules.config, len(rules.players)):
        return []
    met = met_recently(snapshot, profile.ruleset)
    problems = []
    for match in result.matches:
        a, b = (team.seats[0].player_id for team in match.teams)
        if b in met.get(a, frozenset()) or a in met.get(b, frozenset()):
            problems.append(
                f"match {match.match_id}: players {a} and {b} met too recently (rematch; "
                f"priced only in waves of at most {rules.config.optimal_exact_limit} players)"
            )
    return problems


def is_valid_wave_result(snapshot: WaveSnapshot, result: WaveResult, profile: QueueProfile) -> bool:
    """True when :func:`duel_result_problems` finds nothing.

    >>> from matcher.core import QueueProfile, WaveResult, WaveSnapshot
    >>> snapshot = WaveSnapshot("q", "eu", "w1", 1, 7, 0, ())
    >>> is_valid_wave_result(snapshot, WaveResult("optimal", (), (), ()),
    ...                      QueueProfile("q", "optimal", ("m",)))
    True

    Notes: O(n log n).
    """
    return not duel_result_problems(snapshot, profile, result)


def _match_problems(
    match: Match,
    by_ticket: dict[str, DuelPlayer],
    rules: DuelRules,
) -> list[str]:
    """Every duel rule ``match`` breaks: one BW seat then one SC2 seat, held by two
    different duel-fit players at the rating of that race, inside the pair's window,
    with the seats' diff as its ``mmr_diff`` quality."""
    label = f"match {match.match_id}"
    teams = match.teams
    first, second = rules.sides
    first_role, second_role = seat_roles(rules.sides)
    shown = ("BW", "SC2") if rules.sides == (BW, SC2) else rules.sides
    if (
        len(teams) != 2
        or teams[0].name != first
        or teams[1].name != second
        or (len(teams[0].seats) != 1 or len(teams[1].seats) != 1)
    ):
        shape = [(team.name, len(team.seats)) for team in teams]
        return [f"{label}: teams must be one {first} seat then one {second} seat, got {shape}"]
    bw_seat, sc2_seat = teams[0].seats[0], teams[1].seats[0]
    bw, sc2 = by_ticket.get(bw_seat.ticket_id), by_ticket.get(sc2_seat.ticket_id)
    if bw is None or sc2 is None:
        return [f"{label}: a ticket unfit for a duel was matched"]
    problems: list[str] = []
    if bw.ticket_id == sc2.ticket_id:
        problems.append(f"{label}: a player plays against themself")
    if bw.bw_mmr is None or bw_seat.role != first_role or bw_seat.rating != bw.bw_mmr:
        problems.append(f"{label}: {bw.player_id} does not play {shown[0]} at {bw_seat.rating}")
    if sc2.sc2_mmr is None or sc2_seat.role != second_role or sc2_seat.rating != sc2.sc2_mmr:
        problems.append(f"{label}: {sc2.player_id} does not play {shown[1]} at {sc2_seat.rating}")
    if problems:
        return problems
    diff = abs(bw_seat.rating - sc2_seat.rating)
    limit = rules.limit(bw, sc2)
    if rules.rank is not None:
        between, allowed = rules.rank_limit(bw, sc2)
        if between > allowed:
            problems.append(
                f"{label}: {between} of the wave's ratings lie between the pair's, "
                f"outside the percentile window {allowed}"
            )
    elif rules.virtual is not None:
        paired = rules.virtual[bw.ticket_id].bw_mmr, rules.virtual[sc2.ticket_id].sc2_mmr
        assert paired[0] is not None and paired[1] is not None
        if abs(paired[0] - paired[1]) > limit and not rules.windowless:
            problems.append(
                f"{label}: virtual diff {abs(paired[0] - paired[1])} outside the window {limit}"
            )
    elif diff > limit and not rules.windowless:
        problems.append(f"{label}: diff {diff} outside the window {limit}")
    if match.quality_of("mmr_diff") != float(diff):
        problems.append(f"{label}: quality mmr_diff is not the seats' diff {diff}")
    return problems
