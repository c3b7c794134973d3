"""The live checker is the strategy's checker: common rules plus the strategy's own."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest

from matcher.checks import wave_result_problems
from matcher.core import QueueProfile, Seat, Team, WaveResult, WaveSnapshot
from matcher.duel.model import DuelPlayer
from matcher.queue import RegionQueue, TicketJoined, WaveTick
from matcher.queue.fold import QueueRules
from matcher.strategies import (
    get_checker,
    get_strategy,
    is_registered,
    register_strategy,
    result_problems,
)
from tests.duel.waves import profile_of, snapshot_of
from tests.queue.conftest import make_ticket, pair_in_order

BUILT_IN = ("optimal", "ladder-v2.1", "rebalance", "game-queue", "multifactor")


def test_the_strategy_checker_sees_what_the_common_rules_cannot() -> None:
    """An ``optimal`` match re-seated at a rating its SC2 player does not have."""
    players = [
        DuelPlayer("a", 1500, None, ticket_id="a"),
        DuelPlayer("b", None, 1520, ticket_id="b"),
    ]
    snapshot = snapshot_of(players, active_population=100)
    profile = profile_of("optimal")
    result = get_strategy("optimal")(snapshot, profile)
    assert result_problems(snapshot, profile, result) == []
    match = result.matches[0]
    far = Team("sc2", (Seat("b", "b", "sc2", 2900),))
    broken = dataclasses.replace(
        result, matches=(dataclasses.replace(match, teams=(match.teams[0], far)),)
    )
    assert wave_result_problems(snapshot, profile, broken) == []
    assert any("does not play SC2 at 2900" in p for p in result_problems(snapshot, profile, broken))


def test_every_built_in_strategy_has_its_own_checker() -> None:
    for name in BUILT_IN:
        assert get_checker(name) is not wave_result_problems


def test_a_plug_in_without_a_checker_is_held_to_the_common_rules() -> None:
    name = "test-plug-in-common-rules"
    if not is_registered(name):
        register_strategy(name, lambda s, p: WaveResult(name, (), ()))
    snapshot = WaveSnapshot("duo", "eu", "w1", 1, 7, 0, ())
    profile = QueueProfile(queue="duo", strategy=name, maps=("alpha",))
    stray = WaveResult(name, (), ("t-9",))
    assert (
        get_checker(name)(snapshot, profile, stray)
        == wave_result_problems(snapshot, profile, stray)
        != []
    )


def _pairs_with_figures(
    figures: tuple[tuple[str, float], ...],
) -> Callable[[WaveSnapshot, QueueProfile], WaveResult]:
    def strategy(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
        result = pair_in_order(snapshot, profile)
        matches = tuple(dataclasses.replace(m, quality=figures) for m in result.matches)
        return dataclasses.replace(result, matches=matches)

    return strategy


@pytest.mark.parametrize(
    ("figures", "problem"),
    [
        ((("spread", math.nan),), "quality 'spread' is nan, not a finite number"),
        ((("bad\nname", 1.0),), "quality name 'bad\\nname' is not 1-64 printable characters"),
        (tuple((f"f{i}", 1.0) for i in range(65)), "65 quality figures, at most 64"),
        (
            tuple((f"{i:02d}" + "é" * 62, 1.0) for i in range(40)),
            "quality figures take 5520 bytes, at most 4096",
        ),
    ],
    ids=["nan", "name", "count", "bytes"],
)
def test_a_plug_in_s_figures_no_match_event_can_carry_fail_its_wave(
    figures: tuple[tuple[str, float], ...], problem: str
) -> None:
    """Its matches would be taken, then fail to encode: the wave fails whole instead, and
    its tickets wait for the next one."""
    name = f"test-figures-{len(figures)}-{figures[0][0][:4]}"
    if not is_registered(name):
        register_strategy(name, _pairs_with_figures(figures))
    profile = QueueProfile(queue="duo", strategy=name, maps=("alpha",), team_size=2)
    rules = QueueRules(ticket_ttl_ms=60_000)
    state = RegionQueue("duo", "eu")
    for ticket_id in ("a", "b"):
        state.apply(TicketJoined(make_ticket(ticket_id)), profile, rules)
    step = state.apply(WaveTick("duo", "eu", "w1", 1, 10_000, "cfg", 10_000), profile, rules)
    assert step.note == "wave_failed" and step.failure is not None
    assert problem in step.failure.reason
    assert list(state.tickets) == ["a", "b"]


def _everyone_waits(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    return WaveResult("test-strict", (), tuple(t.ticket.ticket_id for t in snapshot.tickets))


def test_the_fold_refuses_a_result_its_strategy_checker_rejects() -> None:
    """The result passes the common rules; its strategy's checker refuses it, so the wave
    fails with that reason and changes nothing."""
    name = "test-strict"
    if not is_registered(name):
        register_strategy(
            name,
            _everyone_waits,
            checker=lambda s, p, r: [*wave_result_problems(s, p, r), "nobody may wait"],
        )
    profile = QueueProfile(queue="duo", strategy=name, maps=("alpha",), team_size=2)
    rules = QueueRules(ticket_ttl_ms=60_000)
    state = RegionQueue("duo", "eu")
    state.apply(TicketJoined(make_ticket("a")), profile, rules)
    step = state.apply(WaveTick("duo", "eu", "w1", 1, 10_000, "cfg", 10_000), profile, rules)
    assert step.note == "wave_failed" and step.failure is not None
    assert step.failure.reason == "test-strict: nobody may wait"
    assert list(state.tickets) == ["a"]


def test_the_duel_strategies_are_marked_in_their_entries() -> None:
    from matcher.strategies import is_duel

    assert [name for name in BUILT_IN if is_duel(name)] == ["optimal", "ladder-v2.1"]
    assert not is_duel("no-such-strategy")


def test_only_wavematch_s_own_strategies_are_built_in() -> None:
    from matcher.strategies import is_built_in

    assert all(is_built_in(name) for name in BUILT_IN)
    assert not is_built_in("test-strict") and not is_built_in("no-such-strategy")
