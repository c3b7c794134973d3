"""`wavematch explain` of a backfill choice (docs/adr/0114): which request, which team, the
team gap before and after, and why older queued tickets were passed over; re-derived
from a log through the worker's own fold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas import models as m
from schemas.topics import QUEUE
from streams.audit.explain import find_backfill
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
    found = find_backfill(log.folder, log.records, "s-1")
    assert found is not None and found[0].teams == (("red", ()), ("blue", ("t-duo",)))
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
