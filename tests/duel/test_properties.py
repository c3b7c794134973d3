"""Property tests: every duel strategy passes the checker; optimal is exact and never worse."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Player, Ticket, WaitingTicket, WaveSnapshot
from matcher.duel.checks import duel_result_problems
from matcher.duel.model import OPTIMAL_DEFAULTS, DuelConfig, DuelPlayer, parse_config
from matcher.duel.optimal import optimal_pairs
from matcher.strategies import get_strategy
from tests.duel.reference import reference_optimum, score_of
from tests.duel.waves import MAPS, arrays_of, profile_of, snapshot_of

STRATEGIES = ("ladder-v2.1", "optimal")


@st.composite
def duel_players(draw: st.DrawFn, max_size: int = 22) -> list[DuelPlayer]:
    n = draw(st.integers(0, max_size))
    players = []
    for i in range(n):
        kind = draw(st.sampled_from(("bw", "sc2", "both")))
        bw = draw(st.integers(900, 2100)) if kind != "sc2" else None
        sc2 = draw(st.integers(900, 2100)) if kind != "bw" else None
        players.append(
            DuelPlayer(
                player_id=f"p{i}",
                bw_mmr=bw,
                sc2_mmr=sc2,
                wait_cycles=draw(st.integers(0, 6)),
                region=draw(st.sampled_from(("eu", "na"))),
                vetoed_maps=tuple(draw(st.sets(st.sampled_from(MAPS), max_size=3))),
                ticket_id=f"t{i}",
            )
        )
    return players


waves = st.tuples(
    duel_players(),
    st.integers(0, 2**31),
    st.integers(0, 200),
    st.sampled_from(("lead", "longer", "shorter")),
)


@settings(max_examples=60, deadline=None)
@given(waves)
def test_every_strategy_passes_the_checker(wave: tuple[list[DuelPlayer], int, int, str]) -> None:
    players, seed, population, rule = wave
    snapshot = snapshot_of(players, seed=seed, active_population=population)
    for name in STRATEGIES:
        profile = profile_of(name, window_rule=rule)
        result = get_strategy(name)(snapshot, profile)
        assert duel_result_problems(snapshot, profile, result) == []
        assert dict(result.stats)["matches"] == len(result.matches)


@settings(max_examples=60, deadline=None)
@given(waves)
def test_optimal_makes_at_least_as_many_matches_as_ladder(
    wave: tuple[list[DuelPlayer], int, int, str],
) -> None:
    players, seed, population, rule = wave
    snapshot = snapshot_of(players, seed=seed, active_population=population)
    ladder = get_strategy("ladder-v2.1")(snapshot, profile_of("ladder-v2.1", window_rule=rule))
    optimal = get_strategy("optimal")(snapshot, profile_of("optimal", window_rule=rule))
    assert len(optimal.matches) >= len(ladder.matches)


@settings(max_examples=40, deadline=None)
@given(waves)
def test_optimal_equals_the_networkx_optimum(wave: tuple[list[DuelPlayer], int, int, str]) -> None:
    players, _, population, rule = wave
    config = dataclasses.replace(OPTIMAL_DEFAULTS, window_rule=rule)
    outcome = optimal_pairs(players, population, MAPS, config)
    arrays = arrays_of(players, population, config, MAPS)
    assert (len(outcome.pairs), score_of(outcome.pairs, config, arrays)) == reference_optimum(
        players, population, MAPS, config
    )
    assert outcome.exact


@settings(max_examples=25, deadline=None, derandomize=True)
@given(waves)
def test_large_wave_path_is_valid_and_keeps_cardinality_close(
    wave: tuple[list[DuelPlayer], int, int, str],
) -> None:
    """Force the large tier (with and without the pre-pass) and check it; the count is
    empirical, so a fixed set of examples (derandomize) keeps CI deterministic."""
    players, seed, population, rule = wave
    snapshot = snapshot_of(players, seed=seed, active_population=population)
    config = parse_config({"window_rule": rule}, OPTIMAL_DEFAULTS)
    best, _ = reference_optimum(players, population, MAPS, config)
    for prepair in (0, 1000):
        profile = profile_of(
            "optimal", window_rule=rule, optimal_exact_limit=1, optimal_prepair_limit=prepair
        )
        result = get_strategy("optimal")(snapshot, profile)
        assert duel_result_problems(snapshot, profile, result) == []
        assert len(result.matches) >= best - 1


@settings(max_examples=30, deadline=None)
@given(waves)
def test_same_snapshot_same_seed_identical_result(
    wave: tuple[list[DuelPlayer], int, int, str],
) -> None:
    players, seed, population, rule = wave
    for name in STRATEGIES:
        profile = profile_of(name, window_rule=rule)
        first = get_strategy(name)(snapshot_of(players, seed, population), profile)
        second = get_strategy(name)(snapshot_of(list(players), seed, population), profile)
        assert repr(first) == repr(second)


def test_unfit_tickets_stay_queued_and_the_checker_copes() -> None:
    fit = [DuelPlayer("a", 1500, None, ticket_id="a"), DuelPlayer("b", None, 1510, ticket_id="b")]
    snapshot = snapshot_of(fit)
    nobody = Ticket("none", "1v1", "eu", (Player("n", (("zerg", 1500),), roles=("zerg",)),), 0)
    party = Ticket(
        "party",
        "1v1",
        "eu",
        (Player("x", (("bw", 1500),)), Player("y", (("sc2", 1500),))),
        0,
        party_id="party",
    )
    extra = (WaitingTicket(nobody, 3), WaitingTicket(party, 0))
    snapshot = WaveSnapshot("1v1", "eu", "w1", 1, 7, 0, snapshot.tickets + extra)
    for name in STRATEGIES:
        profile = profile_of(name)
        result = get_strategy(name)(snapshot, profile)
        assert len(result.matches) == 1
        assert set(result.unmatched) == {"none", "party"}
        assert dict(result.stats)["unfit_tickets"] == 2.0
        assert duel_result_problems(snapshot, profile, result) == []


def test_unknown_option_names_it() -> None:
    import pytest

    snapshot = snapshot_of([])
    with pytest.raises(ValueError, match=r"options\.colour: unknown option"):
        get_strategy("optimal")(snapshot, profile_of("optimal", colour=1))
    with pytest.raises(ValueError, match=r"options\.optimal_band: unknown option"):
        get_strategy("optimal")(snapshot, profile_of("optimal", optimal_band=48))  # gone
    with pytest.raises(ValueError, match=r"options\.optimal_exact_limit: must be an integer >= 1"):
        get_strategy("optimal")(snapshot, profile_of("optimal", optimal_exact_limit=0))
    with pytest.raises(ValueError, match=r"options\.window_rule"):
        get_strategy("ladder-v2.1")(snapshot, profile_of("ladder-v2.1", window_rule="x"))
    assert DuelConfig().window_rule == "lead"
