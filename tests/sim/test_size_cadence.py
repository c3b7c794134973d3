"""Size-triggered waves (docs/adr/0183): the pure "is a wave due" function against a
brute-force scan of every millisecond, and the simulator's schedule against a checker
that replays the queue's length from the tickets' outcomes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Player, QueueProfile, Ticket
from matcher.queue.cadence import CadencePolicy, size_due_at_ms
from matcher.queue.events import TicketJoined
from matcher.sim import figures, simulate
from matcher.sim.config import (
    Behaviour,
    ConfigError,
    RegionSpec,
    Scenario,
    Variant,
    config_from_mapping,
)
from matcher.sim.engine import VariantRun, run_variant
from matcher.sim.population import Session
from matcher.sim.recorded import Arrival, Candidate, Timer, run_candidate
from tests.queue.conftest import PAIRS
from tests.sim.conftest import scenario_data

SIZE = CadencePolicy(mode="size", interval_ms=10_000, floor_ms=250, trigger_tickets=2)


def test_a_join_that_brings_the_queue_to_n_makes_the_wave_due_now() -> None:
    assert size_due_at_ms(SIZE, 2, 1, 50_000, 53_000) == 53_000
    assert size_due_at_ms(SIZE, 1, 1, 50_000, 53_000) == 60_000  # below N: the fallback
    three = CadencePolicy(mode="size", interval_ms=10_000, floor_ms=250, trigger_tickets=3)
    assert size_due_at_ms(three, 2, 1, 50_000, 53_000) == 60_000
    assert size_due_at_ms(three, 3, 1, 50_000, 53_000) == 53_000


def test_the_floor_holds_a_burst_back_and_leftovers_wait_for_a_join() -> None:
    assert size_due_at_ms(SIZE, 5, 3, 50_000, 50_100) == 50_250
    # Tickets a wave left unmatched do not close wave after wave: only a join re-checks.
    assert size_due_at_ms(SIZE, 5, 0, 50_000, 53_000) == 60_000
    assert size_due_at_ms(SIZE, 5, 0, 50_000, 61_000) == 60_000  # the fallback, overdue


def test_only_a_size_policy_is_asked() -> None:
    with pytest.raises(ValueError, match="mode"):
        size_due_at_ms(CadencePolicy(), 2, 1, 0, 0)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"trigger_tickets": 1}, "trigger_tickets: must be >= 2"),
        ({"floor_ms": 20_000}, "floor_ms: must be <= interval_ms"),
        ({"floor_ms": 0}, "floor_ms: must be > 0"),
    ],
)
def test_bad_policies_are_refused_naming_the_field(fields: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CadencePolicy(**{"mode": "size", "interval_ms": 10_000, **fields})  # type: ignore[arg-type]


def due_by_scan(policy: CadencePolicy, waiting: int, arrivals: int, last: int, now: int) -> int:
    """The first millisecond from ``now`` on at which the rule's words hold: the interval
    has passed since the last wave (or, before any, a multiple of it is reached), or N
    tickets wait, one arrived since the last wave, and the floor has passed."""
    at = now
    while True:
        if last:
            fallback = at - last >= policy.interval_ms
        else:  # before any wave: the grid's next point after now
            fallback = at > now and at % policy.interval_ms == 0
        triggered = waiting >= policy.trigger_tickets and arrivals > 0
        if fallback or (triggered and at - last >= policy.floor_ms):
            return at
        at += 1


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(20, 400),
    st.integers(400, 2_000),
    st.integers(0, 7),
    st.integers(0, 3),
    st.sampled_from([0, 5_000, 7_777]),
    st.integers(0, 2_500),
)
def test_due_instant_is_the_first_millisecond_the_rule_holds(
    trigger: int, floor: int, interval: int, waiting: int, arrivals: int, last: int, later: int
) -> None:
    policy = CadencePolicy(
        mode="size", interval_ms=interval, floor_ms=floor, trigger_tickets=trigger
    )
    now = last + later if last else 20_000 + later
    expected = due_by_scan(policy, waiting, arrivals, last, now)
    due = size_due_at_ms(policy, waiting, arrivals, last, now)
    # An overdue fallback is reported at its own instant (the worker sends it now).
    assert due == expected or (due < now and expected == now and due == last + interval)


# -- the simulator's schedule, checked against the tickets' outcomes --------------------


def size_schedule_problems(run: VariantRun, policy: CadencePolicy) -> list[str]:
    """What breaks the size cadence in ``run`` (no leaves, no TTL: tickets end in a wave).

    Brute force: the queue's length at an instant is the tickets that joined by then and
    were still waiting; every join instant and every wave is checked against the rule.
    """
    tickets = [(t.joined_at_ms, t.joined_at_ms + t.wait_ms) for t in run.tickets]
    waves = sorted(w.at_ms for w in run.waves)
    problems: list[str] = []

    def waiting(at: int) -> int:  # the joins at ``at`` are in, its wave not yet closed
        return sum(1 for joined, end in tickets if joined <= at <= end)

    def last_before(at: int) -> int:
        return max((w for w in waves if w < at), default=0)

    for wave in waves:
        last = last_before(wave)
        arrived = any(last < joined <= wave for joined, _ in tickets)
        fallback = wave - last == policy.interval_ms if last else wave == policy.interval_ms
        size = waiting(wave) >= policy.trigger_tickets and arrived
        if not fallback and not (size and wave - last >= policy.floor_ms):
            problems.append(f"wave at {wave}: neither due by size nor by the fallback")
    for joined in sorted({joined for joined, _ in tickets}):
        last = max((w for w in waves if w < joined), default=0)
        if waiting(joined) >= policy.trigger_tickets:
            due = max(joined, last + policy.floor_ms)
            if not any(joined <= w <= due for w in waves):
                problems.append(f"join at {joined}: {waiting(joined)} waiting, no wave by {due}")
    return problems


def _scenario(policy: CadencePolicy) -> tuple[Scenario, tuple[Session, ...]]:
    scenario = Scenario(
        "size",
        "duo",
        "team",
        2,
        (RegionSpec("eu", 1.0),),
        Behaviour(leave_per_wave=0.0, games_per_session=1.0, game_length_s=5.0),
        (Variant("pairs", PAIRS, policy),),
        duration_s=120,
    )
    joins = (1_000, 2_000, 2_100, 2_150, 12_000, 19_000, 25_000, 25_100, 70_000, 90_500)
    return scenario, tuple(
        Session(f"s{i}", "eu", at, (Player(f"s{i}.p0", (("any", 1500 + i),)),), 1)
        for i, at in enumerate(joins)
    )


def test_the_simulator_closes_a_wave_on_the_join_that_brings_the_queue_to_n() -> None:
    scenario, sessions = _scenario(SIZE)
    run = run_variant(scenario, scenario.variants[0], sessions, seed=1)
    assert size_schedule_problems(run, SIZE) == []
    waits = {t.ticket_id: t.wait_ms for t in run.tickets}
    # s0 waits for s1 (1 s); s2 and s3 arrive inside the floor of that wave: 250 ms.
    assert (waits["s0.g0"], waits["s1.g0"]) == (1_000, 0)
    assert (waits["s2.g0"], waits["s3.g0"]) == (150, 100)
    assert waits["s5.g0"] == 0 and waits["s4.g0"] == 7_000
    size_waves = [w for w in run.waves if w.interval_ms != SIZE.interval_ms]
    assert [w.at_ms for w in size_waves][:3] == [2_000, 2_250, 19_000]


def test_the_checker_fails_a_schedule_that_ignores_the_trigger() -> None:
    fixed = CadencePolicy(interval_ms=SIZE.interval_ms)
    scenario, sessions = _scenario(fixed)
    run = run_variant(scenario, scenario.variants[0], sessions, seed=1)
    assert any("no wave by" in p for p in size_schedule_problems(run, SIZE))


def test_a_bad_trigger_is_one_line_naming_the_field() -> None:
    variant = {"name": "s", "strategy": "rebalance", "cadence": "size", "trigger_tickets": 1}
    with pytest.raises(ConfigError, match=r"variant\[0\]\.trigger_tickets: must be between 2"):
        config_from_mapping({"seed": 1, "scenario": [scenario_data(variant=[variant])]})


def test_a_size_candidate_on_recorded_traffic_ticks_on_the_join() -> None:
    def join(name: str, at_ms: int) -> Arrival:
        player = Player(name, (("mmr", 1500),))
        return Arrival(at_ms, TicketJoined(Ticket(name, "1v1", "eu", (player,), at_ms)))

    profile = QueueProfile("1v1", "optimal", ("m",), rules={"rating": "mmr"})
    traffic = {"eu": [join("a", 1_000), join("b", 3_000), join("c", 3_100), join("d", 3_150)]}
    timers = {"eu": Timer(cadence=SIZE)}
    run = run_candidate(Candidate("size", "1v1", profile, timers), traffic, 0, 25_000)
    waits = {t.ticket_id: t.wait_ms for t in run.tickets}
    assert waits == {"a": 2_000, "b": 0, "c": 150, "d": 100}
    assert [w.at_ms for w in run.waves] == [3_000, 3_250, 13_250, 23_250]


def test_a_size_variant_is_replayed_identically_and_closes_waves_between_the_ticks() -> None:
    size = {"name": "size", "strategy": "rebalance", "cadence": "size", "trigger_tickets": 4}
    data = scenario_data(variant=[{"name": "fixed", "strategy": "rebalance"}, size])
    config = config_from_mapping({"seed": 5, "scenario": [data]})
    assert figures(simulate(config), 5) == figures(simulate(config), 5)
    (result,) = simulate(config)
    fixed, triggered = result.runs
    assert {w.at_ms % 10_000 for w in fixed.waves} == {0}
    assert any(w.at_ms % 10_000 for w in triggered.waves)
