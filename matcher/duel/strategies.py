"""The duel strategies behind the generic :data:`matcher.core.Strategy` signature.

These adapters are the product's hot path: the streaming worker calls one per wave
through :func:`matcher.strategies.run_wave`. Tickets unfit for a duel (a party, a
player with neither race) stay queued and are counted in the ``unfit_tickets`` stat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from matcher.core import QueueProfile, WaveResult, WaveSnapshot
from matcher.duel.ladder import ladder_pairs
from matcher.duel.limits import duel_limits
from matcher.duel.model import (
    BW,
    LADDER_DEFAULTS,
    MIRROR_SIDES,
    OPTIMAL_DEFAULTS,
    SC2,
    DuelConfig,
    DuelPair,
    DuelPlayer,
    parse_config,
    parse_ladder_config,
)
from matcher.duel.optimal import OptimalOutcome, optimal_pairs
from matcher.duel.rematch_cost import pair_rules, rematch_penalty, wave_priced
from matcher.duel.result import build_result, duel_players
from matcher.duel.virtual import virtual_players
from matcher.rules.check import rematch_priced

LADDER = "ladder-v2.1"
OPTIMAL = "optimal"


def ladder_strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close a 1v1 wave with the reference pipeline ``ladder-v2.1`` (stages 1-8).

    Options: any field of :class:`~matcher.duel.model.DuelConfig`; an unknown one
    raises ValueError naming it.

    Notes: O(n^2 log n) for n players.
    """
    config = _config(profile, LADDER_DEFAULTS, reference=True)
    rating = profile.ruleset.rating
    players, unfit = duel_players(snapshot, rating)
    outcome = ladder_pairs(players, snapshot.active_population, profile.maps, config)
    extra = (
        ("refinement_swaps", float(outcome.swaps)),
        ("pressure", outcome.pressure),
        ("window_base", float(outcome.window.base)),
        ("window_growth", float(outcome.window.growth)),
        ("lead_side_is_bw", 1.0 if outcome.lead_side == BW else 0.0),
        ("unfit_tickets", float(len(unfit))),
    )
    return build_result(LADDER, snapshot, profile, outcome.pairs, extra, _sides(rating))


def optimal_strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """Close a 1v1 wave with ``optimal``: most matches first, then least squared error.

    Options as for :func:`ladder_strategy`; ``window_rule`` defaults to ``longer``.
    The queue's ``max_distance``, ``max_latency_ms``, ``attributes``, ``rematch`` and
    ``block_lists`` rules filter the pair graph: an illegal pair is never considered
    (:mod:`matcher.duel.limits`); with ``rematch_cost`` a recent rematch is priced
    instead (:mod:`matcher.duel.rematch_cost`). ``virtual_rating_half_life_ms`` pairs on
    ratings pulled toward the wave's mean by the wait (:mod:`matcher.duel.virtual`).

    Notes: the proved optimum for waves of at most ``optimal_exact_limit`` players;
    larger waves one sparse relaxation (docs/optimal.md).
    """
    config = _config(profile, OPTIMAL_DEFAULTS)
    rules = profile.ruleset
    players, unfit = duel_players(snapshot, rules.rating)
    priced = wave_priced(profile, config, len(players))
    limits = duel_limits(players, snapshot, pair_rules(profile, priced))
    penalty = rematch_penalty(players, snapshot, rules, config.rematch_cost) if priced else None
    paired = players
    if config.virtual_rating_half_life_ms:
        paired = virtual_players(players, snapshot, config.virtual_rating_half_life_ms)
    outcome = optimal_pairs(
        paired,
        snapshot.active_population,
        profile.maps,
        config,
        limits,
        penalty=penalty,
        seed=snapshot.seed,
    )
    if paired is not players:  # the outputs keep the real ratings
        outcome = _real(outcome, players)
    extra: tuple[tuple[str, float], ...] = (
        ("pressure", outcome.pressure),
        ("window_base", float(outcome.window.base)),
        ("window_growth", float(outcome.window.growth)),
        # A seeded draw has the proved most pairs, not the least score.
        ("proven_optimal", 1.0 if outcome.exact and not outcome.weighted else 0.0),
        ("odd_cycles", float(outcome.odd_cycles)),
        ("max_pairs_bound", float(outcome.pair_bound)),
        (
            "pairs_share_floor",
            len(outcome.pairs) / outcome.pair_bound if outcome.pair_bound else 1.0,
        ),
        ("unfit_tickets", float(len(unfit))),
    )
    if rematch_priced(profile):
        extra = (*extra, ("rematch_priced", 1.0 if priced else 0.0))
    if config.optimal_choice == "weighted":  # only then: the default's stats stay as they were
        extra += (("choice_weighted", 1.0 if outcome.weighted else 0.0),)
    return build_result(OPTIMAL, snapshot, profile, outcome.pairs, extra, _sides(rules.rating))


def _real(outcome: OptimalOutcome, players: Sequence[DuelPlayer]) -> OptimalOutcome:
    """``outcome`` with its (virtual) players replaced by the real ones."""
    real = {player.ticket_id: player for player in players}
    pairs = tuple(DuelPair(real[p.bw.ticket_id], real[p.sc2.ticket_id]) for p in outcome.pairs)
    return dataclasses.replace(outcome, pairs=pairs)


def _sides(rating: str | None) -> tuple[str, str]:
    return (BW, SC2) if rating is None else MIRROR_SIDES


def _config(profile: QueueProfile, defaults: DuelConfig, reference: bool = False) -> DuelConfig:
    if profile.team_count != 2 or profile.team_size != 1:
        raise ValueError("profile: duel strategies need team_count 2 and team_size 1")
    if reference:
        return parse_ladder_config(profile.options)
    return parse_config(profile.options, defaults)
