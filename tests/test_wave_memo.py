"""A wave's derived facts are derived once, never handed to another wave (matcher/wave_memo.py)."""

from __future__ import annotations

import sys
import threading
from dataclasses import replace

from matcher.core import Player, Ticket, WaitingTicket, WaveSnapshot
from matcher.duel.result import duel_players
from matcher.rules import parse_rules
from matcher.rules.check import met_recently, rated_snapshot
from matcher.wave_memo import per_wave


def _wave(wave_id: str, players: int) -> WaveSnapshot:
    tickets = tuple(
        WaitingTicket(Ticket(f"t{i}", "q", "eu", (Player(f"p{i}", (("mmr", 1500 + i),)),), 0), 0)
        for i in range(players)
    )
    return WaveSnapshot("q", "eu", wave_id, 1, 7, 60_000, tickets)


def test_answers_once_per_snapshot_and_arguments() -> None:
    calls: list[str] = []

    @per_wave
    def count(snapshot: WaveSnapshot, key: str) -> int:
        calls.append(key)
        return len(snapshot.tickets)

    wave = _wave("w1", 3)
    assert [count(wave, "a"), count(wave, "a"), count(wave, "b"), count(wave, "b")] == [3] * 4
    assert calls == ["a", "b"]
    # An equal snapshot that is another object is another wave: answered again.
    twin = replace(wave)
    assert twin == wave and twin is not wave
    assert count(twin, "b") == 3
    assert calls == ["a", "b", "b"]


def test_waves_on_two_threads_each_get_their_own_answer() -> None:
    # A large wave closes off the event loop while another thread closes or replays
    # another wave: neither may read the other's rated snapshot.
    rules = parse_rules({"rating": "mmr", "deviation": {"weight": 1, "missing": 100}})
    waves = [_wave("w1", 2), _wave("w2", 3)]
    wrong: list[str] = []

    def close_again_and_again(wave: WaveSnapshot) -> None:
        for _ in range(200_000):
            if rated_snapshot(wave, rules).wave_id != wave.wave_id:
                wrong.append(wave.wave_id)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns as often as they can
    try:
        threads = [threading.Thread(target=close_again_and_again, args=(w,)) for w in waves]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert wrong == []


def test_the_strategy_and_the_checkers_share_one_answer() -> None:
    rules = parse_rules({"rating": "mmr", "block_lists": True})
    wave = _wave("w1", 4)
    wave = replace(
        wave,
        tickets=(
            WaitingTicket(
                Ticket("tb", "q", "eu", (Player("pb", (("mmr", 1),), blocked=("p0",)),), 0), 0
            ),
            *wave.tickets,
        ),
    )
    rated = rated_snapshot(wave, rules)
    assert rated_snapshot(wave, rules) is rated
    met = met_recently(rated, rules)
    assert met_recently(rated, rules) is met
    assert met == {"pb": frozenset({"p0"}), "p0": frozenset({"pb"})}
    players = duel_players(rated, "mmr")
    assert duel_players(rated, "mmr") is players
    assert [p.ticket_id for p in players[0]] == ["tb", "t0", "t1", "t2", "t3"]
    # Other rules are another question: answered for them.
    assert met_recently(rated, parse_rules({"rating": "mmr"})) == {}
