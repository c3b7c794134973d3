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
    from dataclasses import replace
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout: its tests
    from matcher.strategies import register_strategy
    from tests.queue.conftest import pair_in_order

    _plugin_burn_s = float(os.environ["SLOW_PLUGIN_TEST_S"])
    _plugin_burnt: list[bool] = []

    def _slow_pairs(snapshot, profile):  # type: ignore[no-untyped-def]
        """A plug-in strategy: the fold tests' tickets paired in join order, its first wave
        of two tickets or more holding the CPU ``SLOW_PLUGIN_TEST_S`` seconds first."""
        if not _plugin_burnt and len(snapshot.tickets) >= 2:
            _plugin_burnt.append(True)
            end = time.process_time() + _plugin_burn_s
            while time.process_time() < end:
                pass
            print(
                f"test hook: a plug-in's wave of {len(snapshot.tickets)} tickets held the CPU "
                f"{_plugin_burn_s} s",
                file=sys.stderr,
                flush=True,
            )
        return replace(pair_in_order(snapshot, profile), strategy="test-slow-pairs")

    register_strategy("test-slow-pairs", _slow_pairs)
