"""Test hooks, imported at start by a process with this directory on its PYTHONPATH: the
first `optimal` wave of at least ``SLOW_WAVE_TEST_TICKETS`` tickets keeps the
CPU busy for ``SLOW_WAVE_TEST_S`` seconds more (a wave longer than the group's
session timeout), its result unchanged; with ``SLOW_PLUGIN_TEST_S``, a plug-in strategy
``test-slow-pairs`` is registered whose first wave is as long."""

from __future__ import annotations

import os
import sys
import time

if os.environ.get("SLOW_WAVE_TEST_S"):
    import matcher.duel.strategies as duel_strategies

    _optimal = duel_strategies.optimal_strategy
    _burn_s = float(os.environ["SLOW_WAVE_TEST_S"])
    _from_tickets = int(os.environ.get("SLOW_WAVE_TEST_TICKETS", "1"))
    _burnt: list[bool] = []

    def _slow_once(snapshot, profile):  # type: ignore[no-untyped-def]
        result = _optimal(snapshot, profile)
        if not _burnt and len(snapshot.tickets) >= _from_tickets:
            _burnt.append(True)
            end = time.process_time() + _burn_s
            while time.process_time() < end:  # the CPU, as a strategy's search holds it
                pass
            tickets = len(snapshot.tickets)
            print(
                f"test hook: a wave of {tickets} tickets held the CPU {_burn_s} s more",
                file=sys.stderr,
                flush=True,
            )
        return result

    duel_strategies.optimal_strategy = _slow_once

if os.environ.get("SLOW_PLUGIN_TEST_S"):
    import random

    from matcher.core import Match, Seat, Team, WaveResult, derive_match_id
    from matcher.placement import channel_name, choose_map, choose_server
    from matcher.strategies import register_strategy

    _plugin_burn_s = float(os.environ["SLOW_PLUGIN_TEST_S"])
    _plugin_burnt: list[bool] = []

    def _slow_pairs(snapshot, profile):  # type: ignore[no-untyped-def]
        """A plug-in strategy: solo tickets paired in join order, its first wave of two
        tickets or more holding the CPU ``SLOW_PLUGIN_TEST_S`` seconds first."""
        tickets = [w.ticket for w in snapshot.tickets]
        if not _plugin_burnt and len(tickets) >= 2:
            _plugin_burnt.append(True)
            end = time.process_time() + _plugin_burn_s
            while time.process_time() < end:
                pass
            print(
                f"test hook: a plug-in's wave of {len(tickets)} tickets held the CPU "
                f"{_plugin_burn_s} s",
                file=sys.stderr,
                flush=True,
            )
        rng, matches = random.Random(snapshot.seed), []
        for a, b in zip(tickets[0::2], tickets[1::2], strict=False):  # an odd one waits
            teams = tuple(
                Team(f"team{i}", (Seat(t.ticket_id, t.players[0].player_id, "", 1500),))
                for i, t in enumerate((a, b), start=1)
            )
            ids = (a.ticket_id, b.ticket_id)
            match_id = derive_match_id(snapshot.queue, snapshot.region, snapshot.wave_id, ids)
            server = choose_server(rng, profile, snapshot.region, snapshot.region)
            channel = channel_name(snapshot.matches_placed + len(matches) + 1)
            matches.append(
                Match(match_id, teams, choose_map(rng, profile.maps, []), server, channel)
            )
        left = tuple(t.ticket_id for t in tickets[2 * len(matches) :])
        return WaveResult("test-slow-pairs", tuple(matches), left)

    register_strategy("test-slow-pairs", _slow_pairs)
