"""The auditors' promise, offline: a recorded session (tests/data, made by
scripts/record_session.py with a live worker) replays to the very same outputs, and a
tampered log, tampered output or different configuration is caught and reported."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import fastavro
import pytest

from schemas.codec import decode, encode
from schemas.models import ConfigPublished, MatchCreated, TicketJoined, WaveClosed
from schemas.topics import CONFIG as CONFIG_TOPIC
from schemas.topics import MATCHES, QUEUE, WAVES
from streams.audit.logfile import read_log, read_metadata, write_log
from streams.audit.rederive import LogRecord
from streams.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
LOG = DATA / "recorded-session.avro"
CONFIG = DATA / "recorded-session.toml"


def replay(log: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["replay", "--log", str(log), "--config", str(config), "--quiet"])
    return code, capsys.readouterr().out


def rewritten(tmp_path: Path, change) -> Path:  # type: ignore[no-untyped-def]
    records = [changed for record in read_log(LOG) if (changed := change(record)) is not None]
    out = tmp_path / "altered.avro"
    write_log(out, records, read_metadata(LOG))
    return out


def test_the_recorded_session_replays_identically(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = replay(LOG, CONFIG, capsys)
    assert code == 0, out
    lines = {line[:21].strip(): line[21:] for line in out.splitlines()}
    assert lines["waves checked"] == "108"
    matches, _, total = lines["matches identical"].partition(" of ")
    assert matches == total and int(total) > 300
    assert lines["verdict"] == "IDENTICAL"


def test_a_changed_rating_in_the_log_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = []

    def change(record: LogRecord) -> LogRecord:
        if record.topic != QUEUE.name or done:
            return record
        event = decode(record.value or b"")
        if not isinstance(event, TicketJoined) or "bw" not in event.players[0].ratings:
            return record
        player = event.players[0].model_copy(
            update={"ratings": {"bw": event.players[0].ratings["bw"] + 400}}
        )
        done.append(event.ticket_id)
        return replace(record, value=encode(event.model_copy(update={"players": (player,)})))

    code, out = replay(rewritten(tmp_path, change), CONFIG, capsys)
    assert done and code == 1, out
    assert "DIFFERENCE" in out and "verdict              DIFFERENT" in out


def test_a_tampered_match_is_reported_with_its_first_differing_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = []

    def change(record: LogRecord) -> LogRecord:
        if record.topic != MATCHES.name or done:
            return record
        match = decode(record.value or b"")
        assert isinstance(match, MatchCreated)
        done.append(match.match_id)
        other = "Eclipse" if match.map != "Eclipse" else "Polypoid"
        return replace(record, value=encode(match.model_copy(update={"map": other})))

    code, out = replay(rewritten(tmp_path, change), CONFIG, capsys)
    assert code == 1, out
    assert "first differing field 'map'" in out


def test_a_wave_summary_never_published_is_named_by_its_wave(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen_keys: set[bytes | None] = set()
    dropped = []

    def drop_the_second_wave_of_a_key(record: LogRecord) -> LogRecord | None:
        if record.topic != WAVES.name or dropped:
            return record
        if record.key not in seen_keys:
            seen_keys.add(record.key)
            return record
        wave = decode(record.value or b"")
        assert isinstance(wave, WaveClosed)
        dropped.append(wave.wave_id)
        return None

    code, out = replay(rewritten(tmp_path, drop_the_second_wave_of_a_key), CONFIG, capsys)
    assert dropped and code == 1, out
    assert f"wave_id={dropped[0]!r}: not published" in out


def test_a_different_configuration_is_reported_not_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "other.toml"
    config.write_text(
        CONFIG.read_text().replace('strategy = "optimal"', 'strategy = "ladder-v2.1"')
    )
    code, out = replay(LOG, config, capsys)
    assert code == 3, out
    assert "other configuration  108 waves were closed under config" in out
    assert "DIFFERENCE" not in out


def test_the_export_records_how_far_the_workers_got() -> None:
    processed = json.loads(read_metadata(LOG)["wavematch.processed_offsets"])
    queue_records = [r for r in read_log(LOG) if r.topic == QUEUE.name]
    for partition, offset in processed.items():
        last = max((r.offset for r in queue_records if r.partition == int(partition)), default=-1)
        assert offset == last + 1


def test_the_log_alone_replays_identically(capsys: pytest.CaptureFixture[str]) -> None:
    """The session carries the ConfigPublished its worker published (ADR 0075): the
    auditor needs no file."""
    code = main(["replay", "--log", str(LOG), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    from streams.settings import load_settings

    fingerprint = load_settings(CONFIG).config_fingerprint()
    assert f"configuration        from the log: {fingerprint}" in out
    assert "waves checked        108" in out and "verdict              IDENTICAL" in out


def test_without_a_configuration_record_nothing_is_compared_and_no_difference_invented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log exported before ADR 0075, replayed without its TOML: exit 3, never 1."""
    log = rewritten(tmp_path, lambda record: None if record.topic == CONFIG_TOPIC.name else record)
    code = main(["replay", "--log", str(log), "--quiet"])
    out = capsys.readouterr().out
    assert code == 3, out
    assert "DIFFERENCE" not in out
    assert "verdict              NOT COMPARED (108 waves under another configuration)" in out


