"""The simulator drives the real fold deterministically and accounts for every ticket."""

from __future__ import annotations

import doctest
from collections import Counter

import pytest

import matcher.sim
import matcher.sim.config
import matcher.sim.metrics
import matcher.sim.population
from matcher.core import Player
from matcher.queue.cadence import CadencePolicy
from matcher.sim import figures, simulate, total_ms
from matcher.sim.config import (
    Behaviour,
    RegionSpec,
    Scenario,
    SimConfig,
    Variant,
    config_from_mapping,
)
from matcher.sim.engine import run_variant
from matcher.sim.population import Session, draw_sessions
from tests.queue.conftest import PAIRS
from tests.sim.conftest import scenario_data

DOCTESTED = [matcher.sim, matcher.sim.config, matcher.sim.metrics, matcher.sim.population]


@pytest.mark.parametrize("module", DOCTESTED)
def test_doctests(module: object) -> None:
    outcome = doctest.testmod(module)  # type: ignore[arg-type]
    assert outcome.failed == 0 and outcome.attempted > 0


def test_same_seed_same_figures(tiny: SimConfig) -> None:
    assert figures(simulate(tiny), 11) == figures(simulate(tiny), 11)


def test_other_seed_other_arrivals(tiny: SimConfig) -> None:
    other = config_from_mapping({"seed": 12, "scenario": [scenario_data()]})
    assert draw_sessions(tiny.scenarios[0], 11) != draw_sessions(other.scenarios[0], 12)


def test_variants_share_the_arrival_stream(tiny: SimConfig) -> None:
    (result,) = simulate(tiny)
    first_tickets = [
        sorted(t.ticket_id for t in run.tickets if t.ticket_id.endswith(".g0"))
        for run in result.runs
    ]
    assert first_tickets[0] == first_tickets[1]
    assert len(first_tickets[0]) == result.sessions > 0


def test_every_ticket_has_exactly_one_outcome(tiny: SimConfig) -> None:
    (result,) = simulate(tiny)
    for run in result.runs:
        ids = Counter(t.ticket_id for t in run.tickets)
        assert max(ids.values()) == 1
        matched = [t for t in run.tickets if t.outcome == "matched"]
        # Every match of a 2v2 seats 4 players; matched tickets carry exactly those players.
        assert sum(t.players for t in matched) == 4 * len(run.matches)
        assert all(t.wait_ms >= 0 and t.waves >= 1 for t in matched)
        assert {t.outcome for t in run.tickets} <= {"matched", "left", "queued", "expired"}


def test_pop_cadence_changes_the_interval(tiny: SimConfig) -> None:
    (result,) = simulate(tiny)
    fixed, pop = result.runs
    assert {w.interval_ms for w in fixed.waves} == {10_000}
    assert len({w.interval_ms for w in pop.waves}) > 1
    assert all(2_000 <= w.interval_ms <= 30_000 for w in pop.waves)


def test_progress_reaches_the_total(tiny: SimConfig) -> None:
    seen: list[int] = []
    simulate(tiny, seen.append)
    assert 0.9 * total_ms(tiny) < sum(seen) <= total_ms(tiny)


def _hand_made(leave: float = 0.0, games: float = 1.0) -> tuple[Scenario, tuple[Session, ...]]:
    scenario = Scenario(
        "hand",
        "duo",
        "team",
        2,
        (RegionSpec("eu", 1.0),),
        Behaviour(leave_per_wave=leave, games_per_session=games, game_length_s=5.0),
        (Variant("pairs", PAIRS, CadencePolicy(interval_ms=10_000)),),
        duration_s=60,
    )

    def session(name: str, at_ms: int, rating: int, games: int = 1) -> Session:
        return Session(name, "eu", at_ms, (Player(f"{name}.p0", (("any", rating),)),), games)

    # a, b pair at the first wave (10 s); c, d at the second (20 s); e is alone.
    return scenario, (
        session("a", 1_000, 1500),
        session("b", 2_000, 1600),
        session("c", 12_000, 1000),
        session("d", 19_000, 1400, games=2),
        session("e", 25_000, 1200),
    )


def test_hand_made_waits_and_quality() -> None:
    scenario, sessions = _hand_made()
    run = run_variant(scenario, scenario.variants[0], sessions, seed=1)
    by_id = {t.ticket_id: t for t in run.tickets}
    assert (by_id["a.g0"].wait_ms, by_id["a.g0"].waves) == (9_000, 1)
    assert (by_id["d.g0"].wait_ms, by_id["d.g0"].waves) == (1_000, 1)
    # d re-queues after its game and pairs with e, who waited from 25 s.
    assert by_id["e.g0"].outcome == "matched" and by_id["d.g1"].outcome == "matched"
    assert sorted(m.rating_diff for m in run.matches) == [100.0, 200.0, 400.0]
    assert [m.spread for m in run.matches][:2] == [100.0, 400.0]
    assert [w.players_queued for w in run.waves][:2] == [2, 2]
    assert len(run.waves) == 6
    figures_ = matcher.sim.metrics.run_figures(run)["overall"]
    assert figures_["players_never_matched"] == 0
    assert figures_["wait_s"]["max"] == 9.0


def test_everyone_leaves_when_patience_is_zero() -> None:
    scenario, sessions = _hand_made(leave=1.0)
    run = run_variant(scenario, scenario.variants[0], sessions, seed=1)
    assert run.matches == []
    assert Counter(t.outcome for t in run.tickets) == Counter({"left": 5})
    assert matcher.sim.metrics.run_figures(run)["overall"]["players_never_matched"] == 5
