"""`wavematch explain` of a backfill choice (docs/adr/0114): which request, which team, the
team gap before and after, and why older queued tickets were passed over; re-derived
from a log through the worker's own fold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas import models as m
from schemas.topics import QUEUE
from streams.audit.explain import find_backfills
from streams.audit.history import ticket_history
from streams.audit.logfile import write_log
from streams.cli import main
from streams.settings import load_settings
from tests.streams.test_lifecycle_log import T0, Log

CONFIG = """
partitions = 4
[[queues]]
name = "5v5"
strategy = "rebalance"
regions = ["eu"]
maps = ["Polypoid"]
team_size = 5
"""


def joined(ticket: str, rating: int, *players: str, at_s: int = 0) -> m.TicketJoined:
    return m.TicketJoined.model_validate(
        {
            "ticket_id": ticket,
            "queue": "5v5",
            "region": "eu",
            "joined_at_ms": T0 + at_s * 1000,
            "players": [{"player_id": p, "ratings": {"mmr": rating}} for p in players],
        }
    )


def backfill_log(tmp_path: Path) -> tuple[Path, Log]:
    config = tmp_path / "wavematch.toml"
    config.write_text(CONFIG)
    settings = load_settings(config, broker_url="kafka://localhost:1")
    log = Log(settings)
    log.send(joined("t-trio", 1500, "a", "b", "c"))  # too large for two open slots
    log.send(joined("t-low", 1100, "lou", at_s=1))  # would leave blue far below red
    log.send(joined("t-duo", 1600, "ann", "ben", at_s=2))
    blue = [{"player_id": f"b{i}", "rating": 1400} for i in range(3)]
    red = [{"player_id": f"r{i}", "rating": 1500} for i in range(5)]
    log.send(
        m.BackfillRequested.model_validate(
            {
                "session_id": "s-1",
                "queue": "5v5",
                "region": "eu",
                "requested_at_ms": T0 + 3_000,
                "teams": [
                    {"name": "red", "players": red, "open_slots": 0},
                    {"name": "blue", "players": blue, "open_slots": 2},
                ],
            }
        )
    )
    tick = m.WaveTick(
        queue="5v5",
        region="eu",
        wave_id="w1",
        sequence=1,
        tick_at_ms=T0 + 10_000,
        config_fingerprint=settings.config_fingerprint(),
        interval_ms=10_000,
    )
    log.send(tick)
    return config, log


def test_a_chosen_and_a_passed_over_ticket_are_told_why(tmp_path: Path) -> None:
    _, log = backfill_log(tmp_path)

    def lines(ticket: str) -> list[str]:
        return [line.split("] ", 1)[1] for line in ticket_history(log.folder, log.records, ticket)]

    assert lines("t-duo")[-2:] == [
        "chosen for session s-1, team blue: team gap 100 before, 20 after; 2 older passed over",
        "dequeued MATCHED after 1 waves, match s-1: backfill of session s-1",
    ]
    assert lines("t-trio")[-1] == (
        "passed over by the backfill of session s-1: party of 3, more than any team's open "
        "slots (2)"
    )
    assert lines("t-low")[-1] == (
        "passed over by the backfill of session s-1: no set of parties with it fills the open "
        "slots exactly (parties stay whole)"
    )


def test_explain_a_session_prints_the_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, log = backfill_log(tmp_path)
    (found,) = find_backfills(log.folder, log.records, "s-1")
    assert found[0].teams == (("red", ()), ("blue", ("t-duo",)))
    exported = tmp_path / "queue.avro"
    write_log(exported, [r for r in log.records if r.topic == QUEUE.name], {"source": "test"})

    args = ["explain", "s-1", "--log", str(exported), "--config", str(config)]
    assert main([*args, "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert facts["team blue"] == "t-duo"
    assert facts["team gap"].startswith("100 before, 20 after")
    assert facts["passed over t-low"].endswith("fills the open slots exactly (parties stay whole)")
    assert main(args) == 0
    assert "backfill of session s-1, filled by the WaveTick" in capsys.readouterr().out
    assert main(["explain", "s-2", "--log", str(exported), "--config", str(config)]) == 2
    assert "s-2 was not produced (or backfilled)" in capsys.readouterr().err


PARTIAL = """
partitions = 4
[[queues]]
name = "2v2"
strategy = "rebalance"
regions = ["eu"]
maps = ["Polypoid"]
team_size = 2
partial_backfill = true
"""


def tick(settings, sequence: int) -> m.WaveTick:  # type: ignore[no-untyped-def]
    return m.WaveTick(
        queue="2v2",
        region="eu",
        wave_id=f"w{sequence}",
        sequence=sequence,
        tick_at_ms=T0 + sequence * 10_000,
        config_fingerprint=settings.config_fingerprint(),
        interval_ms=10_000,
    )


def one(ticket: str, player: str, at_s: int) -> m.TicketJoined:
    return m.TicketJoined.model_validate(
        {
            "ticket_id": ticket,
            "queue": "2v2",
            "region": "eu",
            "joined_at_ms": T0 + at_s * 1000,
            "players": [{"player_id": player, "ratings": {"mmr": 1500}}],
        }
    )


def test_explain_a_partially_filled_session_prints_every_fill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A partial backfill fills one session at several ticks (docs/adr/0192): explain
    SESSION_ID tells each fill, not only the last one's ("team red: no new player" while
    an earlier fill seated a player there)."""
    config = tmp_path / "wavematch.toml"
    config.write_text(PARTIAL)
    settings = load_settings(config, broker_url="kafka://localhost:1")
    log = Log(settings)
    log.send(
        m.BackfillRequested.model_validate(
            {
                "session_id": "s-p",
                "queue": "2v2",
                "region": "eu",
                "requested_at_ms": T0,
                "teams": [
                    {
                        "name": "red",
                        "players": [{"player_id": "x", "rating": 1500}],
                        "open_slots": 1,
                    },
                    {
                        "name": "blue",
                        "players": [{"player_id": "y", "rating": 1500}],
                        "open_slots": 1,
                    },
                ],
            }
        )
    )
    log.send(one("t-1", "p1", 1))
    log.send(tick(settings, 1))
    log.send(one("t-2", "p2", 11))
    log.send(tick(settings, 2))
    fills = [result.teams for result in log.published("wavematch.matches.v1") if result.session_id]
    assert len(fills) == 2  # two partial fills of one session
    exported = tmp_path / "queue.avro"
    write_log(exported, [r for r in log.records if r.topic == QUEUE.name], {"source": "test"})

    args = ["explain", "s-p", "--log", str(exported), "--config", str(config)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.count("backfill of session s-p, filled by the WaveTick") == 2
    assert "filled by wave w1" in out and "filled by wave w2" in out
    assert "t-1" in out and "t-2" in out
    assert main([*args, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [fill["facts"]["request"][-2:] for fill in answer["fills"]] == ["w1", "w2"]
    assert answer["facts"] == answer["fills"][-1]["facts"]


def test_explain_an_auto_backfilled_match_prints_its_fills(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An automatic backfill (docs/adr/0157) is a session under its match's id: explain
    MATCH_ID, the only way to reach it, tells the match and then its fills."""
    config = tmp_path / "wavematch.toml"
    config.write_text(
        PARTIAL.replace("partial_backfill = true", "auto_backfill = true")
        + "team_steps = [{ after_s = 5, team_size = 1 }]\n"
    )
    settings = load_settings(config, broker_url="kafka://localhost:1")
    log = Log(settings)
    log.send(one("t-a", "a", 0))
    log.send(one("t-b", "b", 0))
    log.send(tick(settings, 1))  # waited 10 s: a 1v1 by the step, backfilled by itself
    log.send(one("t-c", "c", 11))
    log.send(one("t-d", "d", 11))
    log.send(tick(settings, 2))
    published = log.published("wavematch.matches.v1")
    match_id = next(r.match_id for r in published if getattr(r, "match_id", None))
    assert any(getattr(r, "session_id", None) == match_id for r in published)
    exported = tmp_path / "queue.avro"
    write_log(exported, [r for r in log.records if r.topic == QUEUE.name], {"source": "test"})

    args = ["explain", match_id, "--log", str(exported), "--config", str(config)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"match {match_id} (rebalance)")
    assert f"backfill of session {match_id}, filled by the WaveTick" in out
    assert "t-c" in out and "t-d" in out
    assert main([*args, "--json"]) == 0
    backfills = json.loads(capsys.readouterr().out)["backfills"]
    assert len(backfills) == 1 and backfills[0]["facts"]["request"].endswith("wave w2")