def test_a_configuration_record_this_release_cannot_reproduce_is_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def tamper(record: LogRecord) -> LogRecord:
        if record.topic != CONFIG_TOPIC.name:
            return record
        published = decode(record.value or b"")
        assert isinstance(published, ConfigPublished)
        changed = published.model_copy(update={"settings_json": '{"ticket_ttl_ms": 9000}'})
        return replace(record, value=encode(changed))

    code = main(["replay", "--log", str(rewritten(tmp_path, tamper)), "--quiet"])
    out = capsys.readouterr().out
    assert code == 3 and "from the log" not in out and "DIFFERENCE" not in out, out


def test_the_export_keeps_record_timestamps_the_fold_checks() -> None:
    """ADR 0074: replay compares event times with the same timestamps the worker saw."""
    queue = [r for r in read_log(LOG) if r.topic == QUEUE.name]
    assert queue and all(r.timestamp is not None and r.timestamp > 0 for r in queue)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("TicketJoined-r1-solo.avro", "not an Avro object container file"),
        ("recorded-session.toml", "is not an exported log"),
        ("missing.avro", "not found"),
        ("", "is a directory, not an exported log file"),
    ],
)
def test_a_file_that_is_not_an_export_is_one_line(
    capsys: pytest.CaptureFixture[str], name: str, reason: str
) -> None:
    code = main(["replay", "--log", str(DATA / name), "--config", str(CONFIG), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith("wavematch replay: error: --log: ") and reason in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("damage", ["cut in half", "bytes changed in place"])
def test_a_damaged_export_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    data = LOG.read_bytes()
    middle = len(data) // 2
    damaged = (
        data[:middle]
        if damage == "cut in half"
        else (data[:middle] + b"\xff\xff\xff\xff" + data[middle + 4 :])
    )
    path = tmp_path / "damaged.avro"
    path.write_bytes(damaged)
    code = main(["replay", "--log", str(path), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "is not an exported log: cut short or damaged after" in err, err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("scope", "said"),
    [
        (["--queue", "1v2"], "--queue: no wave of '1v2' in this log (it has: 1v1)"),
        (["--region", "mars"], "--region: no wave of 'mars' in this log (it has: asia, eu, na)"),
        (["--from-wave", "99999999999999"], "--from-wave: no wave 99999999999999 or later"),
    ],
)
def test_a_scope_that_selects_no_wave_is_refused_not_called_identical(
    capsys: pytest.CaptureFixture[str], scope: list[str], said: str
) -> None:
    assert main(["replay", "--log", str(LOG), "--quiet", *scope]) == 2
    captured = capsys.readouterr()
    assert said in captured.err and len(captured.err.strip().splitlines()) == 1, captured.err
    assert "IDENTICAL" not in captured.out


def test_a_scope_that_selects_waves_compares_only_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--log", str(LOG), "--quiet", "--region", "eu"]) == 0
    shown = capsys.readouterr().out
    assert "verdict              IDENTICAL" in shown
    checked = int(shown.split("waves checked")[1].split()[0])
    assert 0 < checked < 108, shown


def test_a_log_without_a_published_wave_is_not_called_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export of a cluster where nothing was queued yet (only its configuration):
    nothing compared, exit 3, never 0."""
    log = rewritten(tmp_path, lambda record: record if record.topic == CONFIG_TOPIC.name else None)
    code = main(["replay", "--log", str(log), "--config", str(CONFIG), "--quiet"])
    out = capsys.readouterr().out
    assert code == 3, out
    assert "verdict              NOT COMPARED (no published wave to compare)" in out


def test_an_export_cut_at_a_block_end_is_told_cut_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A container cut where a block ends reads as a whole file: the record count the
    export keeps in its metadata tells it is short."""
    records = list(read_log(LOG))
    whole = tmp_path / "whole.avro"
    write_log(whole, records, {"source": "test"})
    with whole.open("rb") as source:
        blocks = [block.offset for block in fastavro.block_reader(source)]
    assert len(blocks) > 1
    cut = tmp_path / "cut.avro"
    cut.write_bytes(whole.read_bytes()[: blocks[1]])  # the first block whole
    code = main(["replay", "--log", str(cut), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "is not an exported log: cut short: " in err, err
    assert f"of its {len(records)} records" in err and len(err.splitlines()) == 1
    assert main(["replay", "--log", str(whole), "--quiet"]) == 0
