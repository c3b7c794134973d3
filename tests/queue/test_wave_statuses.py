"""A wave's statuses, built in one pass, are those :func:`statuses.searching` makes."""

from __future__ import annotations

import random

from matcher.core import Player, QueueProfile, Ticket
from matcher.queue.events import TicketJoined, WaveTick
from matcher.queue.fold import QueueRules, RegionQueue
from matcher.queue.statuses import searching

PROFILE = QueueProfile("1v1", "optimal", ("a", "b", "c"))
RULES = QueueRules(ticket_ttl_ms=10_000_000, finished_retention_ms=10_000_000)
T0 = 1_767_225_600_000


def test_each_status_of_a_wave_is_the_one_searching_makes() -> None:
    rng = random.Random(5)
    queue = RegionQueue("1v1", "eu")
    for wave in range(1, 5):
        for number in range(60):
            race = rng.choice(["bw", "bw", "sc2"])
            ratings = ((race, rng.randint(800, 2600)),)
            player = Player(f"p{wave}-{number}", ratings)
            ticket = Ticket(f"t{wave}-{number}", "1v1", "eu", (player,), T0)
            queue.apply(TicketJoined(ticket), PROFILE, RULES)
        tick = WaveTick("1v1", "eu", f"w{wave}", wave, T0 + 1000 * wave, "f", 1000 + wave)
        step = queue.apply(tick, PROFILE, RULES)
        expected = tuple(
            searching(
                q.ticket,
                "1v1",
                "eu",
                position,
                queue.waves_waited(q),
                tick.tick_at_ms,
                queue.last_tick_at_ms,
                queue.last_interval_ms,
                queue.estimator,
                tick.wave_id,
            )
            for position, q in enumerate(queue.tickets.values(), start=1)
        )
        assert step.statuses == expected
        assert step.statuses and step.matches  # both kinds of ticket in every wave
    assert any(status.estimated_wait_ms is not None for status in step.statuses)
