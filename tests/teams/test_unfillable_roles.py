"""A role queue's wave whose players cannot fill the roles (no healer) is refused without
trying every split of every group, and a wave leaves the cyclic collector next to nothing
to free: the worker closes waves with it paused (streams/worker/folding.py), and
role_slots' search, a closure calling itself, left a cycle per call (330,000 objects for
23 such players, kept until a full collection the worker never ran)."""

from __future__ import annotations

import gc
import itertools
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from matcher.core import Player, Ticket, WaitingTicket, WaveSnapshot
from matcher.strategies import run_wave
from matcher.teams import model
from matcher.teams.model import Party, TeamShape, lineup_with_roles
from matcher.teams.roles import seats_fillable
from matcher.teams.split import team_splits
from streams.settings import load_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rules-5v5-roles.toml"
QUEUE = "5v5-ranked"
ROLES = ("tank", "healer", "dps", "dps", "dps")
CLOSED_AT_MS = 10_000_000


def unhealed_wave(players: int) -> WaveSnapshot:
    """Solo players the rules let play together (one language, pc, close ratings and
    latencies), none of whom offers healer: no match can be made."""
    rng = random.Random(5)
    tickets = []
    for i in range(players):
        offered = tuple(rng.sample(("tank", "dps"), rng.randint(1, 2)))
        player = Player(
            f"p{i}",
            tuple(sorted((role, 1500 + rng.randint(-50, 50)) for role in offered)),
            roles=offered,
            latency_ms=(("eu", 30),),
            attributes=(("language", "en"), ("platform", "pc")),
        )
        joined = CLOSED_AT_MS - rng.randint(0, 120) * 1000
        tickets.append(WaitingTicket(Ticket(f"t{i}", QUEUE, "eu", (player,), joined), i % 4))
    return WaveSnapshot(QUEUE, "eu", "w", 1, 3, CLOSED_AT_MS, tuple(tickets))


@pytest.fixture
def role_slot_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    calls = [0]
    real = model.role_slots

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "role_slots", counted)
    yield calls


def test_a_wave_that_cannot_fill_the_roles_tries_no_split(role_slot_calls: list[int]) -> None:
    profile = load_settings(EXAMPLE).profiles()[QUEUE]
    wave = unhealed_wave(23)
    result = run_wave(wave, profile)
    assert result.matches == ()
    # One call per ticket (is it playable at all), none per split: 13,300 before.
    assert role_slot_calls[0] <= 2 * len(wave.tickets)


def test_a_role_wave_leaves_almost_no_cycles_to_collect() -> None:
    profile = load_settings(EXAMPLE).profiles()[QUEUE]
    rng = random.Random(8)
    players = []
    for i in range(50):
        offered = tuple(rng.sample(("tank", "healer", "dps"), rng.randint(1, 3)))
        ratings = tuple(sorted((role, 1500 + rng.randint(-150, 150)) for role in offered))
        attributes = (("language", rng.choice(("en", "de"))), ("platform", "pc"))
        players.append(
            Player(f"p{i}", ratings, roles=offered, latency_ms=(("eu", 30),), attributes=attributes)
        )
    tickets = tuple(
        WaitingTicket(Ticket(f"t{i}", QUEUE, "eu", (p,), CLOSED_AT_MS - 1000 * i), 0)
        for i, p in enumerate(players)
    )
    waves = [
        unhealed_wave(23),
        WaveSnapshot(QUEUE, "eu", "w", 1, 3, CLOSED_AT_MS, tickets),
    ]
    for wave in waves:
        run_wave(wave, profile)  # imports and caches
        gc.collect()
        gc.disable()
        try:
            result = run_wave(wave, profile)
            garbage = gc.collect()
        finally:
            gc.enable()
        # A few generators' frames per group; 263,000 to 330,000 objects before.
        assert garbage < 50 * len(wave.tickets), (len(result.matches), garbage)


def test_role_slots_and_slot_matching_leave_no_cycle() -> None:
    tank = Player("t", (("dps", 1700), ("tank", 1500)), roles=("tank", "dps"))
    dps = Player("d", (("dps", 1600),), roles=("dps",))
    gc.collect()
    gc.disable()
    try:
        assert model.role_slots([tank, dps], ("tank", "dps", "dps")) == ("dps", "dps")
        assert model.role_slots([dps, dps], ("tank", "dps")) is None
        assert seats_fillable([tank, dps], ("tank", "dps"), 1)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_seats_fillable_is_exactly_whether_some_split_fills_the_roles() -> None:
    """For solos, the check that lets a splitter skip a group agrees with trying every split."""
    rng = random.Random(11)
    shape = TeamShape(2, 3, 3, ("tank", "healer", "dps"))
    checked = {True: 0, False: 0}
    for _ in range(400):
        group = []
        for i in range(6):
            offered = tuple(rng.sample(("tank", "healer", "dps"), rng.randint(1, 2)))
            ratings = tuple(sorted((role, rng.randint(1000, 2000)) for role in offered))
            player = Player(f"p{i}", ratings, roles=offered)
            group.append(Party(f"t{i}", (player,), (ratings[0][1],), 0, 0, i))
        splits = team_splits([1] * 6, 2, 3, 3)
        some = any(lineup_with_roles(group, split, shape.roles) is not None for split in splits)
        players = list(itertools.chain.from_iterable(p.players for p in group))
        assert seats_fillable(players, shape.roles, 2) == some
        checked[some] += 1
    assert min(checked.values()) > 20  # both answers were exercised
