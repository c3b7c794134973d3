"""Automatic backfill (issue 35): a match created below the queue's full shape opens a
backfill of its empty seats by itself, filled at the next ticks like a platform's request;
a queue without ``auto_backfill`` opens none."""

from __future__ import annotations

import pytest

from matcher.core import QueueProfile
from matcher.queue import QueueRules, TicketJoined, WaveTick
from matcher.queue.book import QueueBook
from matcher.queue.lifecycle import BackfillCancelled, BackfillResult
from matcher.teams.step_config import parse_team_steps
from streams.settings import SettingsError, load_settings
from tests.queue.conftest import make_ticket

RULES = QueueRules(ticket_ttl_ms=600_000, finished_retention_ms=600_000)


def book(steps: list[dict[str, object]], count: int = 2, auto: bool = True) -> QueueBook:
    profile = QueueProfile(
        "3v3",
        "rebalance",
        ("alpha",),
        team_count=count,
        team_size=3,
        team_steps=parse_team_steps(steps, count, 3),
        auto_backfill=auto,
    )
    return QueueBook({"3v3": profile}, {"3v3": ("eu",)}, RULES)


def join(b: QueueBook, ticket_id: str, at_ms: int, rating: int = 1500) -> None:
    b.apply(TicketJoined(make_ticket(ticket_id, queue="3v3", joined_at_ms=at_ms, rating=rating)))


def tick(n: int, at_ms: int) -> WaveTick:
    return WaveTick("3v3", "eu", f"w{n}", n, at_ms, "cfg", 10_000)


def test_a_smaller_match_opens_a_backfill_that_the_next_tick_fills() -> None:
    b = book([{"after_s": 30, "team_size": 2}])
    for i in range(4):
        join(b, f"t{i}", 1_000)
    (match,) = b.apply(tick(1, 40_000)).matches
    assert sorted(len(team.seats) for team in match.teams) == [2, 2]
    (request,) = b.regions["3v3", "eu"].life.backfills.values()
    assert request.session_id == match.match_id
    assert [(t.name, len(t.players), t.open_slots) for t in request.teams] == [
        ("team1", 2, 1),
        ("team2", 2, 1),
    ]
    join(b, "late-a", 41_000, 1490)
    join(b, "late-b", 41_000, 1510)
    step = b.apply(tick(2, 50_000))
    (result,) = [o for o in step.outputs if isinstance(o, BackfillResult)]
    assert (result.session_id, result.outcome) == (match.match_id, "FILLED")
    assert sorted(s.ticket_id for t in result.teams for s in t.seats) == ["late-a", "late-b"]
    assert not b.regions["3v3", "eu"].life.backfills


def test_a_team_count_step_opens_the_missing_teams_and_the_platform_may_cancel() -> None:
    b = book([{"after_s": 30, "team_count": 2}], count=3)
    for i in range(6):
        join(b, f"t{i}", 1_000)
    (match,) = b.apply(tick(1, 40_000)).matches
    (request,) = b.regions["3v3", "eu"].life.backfills.values()
    assert [(t.name, len(t.players), t.open_slots) for t in request.teams] == [
        ("team1", 3, 0),
        ("team2", 3, 0),
        ("team3", 0, 3),
    ]
    assert b.apply(BackfillCancelled(match.match_id, "3v3", "eu", 41_000)).note == (
        "backfill_cancelled"
    )


def test_full_matches_and_queues_without_it_open_none() -> None:
    for auto, waited_ms in ((True, 5_000), (False, 40_000)):
        b = book([{"after_s": 30, "team_size": 2}], auto=auto)
        for i in range(6 if waited_ms == 5_000 else 4):
            join(b, f"t{i}", 1_000)
        assert len(b.apply(tick(1, 1_000 + waited_ms)).matches) == 1
        assert not b.regions["3v3", "eu"].life.backfills


def test_the_setting_is_refused_with_held_matches() -> None:
    queue = {"name": "q", "strategy": "rebalance", "team_size": 3, "auto_backfill": True}
    assert load_settings(queues=[queue]).profiles()["q"].auto_backfill
    with pytest.raises(SettingsError, match=r"auto_backfill: not with ready_check_ms"):
        load_settings(queues=[{**queue, "ready_check_ms": 10_000}])
