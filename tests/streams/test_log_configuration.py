"""The configuration in the log is the whole configuration: a log written by a deployment
with non-default settings replays IDENTICAL, explains, and is simulated against its
baseline with no settings file (docs/adr/0075), from an exported file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schemas import models as m
from schemas.codec import encode
from schemas.topics import CONFIG
from streams.audit.logfile import write_log
from streams.cli import main
from streams.settings import QueueSettings, RouteSettings, Settings
from streams.worker.config_record import config_published
from tests.streams.test_lifecycle_log import T0, Log, proposals

LADDER_RULES: dict[str, Any] = {
    "rating": "mmr",
    "max_distance": {"base": 100, "growth_per_s": 2, "cap": 400},
    "rematch": {"last": 2, "within_s": 600},
}


def deployment() -> Settings:
    """A deployment whose queues no default configuration has, with every non-default
    setting the log must carry: claims, a ready check, placement reports, rules, routes,
    per-queue ticket timeouts, and a team queue for backfill."""
    ladder = QueueSettings(
        name="ladder",
        strategy="optimal",
        regions=("eu", "na"),
        maps=("Polypoid", "Eclipse"),
        ready_check_ms=5_000,
        placement_timeout_ms=20_000,
        placement_requeues=1,
        rules=LADDER_RULES,
        ticket_ttl_ms=120_000,
    )
    squad = QueueSettings(
        name="squad",
        strategy="rebalance",
        regions=("eu",),
        maps=("Polypoid",),
        team_size=5,
        ticket_ttl_ms=1_200_000,
        rules={"max_team_gap": 200},
    )
    return Settings(
        partitions=4,
        one_ticket_per_player=True,
        ticket_ttl_ms=900_000,
        fallback_servers=("fallback-1",),
        routes=(RouteSettings(region_a="eu", region_b="eu", servers=("eu-frankfurt",)),),
        queues=(ladder, squad),
    )


def backfill(config: Settings, log: Log) -> None:
    """A party of two fills the two open slots of a running 5v5 session s-1."""
    for ticket, players in (("t-party", ("ann", "ben")), ("t-solo", ("cat",))):
        joined_ = {
            "ticket_id": ticket,
            "queue": "squad",
            "region": "eu",
            "joined_at_ms": T0,
            "players": [{"player_id": p, "ratings": {"mmr": 1500}} for p in players],
        }
        log.send(m.TicketJoined.model_validate(joined_))
    teams = [
        {"name": "red", "players": [{"player_id": f"r{i}", "rating": 1500} for i in range(5)]},
        {"name": "blue", "players": [{"player_id": f"b{i}", "rating": 1500} for i in range(3)]},
    ]
    teams[0]["open_slots"], teams[1]["open_slots"] = 0, 2
    request = {
        "session_id": "s-1",
        "queue": "squad",
        "region": "eu",
        "requested_at_ms": T0,
        "teams": teams,
    }
    log.send(m.BackfillRequested.model_validate(request))
    tick = ticked(config, 10).model_copy(update={"queue": "squad"})
    log.send(tick)


def joined(ticket: str, player: str, mmr: int, at_s: float = 0) -> m.TicketJoined:
    return m.TicketJoined.model_validate(
        {
            "ticket_id": ticket,
            "queue": "ladder",
            "region": "eu",
            "joined_at_ms": T0 + int(at_s * 1000),
            "players": [{"player_id": player, "ratings": {"mmr": mmr}}],
        }
    )


def ticked(config: Settings, at_s: int) -> m.WaveTick:
    at = T0 + at_s * 1000
    return m.WaveTick(
        queue="ladder",
        region="eu",
        wave_id=str(at),
        sequence=at,
        tick_at_ms=at,
        config_fingerprint=config.config_fingerprint(),
        interval_ms=10_000,
    )


def answered(match_id: str, player: str, accepted: bool, at_s: int) -> m.ReadyCheckAnswered:
    return m.ReadyCheckAnswered(
        match_id=match_id,
        queue="ladder",
        region="eu",
        player_id=player,
        accepted=accepted,
        answered_at_ms=T0 + at_s * 1000,
    )


def reported(match_id: str, outcome: str, at_s: int) -> m.PlacementReported:
    return m.PlacementReported(
        match_id=match_id,
        queue="ladder",
        region="eu",
        outcome=outcome,
        reported_at_ms=T0 + at_s * 1000,
    )


def session(config: Settings) -> tuple[Log, dict[str, str]]:
    """alice and bob proposed, bob declines; alice and carol proposed, carol stays silent
    (timed out); alice and dave confirmed, placement FAILED, again, STARTED; a backfill."""
    log = Log(config)
    record = config_published(config, T0)
    log.produce(CONFIG.name, record.config_fingerprint.encode(), encode(record))
    log.send(joined("t-alice", "alice", 1500))
    log.send(joined("t-bob", "bob", 1550))
    log.send(ticked(config, 10))
    first = proposals(log)[-1].match_id
    log.send(answered(first, "bob", False, 11))
    log.send(joined("t-carol", "carol", 1450, 12))
    log.send(ticked(config, 20))
    second = proposals(log)[-1].match_id
    log.send(answered(second, "alice", True, 21))
    log.send(ticked(config, 30))  # carol never answered
    log.send(joined("t-dave", "dave", 1520, 31))
    log.send(ticked(config, 40))
    third = proposals(log)[-1].match_id
    log.send(answered(third, "alice", True, 41))
    log.send(answered(third, "dave", True, 41))
    log.send(reported(third, "FAILED", 42))
    log.send(ticked(config, 50))
    fourth = proposals(log)[-1].match_id
    log.send(answered(fourth, "alice", True, 51))
    log.send(answered(fourth, "dave", True, 51))
    log.send(reported(fourth, "STARTED", 52))
    backfill(config, log)
    return log, {"declined": first, "timed_out": second, "failed": third, "played": fourth}


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    log, matches = session(deployment())
    path = tmp_path / "session.avro"
    write_log(path, log.records, {})
    return path, matches


def test_the_log_replays_identically_without_a_settings_file(
    exported: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = exported
    assert main(["replay", "--log", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "configuration        from the log" in out
    assert out.rstrip().endswith("verdict              IDENTICAL")


def test_simulate_log_has_the_recorded_baseline(
    exported: tuple[Path, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = exported
    candidate = tmp_path / "wider.toml"
    candidate.write_text(
        '[[queues]]\nname = "ladder"\nstrategy = "optimal"\nregions = ["eu", "na"]\n'
        'maps = ["Polypoid"]\n[queues.rules]\nrating = "mmr"\nmax_distance = 400\n'
    )
    args = ["simulate", "--log", str(path), "--candidate", str(candidate)]
    assert main([*args, "--report", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    fingerprint = deployment().config_fingerprint()
    assert f"baseline: the recorded configuration {fingerprint} from the log" in out


def ticket_lines(path: Path, ticket: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """`explain --ticket` without a settings file: its lines without their prefixes."""
    assert main(["explain", "--ticket", ticket, "--log", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    return [line.split("] ", 1)[1] for line in out[1:]]


def test_explain_ticket_reads_the_configuration_in_the_log(
    exported: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, matches = exported
    assert ticket_lines(path, "t-bob", capsys)[-1].startswith("declined: bob declined match")
    carol = ticket_lines(path, "t-carol", capsys)
    assert carol[-2].startswith("dequeued ACCEPTANCE_TIMED_OUT after 1 waves")
    assert carol[-1].startswith(f"timed out: ready check of match {matches['timed_out']}")
    alice = ticket_lines(path, "t-alice", capsys)
    assert alice[-1] == f"dequeued MATCHED after 5 waves, match {matches['played']}"
    assert any("placement of match" in line and "failed" in line for line in alice)


def test_explain_match_reads_the_configuration_and_agrees_on_the_waves_waited(
    exported: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, matches = exported
    assert main(["explain", matches["played"], "--log", str(path)]) == 0
    out = capsys.readouterr().out
    assert "(optimal), closed by the WaveTick" in out
    # The same count as the ticket's dequeue (the wave that matched it included).
    assert "alice (rating 1500, ticket t-alice, its wave 5)" in out
    assert "dave (rating 1520, ticket t-dave, its wave 2)" in out
    dave = ticket_lines(path, "t-dave", capsys)
    assert dave[-1] == f"dequeued MATCHED after 2 waves, match {matches['played']}"
    assert main(["explain", matches["played"], "--log", str(path), "--json"]) == 0
    assert capsys.readouterr().out.startswith("{")  # the configuration line is not in the JSON


def test_explain_a_backfill_without_a_settings_file(
    exported: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = exported
    assert main(["explain", "s-1", "--log", str(path)]) == 0
    assert "backfill of session s-1, filled by the WaveTick" in capsys.readouterr().out
    assert ticket_lines(path, "t-party", capsys)[-1].startswith(
        "dequeued MATCHED after 1 waves, match s-1"
    )
