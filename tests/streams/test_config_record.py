"""A ConfigPublished record rebuilds settings with the very fingerprint it was published
under (docs/adr/0075), whether or not the queues set their lifecycle settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from streams.settings import Settings, load_settings
from streams.worker.config_record import config_published, settings_of

CONFIG = Path(__file__).resolve().parents[1] / "data" / "recorded-session.toml"


@pytest.mark.parametrize("lifecycle", ["", "ready_check_ms = 0\n", "placement_timeout_ms = 5000\n"])
def test_the_record_rebuilds_the_fingerprint_it_names(tmp_path: Path, lifecycle: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG.read_text() + lifecycle)
    settings = load_settings(config)
    record = config_published(settings, 1_767_225_600_000)
    assert record.config_fingerprint == settings.config_fingerprint()
    rebuilt = settings_of(record, load_settings())
    assert rebuilt is not None
    assert rebuilt.config_fingerprint() == settings.config_fingerprint()


def test_one_ticket_per_player_is_in_the_record_only_when_on(tmp_path: Path) -> None:
    """Claims change decisions (a second ticket is refused): the record rebuilds them;
    a deployment without them writes the record it wrote before the setting was kept."""
    for on in (True, False):
        config = tmp_path / f"claims-{on}.toml"
        config.write_text(f"one_ticket_per_player = {str(on).lower()}\n" + CONFIG.read_text())
        settings = load_settings(config)
        record = config_published(settings, 1_767_225_600_000)
        assert ("one_ticket_per_player" in record.settings_json) is on
        rebuilt = settings_of(record, load_settings())
        assert rebuilt is not None and rebuilt.one_ticket_per_player is on
        assert rebuilt.config_fingerprint() == settings.config_fingerprint()


def test_a_record_without_one_ticket_per_player_is_off_over_any_base(tmp_path: Path) -> None:
    """`config publish` checks a file against the record in force rebuilt over that file:
    a running configuration without claims must not take the file's `true` and let the
    change through, for the workers to refuse it (QA outside try)."""
    from streams.worker.config_log import frame_problem
    from streams.worker.config_record import settings_in

    on_file = tmp_path / "claims.toml"
    on_file.write_text("one_ticket_per_player = true\n" + CONFIG.read_text())
    running, new = load_settings(CONFIG), load_settings(on_file)
    rebuilt = settings_in(config_published(running, 1_767_225_600_000), new)
    assert rebuilt is not None and rebuilt.one_ticket_per_player is False
    problem = frame_problem(rebuilt, new)
    assert problem is not None and problem.startswith("one_ticket_per_player: differs")


def test_a_worker_with_its_secrets_in_files_reads_a_published_record(tmp_path: Path) -> None:
    """Every shipped deployment reads the password and the web token from files: a
    record rebuilt over such settings must not name each secret twice."""
    (tmp_path / "password").write_text("s3cret\n")
    (tmp_path / "token").write_text("a-token-of-sixteen-or-more\n")
    worker = Settings(
        broker_url="kafka://broker:9093",
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username="wavematch",
        sasl_password_file=tmp_path / "password",
        web_host="0.0.0.0",
        web_token_file=tmp_path / "token",
    )
    published = load_settings(CONFIG)
    rebuilt = settings_of(config_published(published, 1_767_225_600_000), worker)
    assert rebuilt is not None
    assert rebuilt.config_fingerprint() == published.config_fingerprint()
    assert rebuilt.sasl_password is not None and rebuilt.web_token is not None
    assert rebuilt.sasl_password.get_secret_value() == "s3cret"
    assert rebuilt.web_token.get_secret_value() == "a-token-of-sixteen-or-more"


def test_secrets_in_files_named_by_the_environment_read_a_published_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/operations.md's secured setup gives the CLI its password file by variable:
    a replay rebuilding the log's records over those settings read the variable again
    beside the password already read, and refused every record in a multi-line error."""
    (tmp_path / "password").write_text("s3cret\n")
    monkeypatch.setenv("WAVEMATCH_SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("WAVEMATCH_SASL_MECHANISM", "SCRAM-SHA-512")
    monkeypatch.setenv("WAVEMATCH_SASL_USERNAME", "wavematch")
    monkeypatch.setenv("WAVEMATCH_SASL_PASSWORD_FILE", str(tmp_path / "password"))
    cli = load_settings(None, broker_url="kafka://broker:9093")
    published = load_settings(CONFIG)
    rebuilt = settings_of(config_published(published, 1_767_225_600_000), cli)
    assert rebuilt is not None
    assert rebuilt.config_fingerprint() == published.config_fingerprint()
    assert rebuilt.sasl_password is not None
    assert rebuilt.sasl_password.get_secret_value() == "s3cret"


def test_the_contract_names_every_setting_the_record_carries() -> None:
    """schemas/avro/v1/ConfigPublished.avsc documents settings_json's members."""
    from schemas.codec import load_schema
    from streams.worker.config_record import DECISIVE_FIELDS

    (field,) = [f for f in load_schema("ConfigPublished")["fields"] if f["name"] == "settings_json"]
    missing = [name for name in DECISIVE_FIELDS if name not in field["doc"]]
    assert missing == []
