"""Test hook, imported at start by a process with this directory on its PYTHONPATH: the
first `optimal` wave of at least ``SLOW_WAVE_TEST_TICKETS`` tickets keeps the
CPU busy for ``SLOW_WAVE_TEST_S`` seconds more (a wave longer than the group's
session timeout), its result unchanged."""

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
