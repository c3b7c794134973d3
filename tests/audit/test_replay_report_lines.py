"""What `wavematch replay` prints for an auditor: every DIFFERENCE line names the record's
type and identifying fields (never ``=None``), a MatchProposed is never told as its
match's MatchCreated, a topic's "N of M" never reads as all good beside records
published but not re-derived, and a published fingerprint of no configuration in the
log is told in one line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from schemas import models as m
from schemas.codec import decode, encode
from schemas.topics import MATCHES, QUEUE, WAVES, queue_key
from streams.audit.logfile import read_log, read_metadata, write_log
from streams.audit.rederive import LogRecord
from streams.audit.replay import ReplayReport, Scope, replay
from streams.cli import main
from streams.commands.replay import render
from streams.settings import Settings
from tests.audit.test_recorded_session import LOG
from tests.streams.test_lifecycle_log import (
    T0,
    Log,
    _avro,
    answer,
    proposed,
    settings,
)
from tests.streams.test_replay_scope import waited_alone
from tests.streams.test_searches_log import SETTINGS, race, searching


def _text(config: Settings, records: list[LogRecord], scope: Scope | None = None) -> str:
    return render(replay(config, records, scope or Scope()))


def _differences(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("DIFFERENCE")]


def _line(text: str, name: str) -> str:
    return next(line[21:] for line in text.splitlines() if line[:21].strip() == name)


def _without(records: list[LogRecord], dropped: LogRecord) -> list[LogRecord]:
    return [r for r in records if r is not dropped]


def _changed(records: list[LogRecord], record: LogRecord, **fields: Any) -> list[LogRecord]:
    event = decode(record.value or b"")
    value = encode(event.model_copy(update=fields))
    return [replace(r, value=value) if r is record else r for r in records]


# --- 1. search claims -----------------------------------------------------------------


def test_a_search_claim_not_published_is_named_by_action_ticket_and_place() -> None:
    log = race()
    released = next(
        r
        for r in log.records
        if isinstance(e := _avro(r), m.SearchClaim) and e.action is m.SearchClaimAction.RELEASED
    )
    text = _text(SETTINGS, _without(log.records, released))
    (line,) = _differences(text)
    assert "wavematch.queue.v1 key search/t-alice SearchClaim action='RELEASED'" in line
    assert "ticket_id='t-alice' queue='1v1' region='eu'" in line
    assert line.endswith(": not published") and "None" not in line


def test_a_changed_search_claim_is_compared_with_its_own_namesake() -> None:
    """The key ``1v1/na`` carries the copy and the grant: the grant is compared with the
    grant, not with the copy (whose ``action`` would read as None). The grant is input
    to the fold too: what it decided later differs as well, each told by its own type."""
    log = race()
    grant = next(
        r
        for r in log.records
        if isinstance(e := _avro(r), m.SearchClaim) and e.action is m.SearchClaimAction.GRANTED
    )
    lines = _differences(_text(SETTINGS, _changed(log.records, grant, at_ms=T0 + 10_001)))
    assert lines[0][21:].startswith("wavematch.queue.v1 key 1v1/na SearchClaim action='GRANTED'")
    assert (
        "first differing field 'at_ms': re-derived 1767225610000, published 1767225610001"
        in (lines[0])
    )
    assert any("MatchCreated match_id=" in line for line in lines)
    assert any(
        "TicketDequeued ticket_id='t-carol' queue='1v1' region='na'" in line for line in lines
    )
    assert all("None" not in line for line in lines)


def test_a_leave_claim_with_no_match_leaves_match_id_out_of_its_label() -> None:
    log = Log(SETTINGS)
    log.send(searching("t-alice", "alice", "bw"))
    log.send(
        m.TicketLeft(
            ticket_id="t-alice", queue="1v1", region="eu", reason="REQUESTED", left_at_ms=T0 + 5_000
        )
    )
    claim = next(
        r
        for r in log.records
        if isinstance(e := _avro(r), m.SearchClaim)
        and e.action is m.SearchClaimAction.REQUESTED
        and e.match_id is None
    )
    lines = _differences(_text(SETTINGS, _without(log.records, claim)))
    assert lines, "the dropped claim is reported"
    assert "SearchClaim action='REQUESTED' ticket_id='t-alice'" in lines[0]
    assert all("None" not in line and "match_id" not in line.split(":")[0] for line in lines)


# --- 2. a ready check's proposal and match --------------------------------------------


def _ready_checked() -> tuple[Settings, Log]:
    """A ready check both players accept: a MatchProposed, then the MatchCreated, both
    keyed by the match id on the matches topic."""
    config = settings(ready_check_ms=5_000)
    log, proposal = proposed(config)
    log.send(answer(proposal.match_id, "alice", True, 11))
    log.send(answer(proposal.match_id, "bob", True, 12))
    return config, log


def _match_record(log: Log, kind: type) -> LogRecord:
    return next(r for r in log.records if r.topic == MATCHES.name and isinstance(_avro(r), kind))


@pytest.mark.parametrize("kind", [m.MatchCreated, m.MatchProposed])
def test_a_missing_match_record_is_named_by_its_type(kind: type) -> None:
    config, log = _ready_checked()
    record = _match_record(log, kind)
    (line,) = _differences(_text(config, _without(log.records, record)))
    match_id = (record.key or b"").decode()
    assert f"{kind.__name__} match_id={match_id!r}: not published" in line
    assert "created_at_ms" not in line and "proposed_at_ms" not in line


def test_a_changed_match_is_compared_with_its_match_not_its_proposal() -> None:
    config, log = _ready_checked()
    created = _match_record(log, m.MatchCreated)
    (line,) = _differences(_text(config, _changed(log.records, created, map="Eclipse")))
    assert "MatchCreated match_id=" in line
    assert "first differing field 'map': re-derived 'Polypoid', published 'Eclipse'" in line


def test_a_missing_match_and_an_extra_proposal_are_two_lines_each_naming_its_type() -> None:
    config, log = _ready_checked()
    created = _match_record(log, m.MatchCreated)
    proposal = _match_record(log, m.MatchProposed)
    event = decode(proposal.value or b"")
    extra = replace(
        proposal,
        offset=99,
        value=encode(event.model_copy(update={"deadline_at_ms": event.deadline_at_ms + 1})),
    )
    records = [*_without(log.records, created), extra]
    missing, unexpected = _differences(_text(config, records))
    assert "MatchCreated match_id=" in missing and missing.endswith(": not published")
    assert "MatchProposed match_id=" in unexpected
    assert ": published, not re-derived (" in unexpected


# --- 3. the summary beside unexpected records -----------------------------------------


def test_a_published_match_not_re_derived_is_counted_beside_the_identical_ones() -> None:
    config, log = _ready_checked()
    created = _match_record(log, m.MatchCreated)
    event = decode(created.value or b"")
    forged = event.model_copy(update={"match_id": "forged-match"})
    records = [*log.records, LogRecord(MATCHES.name, 0, 99, b"forged-match", encode(forged))]
    report = replay(config, records)
    text = render(report)
    assert _line(text, "matches identical") == (
        "2 of 2 re-derived identical, 1 published records not re-derived"
    )
    assert _line(text, "verdict").startswith("DIFFERENT") and not report.ok
    assert "MatchCreated match_id='forged-match': published, not re-derived" in text


def test_a_claim_record_not_re_derived_is_counted_when_none_was_re_derived() -> None:
    """A log with no search: no claim is re-derived, and a forged one is still counted."""
    log = waited_alone(SETTINGS, "t-bob", "bob", "sc2")
    claim = m.SearchClaim(
        action=m.SearchClaimAction.ENDED,
        ticket_id="t-bob",
        player_id="bob",
        queue="1v1",
        region="eu",
        at_ms=T0 + 11_000,
    )
    records = [*log.records, LogRecord(QUEUE.name, 0, 99, b"search/t-bob", encode(claim))]
    text = _text(SETTINGS, records)
    assert _line(text, "claim records") == (
        "0 of 0 re-derived identical, 1 published records not re-derived"
    )
    (line,) = _differences(text)
    assert "SearchClaim action='ENDED' ticket_id='t-bob' queue='1v1' region='eu'" in line
    assert "None" not in line and _line(text, "verdict").startswith("DIFFERENT")


# --- 4. fingerprints of no configuration ----------------------------------------------


def _wave(log: Log, region: str) -> LogRecord:
    return next(
        r for r in log.records if r.topic == WAVES.name and r.key == queue_key("1v1", region)
    )


def test_a_wave_whose_fingerprint_is_not_one_is_told_and_judged_different() -> None:
    """Not 16 hex digits: no configuration's, so not another configuration's waves."""
    log = race()
    records = _changed(log.records, _wave(log, "na"), config_fingerprint="zz-corrupted")
    text = _text(SETTINGS, records)
    assert _line(text, "unknown fingerprint") == (
        "1 published records carry 'zz-corrupted', not a fingerprint (16 hex digits): corrupted"
    )
    assert "other configuration" not in text and "regions not compared" not in text
    (line,) = _differences(text)
    assert "WaveClosed wave_id=" in line and "first differing field 'config_fingerprint'" in line
    assert _line(text, "verdict").startswith("DIFFERENT")


def test_a_wave_whose_well_formed_fingerprint_no_configuration_has_is_told() -> None:
    log = race()
    records = _changed(log.records, _wave(log, "na"), config_fingerprint="0123456789abcdef")
    report = replay(SETTINGS, records)
    text = render(report)
    assert report.unknown_fingerprints == {"0123456789abcdef": 1}
    assert _line(text, "unknown fingerprint").startswith(
        "1 published records carry config 0123456789abcdef, which no configuration in the log has"
    )
    assert "IDENTICAL" not in _line(text, "verdict")


def test_a_corrupted_fingerprint_out_of_scope_is_still_told() -> None:
    log = race()
    records = _changed(log.records, _wave(log, "na"), config_fingerprint="zz-corrupted")
    text = _text(SETTINGS, records, Scope(region="eu"))
    assert "unknown fingerprint  1 published records carry 'zz-corrupted'" in text


def test_a_match_whose_fingerprint_no_configuration_has_is_told() -> None:
    log = race()
    match = next(r for r in log.records if r.topic == MATCHES.name)
    report = replay(SETTINGS, _changed(log.records, match, config_fingerprint="0123456789abcdef"))
    assert report.unknown_fingerprints == {"0123456789abcdef": 1}
    assert "unknown fingerprint  1 published records carry config 0123456789abcdef" in render(
        report
    )


def test_a_clean_log_has_no_unknown_fingerprint() -> None:
    report: ReplayReport = replay(SETTINGS, race().records)
    assert report.ok and report.unknown_fingerprints == {}
    assert "unknown fingerprint" not in render(report)


def test_the_earliest_waves_with_corrupted_fingerprints_do_not_hide_the_logs_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The configuration is the earliest wave's (docs/adr/0075): a corrupted one there is
    no configuration, so the log's is still found and the corrupted waves are differences."""
    records = list(read_log(LOG))
    waves = [(r, decode(r.value or b"")) for r in records if r.topic == WAVES.name]
    first = min(int(w.wave_id) for _, w in waves)
    corrupted = {id(r) for r, w in waves if int(w.wave_id) == first}
    changed = [
        replace(
            r, value=encode(decode(r.value or b"").model_copy(update={"config_fingerprint": "-"}))
        )
        if id(r) in corrupted
        else r
        for r in records
    ]
    log = tmp_path / "corrupted.avro"
    write_log(log, changed, read_metadata(LOG))
    code = main(["replay", "--log", str(log), "--quiet"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "configuration        from the log: " in out
    assert (
        f"unknown fingerprint  {len(corrupted)} published records carry '-', not a fingerprint"
        in (out)
    )
    assert "other configuration" not in out


def test_waves_of_another_configuration_in_the_log_are_not_told_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replayed under a named configuration, the log's waves are another configuration's,
    whose record the log carries: no unknown fingerprint."""
    config = tmp_path / "other.toml"
    recorded = Path(LOG).with_suffix(".toml")
    config.write_text(
        recorded.read_text().replace('strategy = "optimal"', 'strategy = "ladder-v2.1"')
    )
    code = main(["replay", "--log", str(LOG), "--config", str(config), "--quiet"])
    out = capsys.readouterr().out
    assert code == 3 and "other configuration  108 waves" in out, out
    assert "unknown fingerprint" not in out
