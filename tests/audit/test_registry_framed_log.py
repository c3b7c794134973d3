"""A log whose records a schema registry framed replays as the same log single-object
(docs/adr/0167): the recorded session with every Avro value, joins and outputs alike,
re-framed under a registry's ids replays IDENTICAL through that registry, and without
one is refused in one line naming the setting."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from schemas.codec import HEADER_BYTES, KNOWN, MAGIC
from schemas.topics import MATCHES, QUEUE
from streams import connection
from streams.audit.logfile import read_log, read_metadata, write_log
from streams.audit.rederive import LogRecord
from streams.audit.unframe import UnreadableLog, unframed
from streams.cli import main
from streams.wire.avro import registry_header
from streams.wire.registry import SchemaRegistry
from tests.streams.test_registry_wire import FakeClient

DATA = Path(__file__).resolve().parents[1] / "data"
LOG = DATA / "recorded-session.avro"
CONFIG = DATA / "recorded-session.toml"
#: Each committed schema revision's id in the fake registry.
IDS = {fingerprint: 100 + n for n, fingerprint in enumerate(sorted(KNOWN))}
SCHEMAS = {IDS[f]: json.dumps(known.source) for f, known in KNOWN.items()}


def framed(value: bytes | None) -> bytes | None:
    if not value or value[:2] != MAGIC:
        return value
    return registry_header(IDS[value[2:HEADER_BYTES]]) + value[HEADER_BYTES:]


@pytest.fixture
def framed_log(tmp_path: Path) -> Path:
    records = [replace(r, value=framed(r.value)) for r in read_log(LOG)]
    topics = {r.topic for r in records if r.value and r.value[:1] == b"\x00"}
    assert {QUEUE.name, MATCHES.name} <= topics  # joins and outputs both framed
    out = tmp_path / "framed.avro"
    write_log(out, records, read_metadata(LOG))
    return out


def replay(log: Path, *extra: str) -> list[str]:
    return ["replay", "--log", str(log), "--config", str(CONFIG), "--quiet", *extra]


def test_a_framed_log_replays_identically_through_the_registry(
    framed_log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    client = FakeClient(SCHEMAS)
    used: list[str | None] = []

    def registry_of(settings):  # type: ignore[no-untyped-def]
        used.append(settings.schema_registry_url)
        return SchemaRegistry(client)

    monkeypatch.setattr(connection, "registry_of", registry_of)
    code = main(replay(framed_log, "--schema-registry", "http://registry.test:8081"))
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[-1].split() == ["verdict", "IDENTICAL"]
    assert used == ["http://registry.test:8081"]
    assert 0 < client.lookups <= len(SCHEMAS)  # one look-up per id


def test_without_a_registry_a_framed_log_is_one_line_naming_the_setting(
    framed_log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("WAVEMATCH_SCHEMA_REGISTRY_URL", raising=False)
    assert main(replay(framed_log)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert "schema_registry_url" in line and "--schema-registry" in line
    assert "registry-framed" in line and re.search(r"offset \d+, schema id 1\d\d\)", line)


def test_a_registry_that_does_not_answer_stops_the_audit_in_one_line() -> None:
    records = [LogRecord(QUEUE.name, 0, 0, b"1v1/eu", framed(next(iter(KNOWN.values())).header))]
    said = r"^schema_registry_url: schema id \d+: the registry did not answer: connection refused$"
    with pytest.raises(UnreadableLog, match=said):
        unframed(records, SchemaRegistry(FakeClient(SCHEMAS, OSError("connection refused"))))


def test_an_id_the_registry_lacks_stays_framed_for_the_fold_to_dead_letter() -> None:
    value = registry_header(4242) + b"\x00" * 8
    (record,) = unframed([LogRecord(QUEUE.name, 0, 0, None, value)], SchemaRegistry(FakeClient({})))
    assert record.value == value


def test_a_what_if_on_a_framed_log_reads_it_through_the_registry_it_names(
    framed_log: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """`simulate --log` takes `--schema-registry` as replay does: the recorded baseline
    column of a framed log is the plain log's."""
    client = FakeClient(SCHEMAS)
    used: list[str | None] = []

    def registry_of(settings):  # type: ignore[no-untyped-def]
        used.append(settings.schema_registry_url)
        return SchemaRegistry(client)

    monkeypatch.setattr(connection, "registry_of", registry_of)
    reports = {}
    for name, log, extra in (
        ("plain", LOG, ()),
        ("framed", framed_log, ("--schema-registry", "http://registry.test:8081")),
    ):
        out = tmp_path / name
        args = ["simulate", "--log", str(log), "--candidate", str(CONFIG), "--report", str(out)]
        assert main([*args, "--quiet", *extra]) == 0, capsys.readouterr().err
        figures = json.loads((out / "figures.json").read_text())
        assert figures.pop("log") == log.name
        reports[name] = figures
    assert used == ["http://registry.test:8081"]
    assert reports["framed"] == reports["plain"]
    (scenario,) = reports["framed"]["scenarios"]
    assert scenario["variants"][0]["overall"]["matches"] > 0  # the recorded baseline


def test_schema_registry_without_a_recorded_log_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["simulate", "--config", "docs/sim/standard.toml", "--report", str(tmp_path)]
    assert main([*args, "--schema-registry", "http://registry.test:8081"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(
        "--schema-registry: reads a recorded log; use it with --log or --candidate"
    )
